/**
 * Carries the Logos tasks of a published agent to its HTTP agent with the official A2A client, as a skill handler of
 * the agent runtime: one Logos task is one task of the HTTP agent. Streamed when the agent's card says it streams
 * (each status and artifact update goes back on the Logos task's status topic, in order, through the runtime), sent
 * blocking otherwise; an interrupted task asks the Logos caller for the follow-up and sends it on the same HTTP task;
 * a Logos cancel cancels the HTTP task; a stream cut short is resubscribed. An agent that cannot be reached fails the
 * Logos task at once, saying so. With `tasks`, the HTTP task of each Logos task is kept until it ends, and a run
 * started after a restart follows it again rather than sending the request anew.
 */
import {
  CancelTaskRequest,
  GetTaskRequest,
  SubscribeToTaskRequest,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { SkillRejected, type FollowUp, type SkillContext, type SkillHandler } from '../logos/agent-runtime.ts';
import type { WireMessage } from '../logos/envelope.ts';
import type { PublishedTaskStore } from '../store/published-task-store.ts';
import { MemoryRateLimitStore } from '../a2a/rate-limit.ts';
import { describeFetchError } from './origin-card.ts';
import { messageFor, textOf, wireArtifact, wireMessage, type LogosInput } from './wire-mapping.ts';

export interface HttpRelayOptions {
  client: Client;
  /** Where the agent lives, for the failures the Logos caller reads. */
  originUrl: string;
  /** Stream (the card says the agent can), else send blocking and poll. */
  streaming: boolean;
  /** Sent with every call (the agent's API key or bearer token): HTTP headers, or gRPC metadata. */
  headers?: Record<string, string>;
  /** Tasks carried at once; more are refused, so that the HTTP agent is not swamped. */
  maxConcurrent: number;
  /** Tasks started per window of `windowMs` (a fixed window, as the gateway's own rate limits); more are refused. */
  rateLimit?: { max: number; windowMs: number };
  /** How often a task the HTTP agent answered before it was done is asked about (blocking agents). */
  pollMs?: number;
  /** Where each task's HTTP task is kept, so that a restarted publication picks it up (publish.ts: `resumable`). */
  tasks?: PublishedTaskStore;
}

const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);
const FINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  ...INTERRUPTED,
]);
/** How long a task taken ahead keeps its place for its request: a payment on chain takes a few blocks. */
const RESERVATION_MS = 120_000;
/** Resubscriptions to a stream that keeps being cut before the task comes to rest. */
const MAX_RESUBSCRIBES = 3;

/** Where one turn of the conversation came to rest: the agent's direct answer, or its task, final or interrupted. */
type TurnEnd = { kind: 'message'; message: Message } | { kind: 'task'; task: Task };

export class HttpRelay {
  private running = 0;
  /** Tasks started in the current window, when `rateLimit` is set. */
  private readonly started = new MemoryRateLimitStore();
  /** Tasks taken ahead of their request (admitAhead), each with the timer that gives its place up. */
  private readonly reserved = new Map<string, NodeJS.Timeout>();
  /** The HTTP agent's context for each Logos context, so that the tasks of one conversation stay in one. */
  private readonly contexts = new Map<string, string>();
  private readonly options: HttpRelayOptions;
  /** The publication is stopping: its tasks end here, but the HTTP agent's go on, to be picked up at the next start. */
  private stopping = false;

  constructor(options: HttpRelayOptions) {
    this.options = options;
  }

  /** Called before the agent stops: with `tasks`, stopping then cancels nothing at the HTTP agent and forgets no task. */
  stop(): void {
    this.stopping = true;
    for (const expiry of this.reserved.values()) clearTimeout(expiry);
    this.reserved.clear();
  }

  /**
   * Takes a task ahead of its request: a gateway that runs this publication asks before it pays for a priced task
   * (gateway.ts `admitAhead`), so that a task over the limits is refused with nothing paid, rather than paid, refused
   * and refunded (on a chain with fees, the fees would be lost). Undefined: the task has its place, held for
   * `RESERVATION_MS` for its request to arrive; else the reason it is refused.
   */
  async admitAhead(taskId: string): Promise<string | undefined> {
    const refusal = await this.takePlace();
    if (refusal !== undefined) return refusal;
    const expiry = setTimeout(() => {
      // The request never came (the payment failed, say): the place goes to another task.
      if (this.reserved.delete(taskId)) this.running--;
    }, RESERVATION_MS);
    expiry.unref();
    this.reserved.set(taskId, expiry);
    return undefined;
  }

