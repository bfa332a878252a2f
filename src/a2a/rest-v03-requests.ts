/**
 * What the v0.3 HTTP+JSON binding accepts: request bodies in the proto JSON of the v0.3 `a2a.proto`, checked with
 * zod at the edge (a wrong type is a client error that names the field, never an internal one) and turned into the
 * v0.3 objects the SDK's `LegacyRestTransportHandler` takes.
 *
 * As proto JSON allows, a field may come by its JSON name or its proto name (`messageId` or `message_id`; the
 * message of a SendMessageRequest as `message` or `request`), `null` means "not set" and unknown fields are ignored.
 */
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_SET } from '@a2a-js/sdk/compat/v0_3';
import { z } from 'zod';
import { isPlainObject } from '../json-object.ts';
import { paramsProblem, sendParamsProblem } from './message-shape.ts';
import type {
  LegacyMessage,
  LegacyPart,
  LegacyPushConfig,
  LegacySendParams,
  LegacyTaskPushConfig,
} from './rest-v03-codec.ts';

/**
 * The send body: SendMessageRequest. Once decoded it must also pass the edge check every binding shares (the Logos
 * envelope's limits on ids, contextId and skill), so nothing accepted here is dropped later without an answer.
 */
export function parseSendMessageRequest(body: unknown): LegacySendParams {
  const params = parse(sendMessageRequest, body);
  const problem = sendParamsProblem(params, '0.3');
  if (problem) throw new RequestMalformedError(`Invalid request body: ${problem}.`);
  return params;
}

/**
 * The body of a new push config for the task in the path. The JS v0.3 client posts a TaskPushNotificationConfig,
 * the Python one the whole CreateTaskPushNotificationConfigRequest (`{parent, configId, config}`): both are read.
 */
