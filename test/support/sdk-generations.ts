/**
 * The two generations of the official A2A JavaScript client behind one small interface, so a test can run the same
 * steps through both and compare results in one shape: @a2a-js/sdk 1.3.0 (A2A v1.0: ts-proto objects, numeric enums,
 * `payload.$case`) and @a2a-js/sdk 0.3.14 (A2A v0.3: `kind`-tagged JSON, kebab-case states), installed as
 * `a2a-sdk-v03`. Each session records the HTTP requests its client makes, so a test can check which endpoint a call
 * went to.
 */
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  roleToJSON,
  taskStateToJSON,
  type Message as V1Message,
  type StreamResponse as V1StreamResponse,
  type Task as V1Task,
  type TaskPushNotificationConfig as V1PushConfig,
} from '@a2a-js/sdk';
import {
  ClientFactory as V1ClientFactory,
  DefaultAgentCardResolver as V1CardResolver,
  JsonRpcTransportFactory as V1JsonRpcTransportFactory,
  RestTransportFactory as V1RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory as V1GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type {
  Message as V03Message,
  Part as V03Part,
  Task as V03Task,
  TaskArtifactUpdateEvent as V03ArtifactUpdate,
  TaskPushNotificationConfig as V03PushConfig,
  TaskStatusUpdateEvent as V03StatusUpdate,
} from 'a2a-sdk-v03';
import {
  ClientFactory as V03ClientFactory,
  DefaultAgentCardResolver as V03CardResolver,
  JsonRpcTransportFactory as V03JsonRpcTransportFactory,
  RestTransportFactory as V03RestTransportFactory,
} from 'a2a-sdk-v03/client';
import { GrpcTransportFactory as V03GrpcTransportFactory } from 'a2a-sdk-v03/client/grpc';
import { status as grpcStatus } from '@grpc/grpc-js';

/** GRPC: only on a gateway that serves it (grpcPort); its calls are not HTTP requests, so none is recorded. */
export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** Task states in the v0.3 spelling ('input-required'); v1.0's TASK_STATE_INPUT_REQUIRED maps to it. */
export type State =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'unknown';

export interface TaskView {
  id: string;
  contextId: string;
  state: State;
  /** The text of the status message, if any. */
  statusText: string;
  artifacts: { id: string; text: string }[];
  /** The text of each history message, oldest first. */
  history: string[];
}

export type Reply = { kind: 'task'; task: TaskView } | { kind: 'message'; role: string; text: string };

export type EventView =
  | { kind: 'task'; task: TaskView }
  | { kind: 'message'; text: string }
  | { kind: 'status'; taskId: string; state: State; final?: boolean }
  | { kind: 'artifact'; taskId: string; artifactId: string; text: string };

export interface PushView {
  taskId: string;
  id: string;
  url: string;
  token: string;
}

export interface CardView {
  name: string;
  streaming: boolean;
  pushNotifications: boolean;
  /** Where the card says the chosen binding is served. */
  endpoint: string;
}

/** What a failed call means, read from each generation's own error classes and codes. */
export type Failure = 'task-not-found' | 'not-cancelable' | 'invalid-params' | `other: ${string}`;

export interface SendOptions {
  messageId?: string;
  taskId?: string;
  contextId?: string;
  /** Answer at once with the submitted task (v1.0 returnImmediately, v0.3 blocking: false). */
  returnImmediately?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The A2A-Version header, null when the client sent none. */
  version: string | null;
}

export interface Session {
  /** Every request the client made, the card fetch first. */
  readonly requests: RecordedRequest[];
  send(text: string, options?: SendOptions): Promise<Reply>;
  stream(text: string, options?: SendOptions): AsyncGenerator<EventView>;
  getTask(id: string, historyLength?: number): Promise<TaskView>;
  /** Only v1.0 has ListTasks. */
  listTasks?: (contextId: string) => Promise<TaskView[]>;
  cancel(id: string): Promise<TaskView>;
  subscribe(id: string): AsyncGenerator<EventView>;
  /** Without an id, the config names none: the server gives it one. */
  createPushConfig(taskId: string, id: string | undefined, url: string, token: string): Promise<PushView>;
  /** Without an id, the call names no config (v1.0: the empty id; v0.3: no pushNotificationConfigId). */
  getPushConfig(taskId: string, id?: string): Promise<PushView>;
  listPushConfigs(taskId: string): Promise<PushView[]>;
  deletePushConfig(taskId: string, id: string): Promise<void>;
  card(): Promise<CardView>;
  failure(error: unknown): Failure;
}

export interface Generation {
  name: string;
  /** A client from `createFromUrl(baseUrl)`, the binding forced with the factory's preferredTransports. */
  connect(baseUrl: string, binding: Binding): Promise<Session>;
}

let counter = 0;
const freshId = () => `gen-${++counter}-${Date.now()}`;

/** A fetch that records each request before passing it on. */
function recordingFetch(requests: RecordedRequest[]): typeof fetch {
  return (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    const headers = new Headers(init?.headers ?? request?.headers);
    requests.push({
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      version: headers.get('A2A-Version'),
    });
    return fetch(input, init);
  };
}

// ---------------------------------------------------------------------------------------------------------------
// @a2a-js/sdk 1.3.0 (A2A v1.0)

const v1State = (state: number | undefined): State =>
  (taskStateToJSON(state ?? 0)
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-') || 'unknown') as State;

const v1Text = (parts: V1Message['parts'] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

function v1Task(task: V1Task): TaskView {
  return {
    id: task.id,
    contextId: task.contextId,
    state: v1State(task.status?.state),
    statusText: v1Text(task.status?.message?.parts),
    artifacts: task.artifacts.map((artifact) => ({ id: artifact.artifactId, text: v1Text(artifact.parts) })),
    history: task.history.map((message) => v1Text(message.parts)),
  };
}

function v1Event(event: V1StreamResponse): EventView {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return { kind: 'task', task: v1Task(payload.value) };
    case 'message':
      return { kind: 'message', text: v1Text(payload.value.parts) };
    case 'statusUpdate':
      return { kind: 'status', taskId: payload.value.taskId, state: v1State(payload.value.status?.state) };
    case 'artifactUpdate':
      return {
        kind: 'artifact',
        taskId: payload.value.taskId,
        artifactId: payload.value.artifact?.artifactId ?? '',
        text: v1Text(payload.value.artifact?.parts),
      };
    default:
      throw new Error(`an empty StreamResponse: ${JSON.stringify(event)}`);
  }
}

const v1Push = (config: V1PushConfig): PushView => ({
  taskId: config.taskId,
  id: config.id,
  url: config.url,
  token: config.token,
});

function v1Request(text: string, options: SendOptions) {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: options.messageId ?? freshId(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(options.taskId ? { taskId: options.taskId } : {}),
      ...(options.contextId ? { contextId: options.contextId } : {}),
    },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

async function* mapEvents<T>(
  events: AsyncGenerator<T, void, undefined>,
  map: (event: T) => EventView,
): AsyncGenerator<EventView> {
  for await (const event of events) yield map(event);
}

export const v1Generation: Generation = {
  name: '@a2a-js/sdk 1.3.0',
  async connect(baseUrl, binding) {
    const requests: RecordedRequest[] = [];
    const fetchImpl = recordingFetch(requests);
    const client = await new V1ClientFactory({
      transports: [
        new V1JsonRpcTransportFactory({ fetchImpl }),
        new V1RestTransportFactory({ fetchImpl }),
        new V1GrpcTransportFactory(),
      ],
      preferredTransports: [binding],
      cardResolver: new V1CardResolver({ fetchImpl }),
    }).createFromUrl(baseUrl);
    return {
      requests,
      async send(text, options = {}) {
        const result = await client.sendMessage(v1Request(text, options));
        if ('role' in result)
          return {
            kind: 'message',
            role: roleToJSON(result.role)
              .replace(/^ROLE_/, '')
              .toLowerCase(),
            text: v1Text(result.parts),
          };
        return { kind: 'task', task: v1Task(result) };
      },
      stream: (text, options = {}) => mapEvents(client.sendMessageStream(v1Request(text, options)), v1Event),
      getTask: async (id, historyLength) =>
        v1Task(
          await client.getTask(
            GetTaskRequest.fromJSON({ id, ...(historyLength === undefined ? {} : { historyLength }) }),
          ),
        ),
      listTasks: async (contextId) =>
        (await client.listTasks(ListTasksRequest.fromJSON({ contextId }))).tasks.map(v1Task),
      cancel: async (id) => v1Task(await client.cancelTask(CancelTaskRequest.fromJSON({ id }))),
      subscribe: (id) => mapEvents(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id })), v1Event),
      createPushConfig: async (taskId, id, url, token) =>
        v1Push(
          await client.createTaskPushNotificationConfig({
            tenant: '',
            id: id ?? '',
            taskId,
            url,
            token,
            authentication: undefined,
          }),
        ),
      getPushConfig: async (taskId, id) =>
        v1Push(await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: id ?? '' })),
      listPushConfigs: async (taskId) =>
        (await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs.map(
          v1Push,
        ),
      deletePushConfig: (taskId, id) => client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id }),
      async card() {
        const card = await client.getAgentCard();
        return {
          name: card.name,
          streaming: card.capabilities?.streaming === true,
          pushNotifications: card.capabilities?.pushNotifications === true,
          endpoint: card.supportedInterfaces.find((i) => i.protocolBinding === binding)?.url ?? '',
        };
      },
      failure(error) {
        const name = (error as Error).name;
        if (name === 'TaskNotFoundError') return 'task-not-found';
        if (name === 'TaskNotCancelableError') return 'not-cancelable';
        if (name === 'RequestMalformedError') return 'invalid-params';
        return `other: ${name}: ${(error as Error).message}`;
      },
    };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// @a2a-js/sdk 0.3.14 (A2A v0.3)

