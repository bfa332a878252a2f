/**
 * The one edge check of request params, for both HTTP bindings and both protocol versions, before the SDK's codecs
 * see them. Those codecs coerce instead of refusing (`messageId: true` becomes "true", `text: {}` becomes
 * "[object Object]", a number as `raw` throws a TypeError that surfaces as an internal error), so every field they
 * read is type-checked here, with the JSON names they accept (ProtoJSON's snake_case aliases included).
 *
 * The binding's limits are checked here too, with the envelope schema's own constants: whatever a caller sends
 * that would end up in an envelope outside those limits (a `contextId` over 256 characters, say) would be dropped by
 * the agent and never answered. Refused here, it gets -32602 (HTTP+JSON: 400) naming the field and the limit. The
 * size of the whole envelope is checked later, by the task engine, which alone knows the encoded size (§8.1).
 */
import {
  LEGACY_METHOD_GET_AUTHENTICATED_EXTENDED_CARD,
  LEGACY_METHOD_MESSAGE_SEND,
  LEGACY_METHOD_MESSAGE_STREAM,
  LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_DELETE,
  LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_GET,
  LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_LIST,
  LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_SET,
  LEGACY_METHOD_TASKS_CANCEL,
  LEGACY_METHOD_TASKS_GET,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
} from '@a2a-js/sdk/compat/v0_3';
import { TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import { z } from 'zod';
import { isPlainObject } from '../json-object.ts';
import { BASE64_PATTERN, MAX_CONTEXT_ID_CHARS, MAX_ID_CHARS, MAX_SKILL_CHARS } from '../logos/envelope.ts';
import type { ProtocolVersion } from './protocol-version.ts';

// ----------------------------------------------------------------------------------------------------------------
// Building blocks. Optional fields take `null` as absent, as the SDK's codecs read them.

const JsonObject = z.record(z.string(), z.unknown());
const Strings = z.array(z.string());
const NonNegativeInt = z.int().min(0);
const Base64 = z.string().regex(BASE64_PATTERN, { error: 'must be base64' });
/**
 * An identifier or a setting the gateway keeps in a column of its own (ids, a push config's URL and credentials): text
 * without U+0000, which PostgreSQL's text refuses and SQLite's cuts off. Free text (a message's parts) may hold it.
 */
const Key = z.string().regex(/^[^\0]*$/, { error: 'must not contain the NUL character (U+0000)' });

/** A field the SDK reads under its camelCase name, else under its ProtoJSON snake_case one: both are checked. */
function aliased<C extends string, N extends string, S extends z.ZodType>(
  camel: C,
  snake: N,
  schema: S,
): Record<C | N, S> {
  return { [camel]: schema, [snake]: schema } as Record<C | N, S>;
}

/**
 * The skill a message calls must fit the envelope's `skill`: the first data part `{skill, …}` names it, else
 * `metadata.skill` (docs/binding.md §7.1). A name outside the limit could never be forwarded.
 */
function checkSkill(
  parts: readonly unknown[],
  dataOf: (part: unknown) => unknown,
  metadata: unknown,
  ctx: z.RefinementCtx,
): void {
  const index = parts.findIndex((part) => {
    const data = dataOf(part);
    return isPlainObject(data) && typeof data.skill === 'string';
  });
  let skill: string;
  let path: (string | number)[];
  if (index !== -1) {
    skill = (dataOf(parts[index]) as { skill: string }).skill;
    path = ['parts', index, 'data', 'skill'];
  } else if (isPlainObject(metadata) && typeof metadata.skill === 'string') {
    skill = metadata.skill;
    path = ['metadata', 'skill'];
  } else {
    return;
  }
  if (skill.length === 0) ctx.addIssue({ code: 'custom', path, message: 'must not be empty' });
  else if (skill.length > MAX_SKILL_CHARS) {
    ctx.addIssue({ code: 'custom', path, message: `at most ${MAX_SKILL_CHARS} characters (got ${skill.length})` });
  }
}

// ----------------------------------------------------------------------------------------------------------------
// A2A v1.0 (ProtoJSON of the a2a.proto messages).

const V1_CONTENT = ['text', 'raw', 'url', 'data'] as const;

const V1Part = z
  .object({
    text: z.string().nullish(),
    raw: Base64.nullish(),
    url: z.string().min(1).nullish(),
    data: z.unknown().optional(),
    filename: z.string().nullish(),
    ...aliased('mediaType', 'media_type', z.string().nullish()),
    metadata: JsonObject.nullish(),
  })
  .superRefine((part, ctx) => {
    const present = V1_CONTENT.filter((field) => part[field] !== undefined && part[field] !== null);
    if (present.length === 1) return;
    ctx.addIssue({
      code: 'custom',
      message:
        present.length === 0
          ? 'needs one of text, raw, url or data'
          : `exactly one of text, raw, url or data (got ${present.join(', ')})`,
    });
  });

const V1Message = z
  .object({
    ...aliased('messageId', 'message_id', Key.min(1).nullish()),
    ...aliased('contextId', 'context_id', Key.max(MAX_CONTEXT_ID_CHARS).nullish()),
    ...aliased('taskId', 'task_id', Key.max(MAX_ID_CHARS).nullish()),
    role: z.literal(['ROLE_USER', 'ROLE_AGENT', 1, 2]),
    parts: z.array(V1Part).min(1),
    metadata: JsonObject.nullish(),
    extensions: Strings.nullish(),
    ...aliased('referenceTaskIds', 'reference_task_ids', Strings.nullish()),
  })
  .superRefine((message, ctx) => {
    if (message.messageId == null && message.message_id == null) {
      ctx.addIssue({ code: 'custom', path: ['messageId'], message: 'is required' });
    }
    checkSkill(message.parts, (part) => (part as { data?: unknown }).data, message.metadata, ctx);
  });

const Tenant = { tenant: z.string().nullish() };
const TaskIdParam = Key.min(1);
/** A webhook config's id, as a client names it: kept in the key of the config's row and of its deliveries'. */
const PushConfigId = Key.max(256);

/**
 * A TaskPushNotificationConfig: the params of CreateTaskPushNotificationConfig, the body of its HTTP+JSON route,
 * and a send's `configuration.taskPushNotificationConfig`. The URL's policy and the lengths of the credentials are
 * the push service's to check, alike on every binding.
 */
const V1PushConfig = z.object({
  ...Tenant,
  ...aliased('taskId', 'task_id', Key.nullish()),
  id: PushConfigId.nullish(),
  url: Key.min(1),
  token: Key.nullish(),
  authentication: z.object({ scheme: Key.min(1), credentials: Key.nullish() }).nullish(),
});

/** The most tasks one ListTasks page holds (absent: the request handler's default). */
const MAX_PAGE_SIZE = 100;

const TaskStateFilter = z
  .union([z.string(), z.int()])
  .refine((state) => taskStateFromJSON(state) !== TaskState.UNRECOGNIZED, {
    error: 'must be a task state such as TASK_STATE_WORKING or TASK_STATE_COMPLETED',
  });

const Timestamp = z
  .string()
  .refine((text) => !Number.isNaN(Date.parse(text)), { error: 'must be an ISO 8601 timestamp' });

const V1Configuration = z.object({
  ...aliased('acceptedOutputModes', 'accepted_output_modes', Strings.nullish()),
  ...aliased('taskPushNotificationConfig', 'task_push_notification_config', V1PushConfig.nullish()),
  ...aliased('historyLength', 'history_length', NonNegativeInt.nullish()),
  ...aliased('returnImmediately', 'return_immediately', z.boolean().nullish()),
});

const V1Send = z.object({
  ...Tenant,
  message: V1Message,
  configuration: V1Configuration.nullish(),
  metadata: JsonObject.nullish(),
});

/** In the order a caller who named no method is shown them. */
const V1_PARAMS: Record<string, z.ZodType> = {
  SendMessage: V1Send,
  SendStreamingMessage: V1Send,
  GetTask: z.object({
    ...Tenant,
    id: TaskIdParam,
    ...aliased('historyLength', 'history_length', NonNegativeInt.nullish()),
  }),
  ListTasks: z.object({
    ...Tenant,
    ...aliased('contextId', 'context_id', Key.nullish()),
    // A state name, or its ProtoJSON number.
    status: TaskStateFilter.nullish(),
    ...aliased('pageSize', 'page_size', z.int().min(1).max(MAX_PAGE_SIZE).nullish()),
    ...aliased('pageToken', 'page_token', Key.nullish()),
    ...aliased('historyLength', 'history_length', NonNegativeInt.nullish()),
    ...aliased('statusTimestampAfter', 'status_timestamp_after', Timestamp.nullish()),
    ...aliased('includeArtifacts', 'include_artifacts', z.boolean().nullish()),
  }),
  CancelTask: z.object({ ...Tenant, id: TaskIdParam, metadata: JsonObject.nullish() }),
  SubscribeToTask: z.object({ ...Tenant, id: TaskIdParam }),
  CreateTaskPushNotificationConfig: V1PushConfig,
  GetTaskPushNotificationConfig: z.object({
    ...Tenant,
    ...aliased('taskId', 'task_id', Key.nullish()),
    id: Key.nullish(),
  }),
  ListTaskPushNotificationConfigs: z.object({
    ...Tenant,
    ...aliased('taskId', 'task_id', Key.nullish()),
    ...aliased('pageSize', 'page_size', z.int().nullish()),
    ...aliased('pageToken', 'page_token', Key.nullish()),
  }),
  DeleteTaskPushNotificationConfig: z.object({
    ...Tenant,
    ...aliased('taskId', 'task_id', Key.nullish()),
    id: Key.nullish(),
  }),
  GetExtendedAgentCard: z.object({ ...Tenant }).nullish(),
};

// ----------------------------------------------------------------------------------------------------------------
// A2A v0.3 (its JSON schema: `kind` discriminators, lowercase roles, file parts).

const V03File = z
  .object({
    // The SDK tests `"bytes" in file`: a null there would reach Buffer.from, so neither takes null.
    bytes: Base64.optional(),
    uri: z.string().min(1).optional(),
    mimeType: z.string().nullish(),
    name: z.string().nullish(),
  })
  .superRefine((file, ctx) => {
    const present = (['bytes', 'uri'] as const).filter((field) => file[field] !== undefined);
    if (present.length === 1) return;
    ctx.addIssue({
      code: 'custom',
      message: present.length === 0 ? 'needs bytes or uri' : 'exactly one of bytes or uri (got both)',
    });
  });

const V03Part = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), metadata: JsonObject.nullish() }),
  z.object({ kind: z.literal('file'), file: V03File, metadata: JsonObject.nullish() }),
  z.object({ kind: z.literal('data'), data: JsonObject, metadata: JsonObject.nullish() }),
]);