  /** The skill handler of every skill of the published agent. */
  readonly handler: SkillHandler = async (ctx) => {
    const expiry = this.reserved.get(ctx.taskId);
    if (expiry) {
      // Taken ahead (admitAhead): counted and holding its place already.
      clearTimeout(expiry);
      this.reserved.delete(ctx.taskId);
    } else {
      const refusal = await this.takePlace();
      if (refusal !== undefined) throw new SkillRejected(refusal);
    }
    try {
      return await this.carry(ctx);
    } finally {
      this.running--;
    }
  };

  /** Counts a task against the rate limit and takes a place among those carried at once; or says why not. */
  private async takePlace(): Promise<string | undefined> {
    const limit = this.options.rateLimit;
    if (limit) {
      const now = Date.now();
      const windowStart = now - (now % limit.windowMs);
      if ((await this.started.hit('tasks', windowStart)) > limit.max) {
        const retryAfter = Math.max(1, Math.ceil((windowStart + limit.windowMs - now) / 1000));
        return `The HTTP agent is rate limited: it takes ${limit.max} tasks every ${limit.windowMs / 1000} s. Try again in ${retryAfter} s.`;
      }
    }
    // Checked after the wait above, so that no task slips in between the check and the count.
    if (this.running >= this.options.maxConcurrent) {
      return `The HTTP agent is busy: ${this.options.maxConcurrent} tasks are already being carried to it. Try again later.`;
    }
    this.running++;
    return undefined;
  }

  private async carry(ctx: SkillContext): Promise<unknown> {
    const tasks = this.options.tasks;
    // Kept by a run before a restart: the HTTP agent's task is followed again, not sent anew.
    const kept = tasks?.get(ctx.taskId);
    const task: { id?: string } = kept ? { id: kept.originTaskId } : {};
    if (kept) this.contexts.set(ctx.contextId, kept.originContextId);
    let keptId = kept?.originTaskId;
    const onTask = (id: string, contextId: string) => {
      task.id = id;
      if (!tasks || keptId === id) return;
      keptId = id;
      tasks.put({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        skill: ctx.skill,
        params: ctx.params,
        message: ctx.message,
        originTaskId: id,
        originContextId: contextId,
      });
    };
    // A Logos cancel cancels the HTTP task (the runtime has already answered the caller); so does the published
    // agent's stop, which ends its tasks, unless they are kept for the next start: the HTTP agent is not left
    // working for nobody.
    const cancel = () => {
      if (task.id && !(this.stopping && tasks))
        void this.options.client
          .cancelTask(CancelTaskRequest.fromJSON({ id: task.id }), this.call())
          .catch(() => undefined);
    };
    ctx.signal.addEventListener('abort', cancel, { once: true });
    try {
      let input: LogosInput = ctx;
      let rejoining = kept !== undefined;
      for (;;) {
        const contextId = this.contexts.get(ctx.contextId);
        const message = messageFor(input, {
          ...(task.id ? { taskId: task.id } : {}),
          ...(contextId ? { contextId } : {}),
        });
        const end = rejoining ? await this.rejoin(ctx, task.id!) : await this.turn(ctx, message, onTask);
        rejoining = false;
        if (end.kind === 'message') {
          if (end.message.contextId) this.contexts.set(ctx.contextId, end.message.contextId);
          // A direct answer to a new task stays one; after a task's turns, it ends the task.
          return ctx.complete({ message: wireMessage(end.message) ?? '', asMessage: task.id === undefined });
        }
        task.id = end.task.id;
        if (end.task.contextId) this.contexts.set(ctx.contextId, end.task.contextId);
        const state = end.task.status?.state;
        const said = end.task.status?.message;
        if (state === TaskState.TASK_STATE_COMPLETED) {
          const artifacts = end.task.artifacts.map((artifact) => wireArtifact(artifact)).filter((a) => a !== undefined);
          const status = wireMessage(said);
          return ctx.complete({ artifacts, ...(status ? { message: status } : {}) });
        }
        if (state !== undefined && INTERRUPTED.has(state)) {
          input = await this.followUp(ctx, state, said);
          continue;
        }
        const text = textOf(said);
        if (state === TaskState.TASK_STATE_REJECTED)
          throw new SkillRejected(text || 'The HTTP agent rejected the task.');
        if (state === TaskState.TASK_STATE_CANCELED) throw new Error(text || 'The HTTP agent cancelled the task.');
        throw new Error(text || 'The HTTP agent failed the task.');
      }
    } finally {
      ctx.signal.removeEventListener('abort', cancel);
      if (!this.stopping) tasks?.delete(ctx.taskId);
    }
  }