const v03Text = (parts: V03Part[] | undefined) =>
  (parts ?? []).map((part) => (part.kind === 'text' ? part.text : '')).join('');

function v03Task(task: V03Task): TaskView {
  return {
    id: task.id,
    contextId: task.contextId,
    state: task.status.state as State,
    statusText: v03Text(task.status.message?.parts),
    artifacts: (task.artifacts ?? []).map((artifact) => ({ id: artifact.artifactId, text: v03Text(artifact.parts) })),
    history: (task.history ?? []).map((message) => v03Text(message.parts)),
  };
}

type V03StreamEvent = V03Message | V03Task | V03StatusUpdate | V03ArtifactUpdate;

function v03Event(event: V03StreamEvent): EventView {
  switch (event.kind) {
    case 'task':
      return { kind: 'task', task: v03Task(event) };
    case 'message':
      return { kind: 'message', text: v03Text(event.parts) };
    case 'status-update':
      return { kind: 'status', taskId: event.taskId, state: event.status.state as State, final: event.final };
    case 'artifact-update':
      return {
        kind: 'artifact',
        taskId: event.taskId,
        artifactId: event.artifact.artifactId,
        text: v03Text(event.artifact.parts),
      };
    default:
      throw new Error(`an unknown stream event: ${JSON.stringify(event)}`);
  }
}