/** The value a v0.3 data part carries once the SDK has unwrapped its compat form (`{value}` + a metadata flag). */
function v03DataOf(part: unknown): unknown {
  const { kind, data, metadata } = part as { kind?: unknown; data?: unknown; metadata?: unknown };
  if (kind !== 'data') return undefined;
  const wrapped =
    isPlainObject(metadata) && metadata.data_part_compat === true && isPlainObject(data) && 'value' in data;
  return wrapped ? (data as { value: unknown }).value : data;
}

const V03Message = z
  .object({
    kind: z.literal('message').optional(),
    messageId: Key.min(1),
    role: z.literal(['user', 'agent']),
    parts: z.array(V03Part).min(1),
    contextId: Key.max(MAX_CONTEXT_ID_CHARS).nullish(),
    taskId: Key.max(MAX_ID_CHARS).nullish(),
    metadata: JsonObject.nullish(),
    extensions: Strings.nullish(),
    referenceTaskIds: Strings.nullish(),
  })
  .superRefine((message, ctx) => checkSkill(message.parts, v03DataOf, message.metadata, ctx));

/** A v0.3 PushNotificationConfig: the params of tasks/pushNotificationConfig/set, and a send's configuration. */
const V03PushConfig = z.object({
  url: Key,
  id: PushConfigId.nullish(),
  token: Key.nullish(),
  authentication: z.object({ schemes: z.array(Key), credentials: Key.nullish() }).nullish(),
});