  /** Asks the Logos caller what the HTTP agent asked, and resolves with the answer. */
  private followUp(ctx: SkillContext, state: TaskState, said: Message | undefined): Promise<FollowUp> {
    const auth = state === TaskState.TASK_STATE_AUTH_REQUIRED;
    const prompt: WireMessage =
      wireMessage(said) ?? (auth ? 'The HTTP agent asks you to authenticate.' : 'The HTTP agent needs more input.');
    return auth ? ctx.requestAuth(prompt) : ctx.requestInput(prompt);
  }

  /** Sends one message and follows the task until it is done or interrupted. */
  private async turn(
    ctx: SkillContext,
    message: Message,
    onTask: (id: string, contextId: string) => void,
  ): Promise<TurnEnd> {
    const request = { tenant: '', message, configuration: undefined, metadata: undefined };
    if (!this.options.streaming) {
      const answer = await this.reach(() => this.options.client.sendMessage(request, this.call(ctx.signal)));
      if ('role' in answer) return { kind: 'message', message: answer };
      onTask(answer.id, answer.contextId);
      return { kind: 'task', task: await this.settle(ctx, answer) };
    }
    const continuing = message.taskId !== '';
    const seen: { task?: Task } = {};
    const stream = this.options.client.sendMessageStream(request, this.call(ctx.signal));
    const end = await this.follow(ctx, stream, seen, onTask, continuing).catch((error: unknown) => {
      // Cut short once the task is known (a proxy, a restart of the agent): picked up again below.
      if (!seen.task || ctx.signal.aborted) throw this.failure(error);
      return undefined;
    });
    if (end) return end;
    for (let attempt = 0; attempt < MAX_RESUBSCRIBES && seen.task; attempt++) {
      const request = SubscribeToTaskRequest.fromJSON({ id: seen.task.id });
      const resumed = await this.follow(
        ctx,
        this.options.client.resubscribeTask(request, this.call(ctx.signal)),
        seen,
        onTask,
        continuing,
      ).catch(() => undefined);
      if (resumed) return resumed;
    }
    if (!seen.task) throw new Error(`The HTTP agent at ${this.options.originUrl} ended its stream without a task.`);
    return { kind: 'task', task: await this.settle(ctx, seen.task) };
  }

  /** Follows again the HTTP agent's task of a task kept across a restart, until it is done or interrupted. */
  private async rejoin(ctx: SkillContext, id: string): Promise<TurnEnd> {
    if (this.options.streaming) {
      const events = this.options.client.resubscribeTask(
        SubscribeToTaskRequest.fromJSON({ id }),
        this.call(ctx.signal),
      );
      // A task that ended meanwhile cannot be subscribed to: it is asked about below.
      const end = await this.follow(ctx, events, {}, () => undefined, false).catch(() => undefined);
      if (end) return end;
    }
    const task = await this.reach(() =>
      this.options.client.getTask(GetTaskRequest.fromJSON({ id }), this.call(ctx.signal)),
    );
    return { kind: 'task', task: await this.settle(ctx, task) };
  }

