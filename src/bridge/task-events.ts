/**
 * The A2A events a task change produces, and the small pure helpers around them: what the engine emits is built
 * here, in one place.
 */
import { Artifact, Role, TaskState, TaskStatus, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { isTerminal } from './mapping.ts';
import type { TaskChange } from './task-change.ts';

export function statusEvent(task: Task): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined },
    },
  };
}

export function artifactEvent(task: Task, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse {
  return {
    payload: {
      $case: 'artifactUpdate',
      value: { taskId: task.id, contextId: task.contextId, artifact, append, lastChunk, metadata: undefined },
    },
  };
}

export function replaceArtifact(artifacts: Artifact[], artifact: Artifact): Artifact[] {
  const index = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  if (index === -1) return [...artifacts, artifact];
  const copy = artifacts.slice();
  copy[index] = artifact;
  return copy;
}

/**
 * What a listener that last heard the task as `heard` missed, to stand at `now`: each artifact new or changed, whole
 * (not appended), then the status if it moved; undefined when nothing did. For a listener handed from one source of
 * changes to another (a task whose lease another replica took), where those in between cannot be replayed one by one.
 */
export function catchUp(heard: Task, now: Task): TaskChange | undefined {
  const json = (artifact: Artifact | undefined) => artifact && JSON.stringify(Artifact.toJSON(artifact));
  const ended = isTerminal(now.status?.state);
  const events = now.artifacts
    .filter((artifact) => json(artifact) !== json(heard.artifacts.find((a) => a.artifactId === artifact.artifactId)))
    .map((artifact) => artifactEvent(now, artifact, false, ended));
  const status = (task: Task) => task.status && JSON.stringify(TaskStatus.toJSON(task.status));
  if (status(now) !== status(heard)) events.push(statusEvent(now));
  return events.length === 0 ? undefined : { events, task: snapshotTask(now) };
}

/** A copy of the task that later changes do not affect: what listeners and readers are handed. */
export function snapshotTask(task: Task): Task {
  return { ...task, artifacts: task.artifacts.slice(), history: task.history.slice() };
}

const STATE_NAMES: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
};

/** The task's state as error messages name it (the v0.3 wire spelling, which people know). */
export function stateName(task: Task): string {
  return STATE_NAMES[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? 'in an unknown state';
}

/** The task's final status message as the agent's direct answer (an A2A Message, bound to no task). */
export function directAnswer(task: Task): Message | undefined {
  const message = task.status?.message;
  return message && { ...message, taskId: '', role: Role.ROLE_AGENT };
}