const V03Send = z.object({
  message: V03Message,
  configuration: z
    .object({
      acceptedOutputModes: Strings.nullish(),
      // Read as `!blocking`: a null would mean "return immediately", so only a boolean is taken.
      blocking: z.boolean().optional(),
      historyLength: NonNegativeInt.nullish(),
      pushNotificationConfig: V03PushConfig.nullish(),
    })
    .nullish(),
  metadata: JsonObject.nullish(),
});

const V03TaskId = z.object({ id: TaskIdParam, metadata: JsonObject.nullish() });

const V03_PARAMS: Record<string, z.ZodType> = {
  [LEGACY_METHOD_MESSAGE_SEND]: V03Send,
  [LEGACY_METHOD_MESSAGE_STREAM]: V03Send,
  [LEGACY_METHOD_TASKS_GET]: z.object({
    id: TaskIdParam,
    historyLength: NonNegativeInt.nullish(),
    metadata: JsonObject.nullish(),
  }),
  [LEGACY_METHOD_TASKS_CANCEL]: V03TaskId,
  [LEGACY_METHOD_TASKS_RESUBSCRIBE]: V03TaskId,
  [LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_SET]: z.object({
    taskId: Key,
    pushNotificationConfig: V03PushConfig,
  }),
  [LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_GET]: z.object({
    id: TaskIdParam,
    pushNotificationConfigId: Key.nullish(),
    metadata: JsonObject.nullish(),
  }),
  [LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_LIST]: V03TaskId,
  [LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_DELETE]: z.object({
    id: TaskIdParam,
    pushNotificationConfigId: Key,
    metadata: JsonObject.nullish(),
  }),
  [LEGACY_METHOD_GET_AUTHENTICATED_EXTENDED_CARD]: z.unknown(),
};

