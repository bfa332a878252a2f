/**
 * What the v0.3 HTTP+JSON binding sends: the v0.3 objects the SDK's `LegacyRestTransportHandler` returns
 * (`kind: "task"`, `parts`, `"completed"`) written as the proto JSON of the v0.3 `a2a.proto` (`content`,
 * `TASK_STATE_COMPLETED`, one-of wrappers like `{task}` / `{statusUpdate}`), which v0.3 REST clients parse.
 *
 * Field names are the proto's JSON names: `TaskStatus.update` and the `msg` one-of are written `message`. Part
 * `metadata` and a file part's `name` joined the proto during v0.3 (a2a-python has both since 0.3.5); they are
 * written only when set, and the JS v0.3 client ignores them.
 */
import type { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';

export type LegacyTask = Awaited<ReturnType<LegacyRestTransportHandler['getTask']>>;
export type LegacySendParams = Parameters<LegacyRestTransportHandler['sendMessage']>[0];
export type LegacyMessage = LegacySendParams['message'];
export type LegacyPart = LegacyMessage['parts'][number];
export type LegacyTaskPushConfig = Parameters<LegacyRestTransportHandler['setTaskPushNotificationConfig']>[0];
export type LegacyPushConfig = LegacyTaskPushConfig['pushNotificationConfig'];
export type LegacyStreamEvent =
  Awaited<ReturnType<LegacyRestTransportHandler['sendMessageStream']>> extends AsyncGenerator<
    infer Event,
    void,
    undefined
  >
    ? Event
    : never;
type LegacyArtifact = NonNullable<LegacyTask['artifacts']>[number];
type LegacyStatus = LegacyTask['status'];

/** A proto message as JSON. Absent fields are left `undefined`, which JSON.stringify drops. */
export type ProtoJson = { [field: string]: unknown };

const TASK_STATES = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  // The v0.3 proto spells it with two Ls; v0.3 JSON-RPC with one.
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
} as const satisfies Record<LegacyStatus['state'], string>;

const ROLES = { user: 'ROLE_USER', agent: 'ROLE_AGENT' } as const satisfies Record<LegacyMessage['role'], string>;

export function taskToProto(task: LegacyTask): ProtoJson {
  return {
    id: task.id,
    contextId: task.contextId,
    status: statusToProto(task.status),
    artifacts: task.artifacts?.map(artifactToProto),
    history: task.history?.map(messageToProto),
    metadata: task.metadata,
  };
}

function statusToProto(status: LegacyStatus): ProtoJson {
  return {
    state: TASK_STATES[status.state],
    message: status.message && messageToProto(status.message),
    timestamp: status.timestamp,
  };
}

function messageToProto(message: LegacyMessage): ProtoJson {
  return {
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: ROLES[message.role],
    content: message.parts.map(partToProto),
    metadata: message.metadata,
    extensions: message.extensions,
  };
}

function artifactToProto(artifact: LegacyArtifact): ProtoJson {
  return {
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: artifact.parts.map(partToProto),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  };
}

function partToProto(part: LegacyPart): ProtoJson {
  switch (part.kind) {
    case 'text':
      return { text: part.text, metadata: part.metadata };
    case 'data':
      return { data: { data: part.data }, metadata: part.metadata };
    case 'file': {
      const { file } = part;
      const content = 'bytes' in file ? { fileWithBytes: file.bytes } : { fileWithUri: file.uri };
      return { file: { ...content, mimeType: file.mimeType, name: file.name }, metadata: part.metadata };
    }
  }
}

/** SendMessageResponse: a one-of of `task` and `message`. */
export function sendResultToProto(result: LegacyTask | LegacyMessage): ProtoJson {
  return result.kind === 'task' ? { task: taskToProto(result) } : { message: messageToProto(result) };
}

/** StreamResponse: one SSE event's payload. `final` is v0.3's "the stream ends here". */
export function streamEventToProto(event: LegacyStreamEvent): ProtoJson {
  switch (event.kind) {
    case 'task':
      return { task: taskToProto(event) };
    case 'message':
      return { message: messageToProto(event) };
    case 'status-update':
      return {
        statusUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          status: statusToProto(event.status),
          final: event.final,
          metadata: event.metadata,
        },
      };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: artifactToProto(event.artifact),
          append: event.append,
          lastChunk: event.lastChunk,
          metadata: event.metadata,
        },
      };
  }
}

/** The proto names a config by resource name, `tasks/{taskId}/pushNotificationConfigs/{configId}`. */
export function taskPushConfigToProto(config: LegacyTaskPushConfig): ProtoJson {
  const { pushNotificationConfig: push } = config;
  return {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${push.id ?? ''}`,
    pushNotificationConfig: {
      id: push.id,
      url: push.url,
      token: push.token,
      authentication: push.authentication && {
        schemes: push.authentication.schemes,
        credentials: push.authentication.credentials,
      },
    },
  };
}

/** ListTaskPushNotificationConfigResponse; the handler returns every config at once, so there is no next page. */
export function pushConfigListToProto(configs: LegacyTaskPushConfig[]): ProtoJson {
  return { configs: configs.map(taskPushConfigToProto) };
}
