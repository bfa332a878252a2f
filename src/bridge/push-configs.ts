/**
 * The push-notification config methods of an agent's request handler: a task's webhooks set, read, listed and
 * deleted through the push service, for callers that may see the task. Only the service's type is imported: the
 * Worker's bundle carries none of push delivery (undici, DNS checks).
 */
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { PushNotificationService } from '../push/push-service.ts';
import type { PushConfigRecord } from '../store/push-store.ts';
import { callerOf, requireId } from './call-checks.ts';

/** Whether the task exists and the call's caller may see it. */
export type Visible = (taskId: string, context: ServerCallContext) => Promise<boolean>;

export class PushConfigs {
  private readonly push: PushNotificationService | undefined;
  private readonly visible: Visible;

  /** `push` absent: every method answers PushNotificationNotSupported. */
  constructor(push: PushNotificationService | undefined, visible: Visible) {
    this.push = push;
    this.visible = visible;
  }

  /** The push service, or PushNotificationNotSupported where there is none. */
  service(): PushNotificationService {
    if (!this.push) throw new PushNotificationNotSupportedError('Push notifications are not offered here.');
    return this.push;
  }

  /** A config as the SDK hands it over (ProtoJSON defaults: "" for absent strings), for the push service. */
  input(config: TaskPushNotificationConfig, taskId: string, context: ServerCallContext) {
    const caller = callerOf(context);
    const authentication = config.authentication?.scheme
      ? {
          scheme: config.authentication.scheme,
          ...(config.authentication.credentials ? { credentials: config.authentication.credentials } : {}),
        }
      : undefined;
    const id = config.id || legacyDefaultConfigId(taskId, context);
    return {
      taskId,
      ...(id ? { id } : {}),
      url: config.url,
      ...(config.token ? { token: config.token } : {}),
      ...(authentication ? { authentication } : {}),
      // The webhook gets bodies in the shape of the protocol version it was registered over.
      protocolVersion: context.requestedVersion === '0.3' ? ('0.3' as const) : ('1.0' as const),
      ...(caller !== undefined ? { owner: caller } : {}),
    };
  }

  async create(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    const push = this.service();
    const taskId = await this.visibleTaskId(params.taskId, context);
    const input = this.input(params, taskId, context);
    // Checked here rather than caught from createConfig: this module then needs only the service's type.
    const problem = push.configProblem(input);
    if (problem) throw new RequestMalformedError(`Push notification config: ${problem}.`);
    return wireConfig(await push.createConfig(input));
  }

  async get(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    const push = this.service();
    const taskId = await this.visibleTaskId(params.taskId, context);
    const id = params.id || legacyDefaultConfigId(taskId, context) || '';
    const config = await push.getConfig(taskId, id);
    if (!config) throw new TaskNotFoundError(`Task ${taskId} has no push notification config "${id}".`);
    return wireConfig(config);
  }

  async list(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const push = this.service();
    const taskId = await this.visibleTaskId(params.taskId, context);
    // A task has a handful of webhooks at most: one page holds them all.
    return { configs: (await push.listConfigs(taskId)).map(wireConfig), nextPageToken: '' };
  }

  async delete(params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    const push = this.service();
    const taskId = await this.visibleTaskId(params.taskId, context);
    // Idempotent, as the spec asks: a config that is already gone is deleted (a client retrying a delete whose answer
    // it lost must not see an error).
    await push.deleteConfig(taskId, params.id);
  }

  private async visibleTaskId(id: string, context: ServerCallContext): Promise<string> {
    const taskId = requireId(id);
    if (!(await this.visible(taskId, context))) throw new TaskNotFoundError(`Task ${taskId} was not found.`);
    return taskId;
  }
}

/**
 * The id of a v0.3 caller's config when it names none: the task's, as both official v0.3 SDKs give it (on set, and
 * on a get without `pushNotificationConfigId`), so that a v0.3 client's `get({id})` finds the config it set. v1.0
 * makes a get name its config (the SDK assigns a set without one a fresh UUID), so v1.0 calls get none.
 */
function legacyDefaultConfigId(taskId: string, context: ServerCallContext): string | undefined {
  return context.requestedVersion === '0.3' && taskId ? taskId : undefined;
}

function wireConfig(record: PushConfigRecord): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: record.id,
    taskId: record.taskId,
    url: record.url,
    token: record.token ?? '',
    authentication: record.authentication
      ? { scheme: record.authentication.scheme, credentials: record.authentication.credentials ?? '' }
      : undefined,
  };
}