// ----------------------------------------------------------------------------------------------------------------

const PARAMS: Record<ProtocolVersion, Record<string, z.ZodType>> = { '1.0': V1_PARAMS, '0.3': V03_PARAMS };

/**
 * The methods of a protocol version, every one with its params schema here. The SDK can tell whether a name is a
 * method (isV1JsonRpcMethod, isLegacyJsonRpcMethod) but lists none; a test holds these to its tables.
 */
export function checkedMethods(version: ProtocolVersion): readonly string[] {
  return Object.keys(PARAMS[version]);
}

/**
 * What is wrong with the params of a JSON-RPC method of the given protocol version, as `<field>: <problem>` (for
 * instance `message.contextId: at most 256 characters (got 300)`), or undefined when they are usable. A method
 * this module does not know passes (the binding answers it as unknown).
 */
export function paramsProblem(version: ProtocolVersion, method: string, params: unknown): string | undefined {
  if (version === '1.0' && (method === 'SendMessage' || method === 'SendStreamingMessage') && isPlainSend(params))
    return undefined;
  const schemas = PARAMS[version];
  return Object.hasOwn(schemas, method) ? problemOf(schemas[method]!, params) : undefined;
}

/**
 * What is wrong with the ids of a REST request's path, or undefined: refused as the same ids in a JSON body are
 * (a NUL character is no part of any id, and no store keeps one).
 */
export function pathIdsProblem(ids: { name: string; taskId?: string; configId?: string }): string | undefined {
  if (ids.taskId?.includes('\0')) return 'the task id in the path must not contain the NUL character (U+0000)';
  if (ids.configId?.includes('\0')) return 'the config id in the path must not contain the NUL character (U+0000)';
  return undefined;
}

/**
 * What is wrong with SendMessage params (HTTP+JSON: the body of message:send and message:stream), or with v0.3
 * message/send params, or undefined when they are usable.
 */
