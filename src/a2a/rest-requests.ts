/**
 * What the v1.0 HTTP+JSON binding accepts: each route's params, gathered from its path, query and body into the
 * params of the JSON-RPC method it stands for, checked with the same edge schema (message-shape.ts), then decoded by
 * the SDK's codecs. So a call means the same, and is refused alike, on both bindings.
 *
 * A refusal is thrown as RequestMalformedError (400), inside the binding's call like the request handler's own.
 */
import { GetTaskRequest, ListTasksRequest, SendMessageRequest, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { isPlainObject } from '../json-object.ts';
import { paramsProblem } from './message-shape.ts';

export type Query = Readonly<Record<string, string>>;

/** The body of message:send and message:stream. */
export function sendMessageRequest(body: unknown): SendMessageRequest {
  return SendMessageRequest.fromJSON(checked('SendMessage', body, 'Invalid request body'));
}

/** GET /tasks/{id}?historyLength=… */
export function getTaskRequest(taskId: string, query: Query): GetTaskRequest {
  return GetTaskRequest.fromJSON(
    checked('GetTask', { id: taskId, ...typed(query, { historyLength: 'integer' }) }, 'Invalid request'),
  );
}

/** GET /tasks?contextId=…&status=…&pageSize=… */
export function listTasksRequest(query: Query): ListTasksRequest {
  const params = typed(query, {
    tenant: 'string',
    contextId: 'string',
    status: 'string',
    pageSize: 'integer',
    pageToken: 'string',
    historyLength: 'integer',
    statusTimestampAfter: 'string',
    includeArtifacts: 'boolean',
  });
  return ListTasksRequest.fromJSON(checked('ListTasks', params, 'Invalid request'));
}

/** The body of POST /tasks/{id}/pushNotificationConfigs: a TaskPushNotificationConfig, its task the path's. */
export function pushConfigRequest(taskId: string, body: unknown): TaskPushNotificationConfig {
  if (!isPlainObject(body))
    throw new RequestMalformedError(
      'Invalid push notification config: the push notification config must be a JSON object with a url.',
    );
  return TaskPushNotificationConfig.fromJSON(
    checked('CreateTaskPushNotificationConfig', { ...body, taskId }, 'Invalid push notification config'),
  );
}

function checked(method: string, params: unknown, what: string): unknown {
  const problem = paramsProblem('1.0', method, params);
  if (problem) throw new RequestMalformedError(`${what}: ${problem}.`);
  return params;
}

type QueryType = 'string' | 'integer' | 'boolean';

/**
 * The query parameters named in `fields` (by their JSON name, or their proto name such as `page_size`), as the JSON
 * values the edge schema checks. An empty value counts as absent; one that is not of its type stays a string, so
 * the schema names the parameter and what it must be.
 */
function typed(query: Query, fields: Record<string, QueryType>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(fields)) {
    const value = query[field] ?? query[field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
    if (value === undefined || value === '') continue;
    params[field] =
      type === 'integer' && /^-?\d+$/.test(value)
        ? Number(value)
        : type === 'boolean' && (value === 'true' || value === 'false')
          ? value === 'true'
          : value;
  }
  return params;
}