  /** Applies a stream's events, passing each update on; undefined when the stream ends before the task is at rest. */
  private async follow(
    ctx: SkillContext,
    events: AsyncGenerator<StreamResponse, void, undefined>,
    seen: { task?: Task },
    onTask: (id: string, contextId: string) => void,
    continuing: boolean,
  ): Promise<TurnEnd | undefined> {
    for await (const event of events) {
      const payload = event.payload;
      switch (payload?.$case) {
        case 'message':
          return { kind: 'message', message: payload.value };
        case 'task':
          seen.task = payload.value;
          onTask(payload.value.id, payload.value.contextId);
          break;
        case 'statusUpdate': {
          const status = payload.value.status;
          seen.task ??= emptyTask(payload.value.taskId, payload.value.contextId);
          onTask(seen.task.id, seen.task.contextId);
          seen.task.status = status;
          if (status?.state === TaskState.TASK_STATE_WORKING) {
            const said = wireMessage(status.message);
            await ctx.progress(...(said ? [said] : []));
          }
          break;
        }
        case 'artifactUpdate': {
          const { artifact, append, lastChunk } = payload.value;
          seen.task ??= emptyTask(payload.value.taskId, payload.value.contextId);
          onTask(seen.task.id, seen.task.contextId);
          if (artifact) seen.task.artifacts = merged(seen.task.artifacts, artifact, append);
          const chunk = wireArtifact(artifact, { append, lastChunk });
          if (chunk) await ctx.artifact(chunk);
          break;
        }
      }
      const state = seen.task?.status?.state;
      // A follow-up's stream opens with the task as it was, still interrupted: that is where it was, not its answer.
      const stale = continuing && payload?.$case === 'task' && state !== undefined && INTERRUPTED.has(state);
      if (seen.task && state !== undefined && FINAL.has(state) && !stale) return { kind: 'task', task: seen.task };
    }
    return undefined;
  }

  /** A task not yet at rest, asked about until it is (blocking sends an agent answered early, cut streams). */
  private async settle(ctx: SkillContext, task: Task): Promise<Task> {
    let current = task;
    while (!FINAL.has(current.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 1_000));
      ctx.signal.throwIfAborted();
      current = await this.reach(() =>
        this.options.client.getTask(GetTaskRequest.fromJSON({ id: task.id }), this.call(ctx.signal)),
      );
    }
    return current;
  }

  /** A call whose failure becomes one the Logos caller can read. */
  private async reach<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.failure(error);
    }
  }

  /** What a failed call tells the Logos caller: the agent unreachable, or what it answered. */
  private failure(error: unknown): Error {
    if (error instanceof SkillRejected) return error;
    const where = `The HTTP agent at ${this.options.originUrl}`;
    if (unreachable(error)) {
      return new Error(`${where} could not be reached: ${describeFetchError(error)}`, { cause: error });
    }
    return new Error(`${where} answered with an error: ${(error as Error).message ?? String(error)}`, {
      cause: error,
    });
  }

  private call(signal?: AbortSignal) {
    return {
      ...(signal ? { signal } : {}),
      ...(this.options.headers ? { serviceParameters: this.options.headers } : {}),
    };
  }
}

/** fetch's own failure (no connection, no answer), or gRPC's UNAVAILABLE, rather than an answer the agent gave. */
function unreachable(error: unknown): boolean {
  if (error instanceof TypeError && error.message === 'fetch failed') return true;
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } }).code ??
    (error as { cause?: { code?: unknown } }).cause?.code;
  return code === GRPC_UNAVAILABLE;
}

/** gRPC's status code UNAVAILABLE: the channel could not connect. */
const GRPC_UNAVAILABLE = 14;

function emptyTask(id: string, contextId: string): Task {
  return { id, contextId, status: undefined, artifacts: [], history: [], metadata: undefined };
}

/** The task's artifacts with an update applied: a chunk appended to its artifact, or the artifact replaced. */
function merged(artifacts: Task['artifacts'], incoming: Task['artifacts'][number], append: boolean): Task['artifacts'] {
  const index = artifacts.findIndex((artifact) => artifact.artifactId === incoming.artifactId);
  if (index < 0) return [...artifacts, incoming];
  const next = [...artifacts];
  next[index] = append ? { ...artifacts[index]!, parts: [...artifacts[index]!.parts, ...incoming.parts] } : incoming;
  return next;
}