export function sendParamsProblem(params: unknown, version: ProtocolVersion = '1.0'): string | undefined {
  if (version === '1.0' && isPlainSend(params)) return undefined;
  return problemOf(version === '1.0' ? V1Send : V03Send, params);
}

/**
 * Whether v1.0 SendMessage params are of the plain shape most sends have, which V1Send accepts: a message with a
 * messageId, a role and text parts, and nothing else but an optional contextId, taskId and tenant within their limits.
 * Checked by hand first, as the schema's parse costs some tens of times more on every send; anything else, and every
 * refusal with its wording, is the schema's. It may only accept what V1Send accepts (a test holds it to that).
 */
export function isPlainSend(params: unknown): boolean {
  if (!isPlainObject(params)) return false;
  for (const key in params) {
    if (key === 'message') continue;
    if (key !== 'tenant' || typeof params.tenant !== 'string') return false;
  }
  const message = params.message;
  if (!isPlainObject(message)) return false;
  let hasParts = false;
  for (const key in message) {
    const value = message[key];
    switch (key) {
      case 'messageId':
        if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) return false;
        break;
      case 'role':
        if (value !== 'ROLE_USER' && value !== 'ROLE_AGENT') return false;
        break;
      case 'parts':
        if (!isTextParts(value)) return false;
        hasParts = true;
        break;
      case 'contextId':
        if (typeof value !== 'string' || value.length > MAX_CONTEXT_ID_CHARS || value.includes('\0')) return false;
        break;
      case 'taskId':
        if (typeof value !== 'string' || value.length > MAX_ID_CHARS || value.includes('\0')) return false;
        break;
      default:
        return false;
    }
  }
  return hasParts && typeof message.messageId === 'string' && typeof message.role === 'string';
}

/** One or more parts, each `{text}` alone with a string: no part then names a skill, or has two contents. */
function isTextParts(parts: unknown): boolean {
  if (!Array.isArray(parts) || parts.length === 0) return false;
  for (const part of parts) {
    if (!isPlainObject(part) || typeof part.text !== 'string') return false;
    for (const key in part) if (key !== 'text') return false;
  }
  return true;
}

function problemOf(schema: z.ZodType, params: unknown): string | undefined {
  const result = schema.safeParse(params, { error: issueMessage });
  if (result.success) return undefined;
  const [first, ...rest] = result.error.issues;
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : '';
  return `${fieldName(first!.path)}: ${first!.message}${more}`;
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'params';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Messages that name the limit and what was sent (its type or size, never its content beyond a short value). */
function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const input = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return 'is required';
      return `must be ${EXPECTED[issue.expected] ?? issue.expected} (got ${typeName(input)})`;
    case 'invalid_value': {
      if (input === undefined) return 'is required';
      const allowed = issue.values.map((value) => JSON.stringify(value)).join(', ');
      return `must be ${issue.values.length > 1 ? 'one of ' : ''}${allowed} (got ${short(input)})`;
    }
    case 'invalid_union':
      if ('discriminator' in issue && issue.discriminator) {
        // The path ends at the discriminator; the input is the whole object.
        const options = (issue as { options?: unknown[] }).options ?? [];
        const got = isPlainObject(input) ? input[issue.discriminator] : input;
        return `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')} (got ${short(got)})`;
      }
      return undefined;
    case 'too_big':
      if (issue.origin === 'string') return `at most ${issue.maximum} characters (got ${(input as string).length})`;
      if (issue.origin === 'array') return `at most ${issue.maximum} items (got ${(input as unknown[]).length})`;
      return `at most ${issue.maximum} (got ${short(input)})`;
    case 'too_small':
      if (issue.origin === 'string')
        return issue.minimum === 1 ? 'must not be empty' : `at least ${issue.minimum} characters`;
      if (issue.origin === 'array')
        return `at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'} (got ${(input as unknown[]).length})`;
      return `must be ${issue.minimum} or more (got ${short(input)})`;
    default:
      return undefined;
  }
}

function short(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'object' && value !== null) return typeName(value);
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