const v03Push = (config: V03PushConfig): PushView => ({
  taskId: config.taskId,
  id: config.pushNotificationConfig.id ?? '',
  url: config.pushNotificationConfig.url,
  token: config.pushNotificationConfig.token ?? '',
});

function v03Params(text: string, options: SendOptions) {
  const message: V03Message = {
    kind: 'message',
    messageId: options.messageId ?? freshId(),
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(options.taskId ? { taskId: options.taskId } : {}),
    ...(options.contextId ? { contextId: options.contextId } : {}),
  };
  return { message, ...(options.returnImmediately ? { configuration: { blocking: false } } : {}) };
}

/** The code of a v0.3 error the SDK has no class for: JSON-RPC keeps the response, REST only the message. */
function v03Code(error: unknown): number | undefined {
  const response = (error as { errorResponse?: { error?: { code?: number } } }).errorResponse;
  if (typeof response?.error?.code === 'number') return response.error.code;
  const match = /\(Code: (-?\d+)\)/.exec((error as Error).message);
  return match ? Number(match[1]) : undefined;
}

export const v03Generation: Generation = {
  name: '@a2a-js/sdk 0.3.14',
  async connect(baseUrl, binding) {
    const requests: RecordedRequest[] = [];
    const fetchImpl = recordingFetch(requests);
    const client = await new V03ClientFactory({
      transports: [
        new V03JsonRpcTransportFactory({ fetchImpl }),
        new V03RestTransportFactory({ fetchImpl }),
        new V03GrpcTransportFactory(),
      ],
      preferredTransports: [binding],
      cardResolver: new V03CardResolver({ fetchImpl }),
    }).createFromUrl(baseUrl);
    return {
      requests,
      async send(text, options = {}) {
        const result = await client.sendMessage(v03Params(text, options));
        if (result.kind === 'message') return { kind: 'message', role: result.role, text: v03Text(result.parts) };
        return { kind: 'task', task: v03Task(result) };
      },
      stream: (text, options = {}) => mapEvents(client.sendMessageStream(v03Params(text, options)), v03Event),
      getTask: async (id, historyLength) =>
        v03Task(await client.getTask({ id, ...(historyLength === undefined ? {} : { historyLength }) })),
      cancel: async (id) => v03Task(await client.cancelTask({ id })),
      subscribe: (id) => mapEvents(client.resubscribeTask({ id }), v03Event),
      createPushConfig: async (taskId, id, url, token) =>
        v03Push(
          await client.setTaskPushNotificationConfig({
            taskId,
            pushNotificationConfig: { ...(id === undefined ? {} : { id }), url, token },
          }),
        ),
      // The SDK types the parameter as TaskIdParams, but passes GetTaskPushNotificationConfigParams through.
      getPushConfig: async (taskId, id) =>
        v03Push(
          await client.getTaskPushNotificationConfig({
            id: taskId,
            ...(id === undefined ? {} : { pushNotificationConfigId: id }),
          } as { id: string }),
        ),
      listPushConfigs: async (taskId) => (await client.listTaskPushNotificationConfig({ id: taskId })).map(v03Push),
      deletePushConfig: (taskId, id) =>
        client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: id }),
      async card() {
        const card = await client.getAgentCard();
        const endpoint =
          (card.preferredTransport ?? 'JSONRPC') === binding
            ? card.url
            : (card.additionalInterfaces ?? []).find((i) => i.transport === binding)?.url;
        return {
          name: card.name,
          streaming: card.capabilities.streaming === true,
          pushNotifications: card.capabilities.pushNotifications === true,
          endpoint: endpoint ?? '',
        };
      },
      failure(error) {
        const name = (error as Error).name;
        if (name === 'TaskNotFoundError') return 'task-not-found';
        if (name === 'TaskNotCancelableError') return 'not-cancelable';
        if (v03Code(error) === -32602) return 'invalid-params';
        // Its gRPC transport has no class for INVALID_ARGUMENT: the status rides on a plain Error's cause.
        if ((error as { cause?: { code?: unknown } }).cause?.code === grpcStatus.INVALID_ARGUMENT)
          return 'invalid-params';
        return `other: ${name}: ${(error as Error).message}`;
      },
    };
  },
};
