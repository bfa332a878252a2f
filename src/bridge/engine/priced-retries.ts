/**
 * A priced message sent again (a client's retry after a timeout, or the same send to two replicas at once) joins
 * the task the first one created instead of paying again. What makes two sends the same is the retry key: the
 * agent, the caller (API key) and the message's content; the store decides, atomically, which send creates the task.
 */
import { createHash } from 'node:crypto';
import type { Message, Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { isInterrupted, isTerminal, userMessageJson } from '../mapping.ts';
import type { ChangeListener } from '../task-change.ts';
import type { LiveTasks } from './live-tasks.ts';
import type { ReplicaOwnership } from './replica-ownership.ts';

/** How long a priced message's retries join its task rather than pay again. */
const RETRY_WINDOW_MS = 10 * 60_000;

/** The same message to the same agent from the same caller (API key) is a retry; anyone else's is not. */
export function retryKeyOf(agentId: string, message: Message, caller: string | undefined): string {
  const { taskId: _t, contextId: _c, ...content } = userMessageJson(message);
  return createHash('sha256')
    .update(agentId)
    .update('\0')
    .update(caller ?? '')
    .update('\0')
    .update(JSON.stringify(content))
    .digest('base64url');
}

/** The oldest creation time of a task a retry sent `now` still joins. */
export function retriesSince(now = Date.now()): string {
  return new Date(now - RETRY_WINDOW_MS).toISOString();
}

export interface Joining {
  tasks: LiveTasks;
  /** The task if this agent owns it, from the store. */
  read: (agentId: string, taskId: string) => Promise<Task | undefined>;
  /** The other replicas, when on a shared database. */
  replicas?: Pick<ReplicaOwnership, 'follow' | 'unfollow'>;
}

/** The task an identical earlier message created: the caller's listener follows it, wherever it runs. */
export async function joinEarlier(
  { tasks, read, replicas }: Joining,
  agentId: string,
  taskId: string,
  listener: ChangeListener | undefined,
): Promise<Task> {
  const live = tasks.get(taskId);
  const task = live?.committed ?? (await read(agentId, taskId));
  // The holder's insert committed before this one gave up, so it is there; unless it was deleted meanwhile.
  if (!task) throw new TaskNotFoundError(`Task ${taskId}, which this message's earlier send created, is gone.`);
  if (!listener) return task;
  const settled = isTerminal(task.status?.state) || isInterrupted(task.status?.state);
  // A caller waiting on a task that already ended or waits for input gets it at once; otherwise it follows it.
  if (settled || (!live && !replicas)) queueMicrotask(() => listener({ events: [], task }));
  else if (live) live.listeners.add(listener);
  else {
    // Followed from the task as it stands when the follow begins: it may have ended, or stopped for input, since
    // it was read, and no later change would tell the caller.
    const now = (await replicas!.follow(taskId, listener))?.task ?? task;
    if (isTerminal(now.status?.state) || isInterrupted(now.status?.state)) {
      replicas!.unfollow(listener);
      queueMicrotask(() => listener({ events: [], task: now }));
    }
    return now;
  }
  return task;
}
