/**
 * An agent's request handler as the gRPC binding hands it to the SDK's gRPC services (v1.0 and v0.3), which call it
 * with requests already decoded from protobuf into the SDK's v1.0 types:
 *
 * - The edge check of the HTTP bindings (message-shape.ts) runs on each request as ProtoJSON, so a gRPC call meets
 *   the same limits with the same messages (INVALID_ARGUMENT naming the field). Protobuf settles the types; the
 *   check still finds what protobuf cannot: a message without id, role or parts, a part without content, a context
 *   id over the envelope's limit, a page size out of range.
 * - The SDK's services answer an error that is not an A2A error with UNKNOWN and the error's own message, which may
 *   describe internals. Here it is logged and answered INTERNAL with INTERNAL_ERROR_MESSAGE, as on the other bindings.
 */
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  type AgentCard,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { GRPC_STATUS_CODE } from '@a2a-js/sdk/errors/grpc';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { classifyThrown, INTERNAL_ERROR_MESSAGE, type ErrorLog } from './errors.ts';
import { paramsProblem } from './message-shape.ts';

/**
 * An internal error as the SDK's gRPC services answer it: they take the status of an A2A error marked as a gRPC one
 * (`transport`, `status`); no A2A error type is named, so no ErrorInfo goes with it.
 */
class GrpcInternalError extends A2AError {
  readonly transport = 'grpc';
  readonly status = GRPC_STATUS_CODE.INTERNAL;
}

/**
 * v0.3's protobuf has no absent `history_length` (v1.0's is optional): its 0 is what the v0.3 client sends when the
 * caller named none, so it means "all", not "none".
 */
const isV03 = (context: ServerCallContext) => context.requestedVersion === '0.3';

function withV03HistoryLength(params: SendMessageRequest, context: ServerCallContext): SendMessageRequest {
  if (!isV03(context) || params.configuration?.historyLength !== 0) return params;
  return { ...params, configuration: { ...params.configuration, historyLength: undefined } };
}

type EventStream = AsyncGenerator<StreamResponse, void, undefined>;

/** What can encode a request as ProtoJSON: every request type of the SDK. */
interface ToJson<T> {
  toJSON(message: T): unknown;
}

export class GrpcRequestHandler implements A2ARequestHandler {
  readonly #handler: A2ARequestHandler;
  readonly #log: ErrorLog;

  constructor(handler: A2ARequestHandler, log: ErrorLog) {
    this.#handler = handler;
    this.#log = log;
  }

  getAgentCard(): Promise<AgentCard> {
    return this.#handler.getAgentCard();
  }

  getAuthenticatedExtendedAgentCard(
    params: GetExtendedAgentCardRequest,
    context: ServerCallContext,
  ): Promise<AgentCard> {
    return this.#call('GetExtendedAgentCard', GetExtendedAgentCardRequest, params, () =>
      this.#handler.getAuthenticatedExtendedAgentCard(params, context),
    );
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const request = withV03HistoryLength(params, context);
    return this.#call('SendMessage', SendMessageRequest, request, () => this.#handler.sendMessage(request, context));
  }

  sendMessageStream(params: SendMessageRequest, context: ServerCallContext): EventStream {
    const request = withV03HistoryLength(params, context);
    this.#check('SendStreamingMessage', SendMessageRequest, request);
    return this.#stream('SendStreamingMessage', this.#handler.sendMessageStream(request, context));
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const request = isV03(context) && params.historyLength === 0 ? { ...params, historyLength: undefined } : params;
    return this.#call('GetTask', GetTaskRequest, request, () => this.#handler.getTask(request, context));
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#call('CancelTask', CancelTaskRequest, params, () => this.#handler.cancelTask(params, context));
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.#call('ListTasks', ListTasksRequest, params, () => this.#handler.listTasks(params, context));
  }

  resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): EventStream {
    this.#check('SubscribeToTask', SubscribeToTaskRequest, params);
    return this.#stream('SubscribeToTask', this.#handler.resubscribe(params, context));
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.#call('CreateTaskPushNotificationConfig', TaskPushNotificationConfig, params, () =>
      this.#handler.createTaskPushNotificationConfig(params, context),
    );
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.#call('GetTaskPushNotificationConfig', GetTaskPushNotificationConfigRequest, params, () =>
      this.#handler.getTaskPushNotificationConfig(params, context),
    );
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.#call('ListTaskPushNotificationConfigs', ListTaskPushNotificationConfigsRequest, params, () =>
      this.#handler.listTaskPushNotificationConfigs(params, context),
    );
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.#call('DeleteTaskPushNotificationConfig', DeleteTaskPushNotificationConfigRequest, params, () =>
      this.#handler.deleteTaskPushNotificationConfig(params, context),
    );
  }

  /** Thrown before the SDK's service starts a stream, this answers the call with INVALID_ARGUMENT. */
  #check<T>(method: string, codec: ToJson<T>, params: T): void {
    const problem = paramsProblem('1.0', method, codec.toJSON(params));
    if (problem !== undefined) throw new RequestMalformedError(problem);
  }

  async #call<T, R>(method: string, codec: ToJson<T>, params: T, call: () => Promise<R>): Promise<R> {
    this.#check(method, codec, params);
    try {
      return await call();
    } catch (thrown) {
      throw this.#answerable(thrown, method);
    }
  }

  async *#stream(method: string, events: EventStream): EventStream {
    try {
      yield* events;
    } catch (thrown) {
      throw this.#answerable(thrown, method);
    }
  }

  #answerable(thrown: unknown, method: string): A2AError {
    const error = classifyThrown(thrown, this.#log, `gRPC ${method}`);
    return error.kind === 'a2a' ? error.error : new GrpcInternalError(INTERNAL_ERROR_MESSAGE);
  }
}