export function parseTaskPushConfig(body: unknown, taskId: string): LegacyTaskPushConfig {
  const request =
    isPlainObject(body) && 'config' in body
      ? parse(createPushConfigRequest, body)
      : { config: parse(taskPushConfig, body) };
  const push = request.config.pushNotificationConfig;
  const id = push.id ?? request.configId;
  const config = { taskId, pushNotificationConfig: { ...push, ...(id ? { id } : {}) } };
  // The edge check JSON-RPC's tasks/pushNotificationConfig/set gets (its id's bounds, no NUL in a field).
  const problem = paramsProblem('0.3', LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_SET, config);
  if (problem) throw new RequestMalformedError(`Invalid request body: ${problem}.`);
  return config;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new RequestMalformedError(`Invalid request body: ${result.error.issues.map(describeIssue).join('; ')}.`);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`),
    '',
  );
  return `${path || 'body'}: ${issue.message}`;
}

/** A proto message: its fields by JSON or proto name, null fields dropped. */
function protoMessage<Shape extends z.ZodRawShape>(
  shape: Shape,
  otherNames: Record<string, keyof Shape & string> = {},
) {
  const fieldOf = new Map<string, string>(Object.keys(shape).map((field) => [snakeCase(field), field]));
  for (const [name, field] of Object.entries(otherNames)) fieldOf.set(name, field);
  return z.preprocess((value) => {
    if (!isPlainObject(value)) return value;
    const fields = new Map<string, unknown>();
    for (const [name, given] of Object.entries(value)) {
      const field = fieldOf.get(name) ?? name;
      if (given !== null && !fields.has(field)) fields.set(field, given);
    }
    // fromEntries defines each field as an own property, even one named __proto__.
    return Object.fromEntries(fields);
  }, z.object(shape));
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Only when set: proto JSON's defaults ("" and the like) and absent fields alike stay out of the v0.3 object. */
const when = <Key extends string, Value>(key: Key, value: Value | undefined | '') =>
  (value === undefined || value === '' ? {} : { [key]: value }) as Partial<Record<Key, Value>>;

const struct = z.record(z.string(), z.unknown());
const strings = z.array(z.string());
/** int32 comes as a number or, as proto JSON allows, a decimal string. */
const count = z.preprocess(
  (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
  z.number().int().min(0).max(2_147_483_647),
);

const file = protoMessage({
  fileWithUri: z.string().optional(),
  fileWithBytes: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64')
    .optional(),
  mimeType: z.string().optional(),
  name: z.string().optional(),
}).transform((file, ctx) => {
  const about = { ...when('mimeType', file.mimeType), ...when('name', file.name) };
  if (file.fileWithBytes !== undefined && file.fileWithUri === undefined)
    return { bytes: file.fileWithBytes, ...about };
  if (file.fileWithUri !== undefined && file.fileWithBytes === undefined) return { uri: file.fileWithUri, ...about };
  ctx.addIssue({ code: 'custom', message: 'a file needs exactly one of fileWithUri or fileWithBytes' });
  return z.NEVER;
});

const part = protoMessage({
  text: z.string().optional(),
  file: file.optional(),
  data: protoMessage({ data: struct }).optional(),
  metadata: struct.optional(),
}).transform(({ text, file, data, metadata }, ctx): LegacyPart => {
  const about = when('metadata', metadata);
  if ([text, file, data].filter((content) => content !== undefined).length === 1) {
    if (text !== undefined) return { kind: 'text', text, ...about };
    if (file !== undefined) return { kind: 'file', file, ...about };
    if (data !== undefined) return { kind: 'data', data: data.data, ...about };
  }
  ctx.addIssue({ code: 'custom', message: 'a part needs exactly one of text, file or data' });
  return z.NEVER;
});

const role = z
  .union([z.literal('ROLE_USER'), z.literal(1), z.literal('ROLE_AGENT'), z.literal(2)], {
    error: 'must be ROLE_USER or ROLE_AGENT',
  })
  .transform((role) => (role === 'ROLE_USER' || role === 1 ? 'user' : 'agent'));

const message = protoMessage({
  messageId: z.string().min(1, 'must not be empty'),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role,
  content: z.array(part).min(1, 'must hold at least one part'),
  metadata: struct.optional(),
  extensions: strings.optional(),
}).transform((message): LegacyMessage => ({
  kind: 'message',
  messageId: message.messageId,
  role: message.role,
  parts: message.content,
  ...when('contextId', message.contextId),
  ...when('taskId', message.taskId),
  ...when('metadata', message.metadata),
  ...when('extensions', message.extensions),
}));

const pushConfig = protoMessage({
  id: z.string().optional(),
  url: z.url(),
  token: z.string().optional(),
  authentication: protoMessage({ schemes: strings.optional(), credentials: z.string().optional() }).optional(),
}).transform((config): LegacyPushConfig => ({
  url: config.url,
  ...when('id', config.id),
  ...when('token', config.token),
  ...when(
    'authentication',
    config.authentication && {
      schemes: config.authentication.schemes ?? [],
      ...when('credentials', config.authentication.credentials),
    },
  ),
}));

const configuration = protoMessage({
  acceptedOutputModes: strings.optional(),
  pushNotification: pushConfig.optional(),
  historyLength: count.optional(),
  blocking: z.boolean().optional(),
}).transform((configuration) => ({
  // proto3 has no "unset" for a bool: an absent `blocking` is false, so the call returns at once.
  blocking: configuration.blocking ?? false,
  ...when('acceptedOutputModes', configuration.acceptedOutputModes),
  ...when('pushNotificationConfig', configuration.pushNotification),
  // 0 is the proto default, and means the whole history.
  ...when('historyLength', configuration.historyLength || undefined),
}));

const sendMessageRequest = protoMessage(
  { message, configuration: configuration.optional(), metadata: struct.optional() },
  { request: 'message' },
).transform((request): LegacySendParams => ({
  message: request.message,
  ...when('configuration', request.configuration),
  ...when('metadata', request.metadata),
}));

const taskPushConfig = protoMessage({ name: z.string().optional(), pushNotificationConfig: pushConfig });
const createPushConfigRequest = protoMessage({
  parent: z.string().optional(),
  configId: z.string().optional(),
  config: taskPushConfig,
});
