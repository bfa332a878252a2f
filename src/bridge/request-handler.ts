/**
 * The SDK's `A2ARequestHandler` for one Logos agent, on the task engine. The SDK's transport handlers (JSON-RPC
 * v1.0 and v0.3) and our REST binding all call into this, so every binding shares one behaviour.
 */
import {
  AgentCard,
  TaskState,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { skillPrice } from '../logos/card.ts';
import { CALLER_VERSION_METADATA } from '../logos/caller-version.ts';
import { InvalidPageTokenError, type TaskStore } from '../store/task-store.ts';
import { ChangeStreams, type ChangeStream } from './change-stream.ts';
import { pullEvents, type EventSource } from './event-source.ts';
import type { PushNotificationService } from '../push/push-service.ts';
import { callerOf, ownedBy, requireId } from './call-checks.ts';
import { PushConfigs } from './push-configs.ts';
import { CLIENT_PAYS_EXTENSION } from './client-pays.ts';
import { callAbortSignal } from './call-abort.ts';
import type { DirectoryEntry } from '../logos/directory.ts';
import { unacceptedMediaType } from './input-modes.ts';
import { isInterrupted, isTerminal, toSkillCall } from './mapping.ts';
import type { NewTask } from './engine/task-creation.ts';
import type { TaskChange } from './task-change.ts';
import type { TaskEngine } from './task-engine.ts';
import { snapshotTask, stateName } from './task-events.ts';

export interface RequestHandlerOptions {
  agent: DirectoryEntry;
  /** The agent's card as A2A clients see it: its capabilities are what the SDK's transport handlers enforce. */
  card: AgentCard;
  engine: TaskEngine;
  store: TaskStore;
  /** Push notifications; absent: the config methods answer PushNotificationNotSupported. */
  push?: PushNotificationService;
  /**
   * Aborted when the gateway starts shutting down: blocking calls then return their task as it stands and streams
   * end with its current status, so clients resubscribe (elsewhere, or after the restart) instead of being cut off.
   */
  shutdown?: AbortSignal;
}

const DEFAULT_PAGE_SIZE = 50;

/** The handler for `agent`, from its card as served (v1.0 JSON), on the gateway's shared parts: one per binding face. */
export function agentRequestHandler(
  agent: DirectoryEntry,
  cardJson: unknown,
  shared: Pick<RequestHandlerOptions, 'engine' | 'store' | 'push' | 'shutdown'>,
): LogosAgentRequestHandler {
  return new LogosAgentRequestHandler({
    agent,
    card: AgentCard.fromJSON(cardJson),
    engine: shared.engine,
    store: shared.store,
    ...(shared.shutdown ? { shutdown: shared.shutdown } : {}),
    ...(shared.push ? { push: shared.push } : {}),
  });
}

/** The SDK's request handler, with its two streams also as push-based sources, for the gateway's own bindings. */
export type StreamingRequestHandler = A2ARequestHandler &
  Pick<LogosAgentRequestHandler, 'streamMessage' | 'streamTask'>;

export class LogosAgentRequestHandler implements A2ARequestHandler {
  private readonly card: AgentCard;
  private readonly agent: DirectoryEntry;
  private readonly engine: TaskEngine;
  private readonly store: TaskStore;

  private readonly options: RequestHandlerOptions;
  private readonly streams: ChangeStreams;
  private readonly pushConfigs: PushConfigs;

  constructor(options: RequestHandlerOptions) {
    this.agent = options.agent;
    this.card = options.card;
    this.engine = options.engine;
    this.store = options.store;
    this.options = options;
    this.streams = new ChangeStreams(
      {
        unlisten: (taskId, listener) => this.engine.unlisten(taskId, listener),
        current: (taskId) => this.engine.getTask(this.agent.id, taskId),
      },
      options.shutdown,
    );
    this.pushConfigs = new PushConfigs(options.push, async (taskId, context) =>
      Boolean(await this.visibleTask(taskId, context)),
    );
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(
    _params: GetExtendedAgentCardRequest,
    _context: ServerCallContext,
  ): Promise<AgentCard> {
    throw new UnsupportedOperationError(
      'This agent declares no extended agent card (capabilities.extendedAgentCard is false).',
    );
  }

  /** Not async: a throw still comes as a rejection. */
  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    try {
      const message = this.checkSend(params, context);
      const pushConfig = params.configuration?.taskPushNotificationConfig;
      const historyLength = params.configuration?.historyLength;
      if (params.configuration?.returnImmediately) {
        return this.submit(message, context, { returnOnceRecorded: true, pushConfig }).then((submitted) =>
          withHistoryLength(submitted, historyLength),
        );
      }
      return this.blockingSend(message, context, pushConfig, historyLength);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /**
   * The blocking send: the task's first answer (its direct message, or the task once terminal or interrupted), given
   * once the task is also recorded and its request sent. One promise and one step on the submission, where an async
   * frame would make three more (itself, and its awaits of the submission and of the answer) on every request.
   */
  private blockingSend(
    message: Message,
    context: ServerCallContext,
    pushConfig: TaskPushNotificationConfig | undefined,
    historyLength: number | undefined,
  ): Promise<Message | Task> {
    let resolve!: (answer: Message | Task) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<Message | Task>((ok, fail) => ((resolve = ok), (reject = fail)));
    let submitted: Task | undefined;
    let outcome: Message | Task | undefined;
    let stopWaiting = (): void => undefined;
    const finish = (task: Task, result: Message | Task) => {
      try {
        stopWaiting();
        this.engine.unlisten(task.id, listener);
        resolve('messageId' in result ? result : withHistoryLength(result, historyLength));
      } catch (error) {
        reject(error);
      }
    };
    // The first answer is the one: later ones change nothing, as with a promise resolved twice.
    const answer = (result: Message | Task) => {
      if (outcome) return;
      outcome = result;
      if (submitted) finish(submitted, result);
    };
    let first = true;
    const listener = (change: TaskChange) => {
      const direct = first && !message.taskId ? change.directAnswer : undefined;
      first = false;
      if (direct) answer(direct);
      else if (isTerminal(change.task.status?.state) || isInterrupted(change.task.status?.state)) {
        answer(snapshotTask(change.task));
      }
    };
    this.submit(message, context, { listener, pushConfig }).then((task) => {
      submitted = task;
      try {
        // Answered already (a quick agent's answer is committed with the task): no shutdown to wait for.
        if (outcome) finish(task, outcome);
        else {
          stopWaiting = onAbort(this.options.shutdown, async () =>
            answer(snapshotTask((await this.engine.getTask(this.agent.id, task.id)) ?? task)),
          );
        }
      } catch (error) {
        reject(error);
      }
    }, reject);
    return promise;
  }

  /** SendStreamingMessage for the SDK's transport handlers (v0.3): `streamMessage` as an async generator. */
  sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return pullEvents(this.streamMessage(params, context), callAbortSignal(context));
  }

  /**
   * SendStreamingMessage, pushed: a new task's stream opens with the Task as submitted, as soon as it is on disk
   * (before any payment or agent reply), so the client has its task id and an open stream at once; an agent's
   * direct answer therefore arrives on a stream as the task's final status (blocking SendMessage still returns it
   * as a Message). A follow-up's stream opens with the task as it is once the engine took the input, working again.
   */
  streamMessage(params: SendMessageRequest, context: ServerCallContext): EventSource<StreamResponse> {
    return this.pushed(endsStream, (stream) => this.openMessageStream(params, context, stream));
  }

  /** A stream into each sink, set going by `open` (which reports its own failures to the stream), ending at `ends`. */
  private pushed(
    ends: (task: Task) => boolean,
    open: (stream: ChangeStream) => Promise<void>,
  ): EventSource<StreamResponse> {
    return (sink) => {
      const stream = this.streams.stream(sink, ends);
      void open(stream);
      return stream;
    };
  }

  private async openMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
    stream: ChangeStream,
  ): Promise<void> {
    try {
      this.requireStreaming();
      const message = this.checkSend(params, context);
      const extras = { listener: stream.listener, pushConfig: params.configuration?.taskPushNotificationConfig };
      if (message.taskId) {
        // Known before the submit: one that fails after the engine attached the listener still lets go of it.
        stream.following(message.taskId);
        const task = await this.submit(message, context, extras);
        stream.following(task.id);
        stream.flow({ firstAsTask: true });
        return;
      }
      let onRecorded!: (task: Task) => void;
      const recorded = new Promise<Task>((resolve) => (onRecorded = resolve));
      const submission = this.submit(message, context, { ...extras, onRecorded });
      const submitted = await Promise.race([recorded, submission]);
      stream.following(submitted.id);
      stream.emit({ payload: { $case: 'task', value: submitted } });
      await submission;
      stream.flow();
    } catch (error) {
      stream.fail(error);
    }
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await this.visibleTask(requireId(params.id), context);
    if (!task) throw new TaskNotFoundError(`Task ${params.id} was not found.`);
    return withHistoryLength(task, params.historyLength);
  }

  /** The params' ranges (page size 1 to 100, a known state, a timestamp, historyLength) the edge checked already. */
  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    try {
      const caller = callerOf(context);
      const page = await this.store.list(this.agent.id, {
        ...(caller !== undefined ? { owner: caller } : {}),
        ...(params.contextId ? { contextId: params.contextId } : {}),
        ...(params.status !== TaskState.TASK_STATE_UNSPECIFIED ? { state: params.status } : {}),
        ...(params.statusTimestampAfter ? { statusAfter: new Date(params.statusTimestampAfter).toISOString() } : {}),
        pageSize,
        ...(params.pageToken ? { pageToken: params.pageToken } : {}),
      });
      // Artifacts can be large: a listing carries them only when asked to.
      const tasks = page.tasks.map((task) =>
        withHistoryLength(params.includeArtifacts ? task : { ...task, artifacts: [] }, params.historyLength),
      );
      return { ...page, pageSize, tasks };
    } catch (error) {
      if (error instanceof InvalidPageTokenError) throw new RequestMalformedError(error.message);
      throw error;
    }
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const id = requireId(params.id);
    if (!(await this.visibleTask(id, context))) throw new TaskNotFoundError(`Task ${id} was not found.`);
    if (!(await this.engine.isRunning(this.agent.id, id))) {
      const task = await this.engine.getTask(this.agent.id, id);
      if (!task) throw new TaskNotFoundError(`Task ${id} was not found.`);
      throw new TaskNotCancelableError(`Task ${id} is already ${stateName(task)} and cannot be cancelled.`);
    }
    return this.engine.cancel(this.agent.id, id);
  }

  /** SubscribeToTask for the SDK's transport handlers (v0.3): `streamTask` as an async generator. */
  resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return pullEvents(this.streamTask(params, context), callAbortSignal(context));
  }

  /**
   * SubscribeToTask, pushed: the task as it is, then its changes. Unlike a send's stream, a subscription follows
   * the task to its end: it stays open while the task waits for input, so the subscriber sees the follow-up's work
   * and the terminal state.
   */
  streamTask(params: SubscribeToTaskRequest, context: ServerCallContext): EventSource<StreamResponse> {
    return this.pushed(endsSubscription, (stream) => this.openTaskStream(params, context, stream));
  }

  private async openTaskStream(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
    stream: ChangeStream,
  ): Promise<void> {
    try {
      this.requireStreaming();
      const id = requireId(params.id);
      if (!(await this.visibleTask(id, context))) throw new TaskNotFoundError(`Task ${id} was not found.`);
      // The task may run on another replica: then its changes come from there, through the database.
      const handle = await this.engine.follow(this.agent.id, id, stream.listener);
      if (!handle) {
        const task = await this.engine.getTask(this.agent.id, id);
        if (!task) throw new TaskNotFoundError(`Task ${id} was not found.`);
        throw new UnsupportedOperationError(
          `Task ${id} is already ${stateName(task)}; there is nothing to subscribe to.`,
        );
      }
      stream.following(id);
      stream.emit({ payload: { $case: 'task', value: handle.task } });
      stream.flow();
    } catch (error) {
      stream.fail(error);
    }
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.create(params, context);
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.get(params, context);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.pushConfigs.list(params, context);
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.pushConfigs.delete(params, context);
  }

  // ---------------------------------------------------------------------------------------------------------

  /**
   * What a send must satisfy beyond its shape before anything is created or forwarded: the push config it asks
   * for, and the agent's required extensions. The shape itself (messageId, role, at least one part, each with
   * exactly one content, the binding's limits) every binding checked at the edge already (a2a/message-shape.ts).
   */
  private checkSend(params: SendMessageRequest, context: ServerCallContext): Message {
    const message = params.message;
    // Guaranteed by the edge; this narrows the type.
    if (!message) throw new RequestMalformedError('params.message is required.');
    const pushConfig = params.configuration?.taskPushNotificationConfig;
    if (pushConfig) {
      const problem = this.pushConfigs.service().configProblem(this.pushConfigs.input(pushConfig, '', context));
      if (problem) throw new RequestMalformedError(`configuration.taskPushNotificationConfig: ${problem}.`);
    }
    const unaccepted = unacceptedMediaType(message, this.agent.card.defaultInputModes);
    if (unaccepted !== undefined) {
      throw new ContentTypeNotSupportedError(
        `This agent does not accept parts of media type "${unaccepted}"; it accepts ` +
          `${this.agent.card.defaultInputModes.join(', ')} (its card's defaultInputModes).`,
      );
    }
    const requested = new Set(context.requestedExtensions ?? []);
    for (const extension of this.agent.card.extensions) {
      if (extension.required && !requested.has(extension.uri)) {
        throw new ExtensionSupportRequiredError(
          `This agent requires the extension ${extension.uri}; activate it with the A2A-Extensions header.`,
        );
      }
      if (requested.has(extension.uri)) context.addActivatedExtension(extension.uri);
    }
    return message;
  }

  /**
   * A new task, or a follow-up to one waiting for input. Not async: a new task is the engine's promise as it is (an
   * async frame returning it would add a promise and a thenable job to every send); its callers, async themselves,
   * take a throw here as they take a rejection.
   */
  private submit(
    message: Message,
    context: ServerCallContext,
    extras: {
      listener?: (change: TaskChange) => void;
      onRecorded?: (task: Task) => void;
      /** A webhook the send asked for (configuration.taskPushNotificationConfig), already checked by checkSend. */
      pushConfig?: TaskPushNotificationConfig | undefined;
      /** A new task: answer once it is recorded, its payment going on behind (returnImmediately). */
      returnOnceRecorded?: boolean;
    },
  ): Promise<Task> {
    message = markedForAgent(message, context);
    const caller = callerOf(context);
    const clientPays = this.clientPays(context);
    const { listener, pushConfig } = extras;
    if (!message.taskId) {
      const push = pushConfig ? this.pushConfigs.service() : undefined;
      const call = toSkillCall(message, this.agent.card);
      const input: NewTask = {
        agentId: this.agent.id,
        agentAddress: this.agent.address,
        message,
        call,
        price: skillPrice(this.agent.card, call.skill),
      };
      // What only some sends have is set only on them (a conditional spread costs an object even when empty).
      if (clientPays) input.clientPays = clientPays;
      // The webhook is attached before the request leaves, so it cannot miss the agent's first reply; it hears of
      // the task itself once the task is on disk.
      if (push && pushConfig)
        input.onCreated = (task) => push.createConfig(this.pushConfigs.input(pushConfig, task.id, context));
      const { onRecorded } = extras;
      if (push || onRecorded) {
        input.onRecorded = (task) => {
          // Only this send's own webhook can know of the task yet: without one, there is no one to tell.
          if (push) void push.notify(task, [{ payload: { $case: 'task', value: task } }]);
          onRecorded?.(task);
        };
      }
      const identity = this.agent.card['x-lez-identity'];
      if (identity) input.payee = identity.account_id;
      if (caller) input.caller = caller;
      if (listener) input.listener = listener;
      if (extras.returnOnceRecorded) input.returnOnceRecorded = true;
      return this.engine.createTask(input);
    }
    return this.followUp(message, message.taskId, context, listener, pushConfig);
  }

  /** A caller's message on an existing task, with the webhook it asks for (already checked by checkSend), if any. */
  private async followUp(
    message: Message,
    taskId: string,
    context: ServerCallContext,
    listener: ((change: TaskChange) => void) | undefined,
    pushConfig: TaskPushNotificationConfig | undefined,
  ): Promise<Task> {
    const push = pushConfig ? this.pushConfigs.service() : undefined;
    // Ownership is this handler's to check; what the task makes of the message, the engine decides.
    if (!(await this.visibleTask(taskId, context))) throw new TaskNotFoundError(`Task ${taskId} was not found.`);
    return this.engine.followUp(this.agent.id, taskId, message, {
      params: () => toSkillCall(message, this.agent.card).params,
      ...(listener ? { listener } : {}),
      ...(push && pushConfig
        ? { attach: () => push.createConfig(this.pushConfigs.input(pushConfig, taskId, context)) }
        : {}),
    });
  }

  /** The task, if it exists and this caller may see it (with API keys, only the key that created a task sees it). */
  private async visibleTask(id: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = await this.engine.getTask(this.agent.id, id);
    return task && ownedBy(task, callerOf(context)) ? task : undefined;
  }

  /** Whether the caller activated the client-pays extension (and this agent can be paid that way). */
  private clientPays(context: ServerCallContext): boolean {
    if (!(context.requestedExtensions ?? []).includes(CLIENT_PAYS_EXTENSION) || !this.agent.card['x-lez-identity'])
      return false;
    context.addActivatedExtension(CLIENT_PAYS_EXTENSION);
    return true;
  }

  private requireStreaming(): void {
    if (!this.agent.card.capabilities.streaming) {
      throw new UnsupportedOperationError('This agent does not support streaming (capabilities.streaming is false).');
    }
  }
}

/** A v0.3 caller's message, marked so for the agent (caller-version.ts): agents may answer the generations apart. */
function markedForAgent(message: Message, context: ServerCallContext): Message {
  if (context.requestedVersion !== '0.3') return message;
  return { ...message, metadata: { ...message.metadata, [CALLER_VERSION_METADATA]: '0.3' } };
}

/** Runs `action` once when `signal` aborts; the returned function stops listening (signals outlive calls). */
function onAbort(signal: AbortSignal | undefined, action: () => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    queueMicrotask(action);
    return () => undefined;
  }
  signal.addEventListener('abort', action, { once: true });
  return () => signal.removeEventListener('abort', action);
}

/** Streams close at a terminal or interrupted state. */
function endsStream(task: Task): boolean {
  const state = task.status?.state;
  return isTerminal(state) || isInterrupted(state);
}

/** Subscriptions close at a terminal state only: they follow a task through its waits for input. */
function endsSubscription(task: Task): boolean {
  return isTerminal(task.status?.state);
}

/** historyLength: absent = all, 0 = none, N = the last N messages. */
export function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  if (historyLength < 0) throw new RequestMalformedError('historyLength must not be negative.');
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
