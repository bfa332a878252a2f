/**
 * The A2A-over-Logos-Messaging envelope: the JSON document that travels between the gateway and a Logos agent.
 *
 * The seed binding (its fields restated in docs/binding.md §1.3) fixes `type`, `task_id`, `skill`, `params`, `lez_price`, `state`, `result` and
 * `error`; every other field here is an additive extension, specified in docs/binding.md. Unknown fields are kept
 * out by zod's default stripping, so a newer peer can add fields without breaking this one.
 */
import { z } from 'zod';
import { LowercaseTxHash } from '../lez/tx-hash.ts';
import { LezAmount } from './card.ts';
import { scalarPredicate } from './scalar-predicate.ts';
import { STATUS_KEY_PATTERN } from './status-key.ts';
import { vouch, vouchedJson } from './vouched-bytes.ts';

export const BINDING_VERSION = 1;

/** Binding task states: the seed's kebab-case spelling (the same words as A2A v0.3). */
export const WireState = z.enum([
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
]);
export type WireState = z.infer<typeof WireState>;

export const TERMINAL_WIRE_STATES: ReadonlySet<WireState> = new Set(['completed', 'failed', 'canceled', 'rejected']);

/**
 * Limits of the envelope schemas below, exported so the A2A edge checks a caller's request against the very same
 * numbers before anything is forwarded (an envelope outside them would be dropped by the agent, unanswered).
 */
/** `id` and `task_id`: 1 to this many characters. */
export const MAX_ID_CHARS = 128;
/** `from` and `to`: 1 to this many characters. */
export const MAX_FROM_CHARS = 512;
/** `context_id`: 1 to this many characters. */
export const MAX_CONTEXT_ID_CHARS = 256;
/** `skill`: 1 to this many characters. */
export const MAX_SKILL_CHARS = 256;
/** A part's `raw`: base64, standard or URL-safe alphabet, padding optional. */
export const BASE64_PATTERN = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** A part is an A2A v1.0 Part in its JSON form: exactly one of text, raw (base64), url or data. */
const PartCommon = {
  metadata: z.record(z.string(), z.unknown()).optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
};
export const WirePart = z.union([
  z.object({ text: z.string(), ...PartCommon }),
  z.object({ raw: z.string().regex(BASE64_PATTERN, 'raw must be base64'), ...PartCommon }),
  z.object({ url: z.string().min(1), ...PartCommon }),
  z.object({ data: z.unknown(), ...PartCommon }),
]);
export type WirePart = z.infer<typeof WirePart>;

/** A status message: plain text, or parts when the agent has more to say than a line of text. */
export const WireMessage = z.union([
  z.string(),
  z.object({ parts: z.array(WirePart).min(1), metadata: z.record(z.string(), z.unknown()).optional() }),
]);
export type WireMessage = z.infer<typeof WireMessage>;

export const WireArtifact = z.object({
  artifact_id: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(WirePart).min(1),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Streaming chunks: `append` adds the parts to the artifact with the same id, `last_chunk` closes it. */
  append: z.boolean().optional(),
  last_chunk: z.boolean().optional(),
});
export type WireArtifact = z.infer<typeof WireArtifact>;

export const WireError = z.object({ code: z.string(), message: z.string() });

/**
 * A transfer on a payment rail, as a reference the other side verifies on chain itself (docs/payments.md §2): the wire
 * form, snake_case like the envelope. The rails' own reference is `TransferReference` (lez/rail/receipt.ts).
 */
export const WirePaymentReference = z.object({
  /** `lez` (the LEZ sequencer) or `memory` (an in-process ledger, tests only). */
  rail: z.string().min(1).max(32),
  tx_hash: LowercaseTxHash,
  from: z.string().min(1).max(128),
  to: z.string().min(1).max(128),
  amount: LezAmount,
});
export type WirePaymentReference = z.infer<typeof WirePaymentReference>;
export type WireError = z.infer<typeof WireError>;

const Common = {
  /** Binding version; a receiver rejects versions it does not speak. */
  v: z.literal(BINDING_VERSION),
  /** Unique message id (uuid): receivers drop repeats. */
  id: z.string().min(1).max(MAX_ID_CHARS),
  task_id: z.string().min(1).max(MAX_ID_CHARS),
  /** W3C trace context of the sender's span (docs/binding.md, "Trace context"); receivers may continue the trace. */
  traceparent: z
    .string()
    .regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
    .optional(),
};

/**
 * Gateway → agent requests travel 1:1 and name both parties: `from`, the gateway's address (the message's signer),
 * and `to`, the agent's (so a request cannot be forwarded to someone else). Replies go to the task's status topic,
 * published under the task's status key, which each request carries (status-key.ts).
 */
const FromGateway = {
  ...Common,
  from: z.string().min(1).max(MAX_FROM_CHARS),
  to: z.string().min(1).max(MAX_FROM_CHARS),
  status_key: z.string().regex(STATUS_KEY_PATTERN, 'status_key: 32 bytes, base64url without padding'),
};

/** Agent → gateway replies carry a per-task sequence number, 1, 2, 3…: the receiver orders and de-duplicates by it. */
const FromAgent = { ...Common, seq: z.number().int().positive() };

export const TaskRequest = z.object({
  ...FromGateway,
  type: z.literal('task_request'),
  context_id: z.string().min(1).max(MAX_CONTEXT_ID_CHARS),
  skill: z.string().min(1).max(MAX_SKILL_CHARS),
  params: z.record(z.string(), z.unknown()),
  /** Price the gateway accepted, in LEZ base units as a decimal string ("0" when free). */
  lez_price: z.string().regex(/^\d+$/).default('0'),
  /** The gateway's payment of `lez_price` to the agent, already on chain; absent when the price is 0. */
  payment: WirePaymentReference.optional(),
  /** The caller's A2A message in v1.0 JSON, for agents that want more than skill and params. */
  message: z.record(z.string(), z.unknown()).optional(),
  /** The text parts of `message` are sent without their text, which `params.text` carries (message-text.ts). */
  text_in_params: z.literal(true).optional(),
});
export const TaskInput = z.object({
  ...FromGateway,
  type: z.literal('task_input'),
  params: z.record(z.string(), z.unknown()),
  message: z.record(z.string(), z.unknown()).optional(),
  text_in_params: z.literal(true).optional(),
});
export const TaskGet = z.object({
  ...FromGateway,
  type: z.literal('task_get'),
  /** Replay every reply with a larger seq. */
  after_seq: z.number().int().nonnegative().default(0),
});
export const Cancel = z.object({ ...FromGateway, type: z.literal('cancel') });

export const TaskStatus = z.object({
  ...FromAgent,
  type: z.literal('task_status'),
  state: WireState.exclude(['completed', 'failed', 'canceled', 'rejected']),
  message: WireMessage.optional(),
  artifact: WireArtifact.optional(),
});
export const TaskResult = z.object({
  ...FromAgent,
  type: z.literal('task_result'),
  state: z.enum(['completed', 'failed', 'rejected']),
  /** The skill's return value: a string becomes a text artifact, anything else a data artifact. */
  result: z.unknown().optional(),
  artifacts: z.array(WireArtifact).optional(),
  message: WireMessage.optional(),
  error: WireError.optional(),
  /** The agent answers with a message instead of a task (A2A's Message response). */
  as_message: z.boolean().optional(),
  /** A failed or rejected paid task: the agent's transfer back to the payer. */
  refund: WirePaymentReference.optional(),
});
export const Cancelled = z.object({
  ...FromAgent,
  type: z.literal('cancelled'),
  message: WireMessage.optional(),
  /** A cancelled paid task: the agent's transfer back to the payer. */
  refund: WirePaymentReference.optional(),
});

export const GatewayEnvelope = z.discriminatedUnion('type', [TaskRequest, TaskInput, TaskGet, Cancel]);
export const AgentEnvelope = z.discriminatedUnion('type', [TaskStatus, TaskResult, Cancelled]);
export const Envelope = z.discriminatedUnion('type', [
  TaskRequest,
  TaskInput,
  TaskGet,
  Cancel,
  TaskStatus,
  TaskResult,
  Cancelled,
]);

export type TaskRequest = z.infer<typeof TaskRequest>;
export type TaskInput = z.infer<typeof TaskInput>;
export type TaskGet = z.infer<typeof TaskGet>;
export type Cancel = z.infer<typeof Cancel>;
export type TaskStatusEnvelope = z.infer<typeof TaskStatus>;
export type TaskResultEnvelope = z.infer<typeof TaskResult>;
export type CancelledEnvelope = z.infer<typeof Cancelled>;
export type GatewayEnvelope = z.infer<typeof GatewayEnvelope>;
export type AgentEnvelope = z.infer<typeof AgentEnvelope>;
export type Envelope = z.infer<typeof Envelope>;

/** Input shapes: what a sender writes before defaults are filled in. */
export type AgentEnvelopeInput = z.input<typeof AgentEnvelope>;
export type GatewayEnvelopeInput = z.input<typeof GatewayEnvelope>;

/** Omit over each variant of a union: an envelope's body without the fields its sender fills in (v, id, …). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The per-task status topic: a valid Waku autosharding content topic (`/app/version/name/encoding`). */
export function taskStatusTopic(taskId: string): string {
  return `/logos-a2a/1/task-${taskId}/json`;
}

export const DEFAULT_MAX_ENVELOPE_BYTES = 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON text's UTF-8 bytes. A Buffer, not TextEncoder's fresh ArrayBuffer: an envelope's bytes (under 4 KiB, nearly
 * always) are then a slice of Node's shared allocation pool, several times cheaper to make and to collect.
 */
const utf8 = (json: string): Uint8Array => Buffer.from(json, 'utf8');

export function encodeEnvelope(envelope: GatewayEnvelopeInput | AgentEnvelopeInput): Uint8Array {
  return utf8(JSON.stringify(envelope));
}

/** A value the schema of a record of unknown values returns as it is: zod leaves an own `__proto__` key out. */
const plainRecord = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  !Object.hasOwn(value, '__proto__');
const isText = (value: unknown): boolean => typeof value === 'string';
/** A field only the schema can vouch for: nested objects whose unknown fields zod strips, and unions of them. */
const schemaOnly = (): boolean => false;

/**
 * Per envelope type: its union's schema, its fields (each with a check that the schema would return its value as it
 * is) and the fields its output always has. An envelope built here is vouched for when every field it has
 * is one of these and passes its check (the schema would strip any other) and every output field is there (the schema
 * would fill in a default). The fields left to the schema, payments, artifacts, errors and messages in parts, come
 * from rails, skills or peers and are rare on a task's way.
 */
const OWN_SHAPES = new Map<
  string,
  { schema: object; fields: Map<string, (value: unknown) => boolean>; required: string[] }
>();
for (const [union, checks] of [
  [GatewayEnvelope, { params: plainRecord, message: plainRecord, payment: schemaOnly }],
  [
    AgentEnvelope,
    { message: isText, artifact: schemaOnly, artifacts: schemaOnly, error: schemaOnly, refund: schemaOnly },
  ],
] as const) {
  for (const variant of union.options) {
    const shape: Record<string, z.ZodType> = variant.shape;
    const fields = new Map(
      Object.keys(shape).map((key) => [
        key,
        // Every other field is a scalar (ids, addresses, the status key, the trace context, a price, a state, a
        // number): its own schema's verdict checks it, bounds and patterns included, so a value the union would
        // refuse is never vouched for (a caller's context id, a card's skill id and a task id come from outside).
        (checks as Record<string, (value: unknown) => boolean>)[key] ?? scalarPredicate(shape[key]!),
      ]),
    );
    const required = Object.keys(shape).filter((key) => shape[key]!._zod.optout !== 'optional');
    OWN_SHAPES.set(variant.shape.type.value, { schema: union, fields, required });
  }
}

/**
 * `encodeEnvelope` for an envelope this process built from typed, checked values (a request, a reply). When its
 * schema would return its JSON unchanged (OWN_SHAPES), the bytes are vouched for: a decoder in this process that is
 * given them (the memory transport) parses the JSON without the schema (vouched-bytes.ts). `json`: the envelope's
 * JSON, when the caller has it already.
 */
export function encodeOwn(envelope: { readonly type: string }, json = JSON.stringify(envelope)): Uint8Array {
  const bytes = utf8(json);
  const own = OWN_SHAPES.get(envelope.type);
  if (own && returnsUnchanged(envelope as Record<string, unknown>, own.fields, own.required)) {
    vouch(bytes, own.schema, json);
  }
  return bytes;
}

function returnsUnchanged(
  envelope: Record<string, unknown>,
  fields: Map<string, (value: unknown) => boolean>,
  required: string[],
): boolean {
  for (const key of Object.keys(envelope)) {
    const value = envelope[key];
    if (value === undefined) continue; // left out of the JSON
    const check = fields.get(key);
    if (!check?.(value)) return false;
  }
  for (const key of required) if (envelope[key] === undefined) return false;
  return true;
}

export type DecodeResult<T> =
  { ok: true; envelope: T } | { ok: false; reason: 'too-large' | 'not-json' | 'invalid'; detail: string };

/** Bytes → JSON → `schema`, refusing anything over `maxBytes` before it is parsed (the peer bindings' decoders too). */
export function decodeWith<S extends z.ZodType>(
  schema: S,
  bytes: Uint8Array,
  maxBytes: number,
): DecodeResult<z.infer<S>> {
  if (bytes.byteLength > maxBytes) {
    return { ok: false, reason: 'too-large', detail: `${bytes.byteLength} bytes exceeds ${maxBytes}` };
  }
  // Bytes this process encoded from an envelope the schema returns unchanged: their JSON needs no second opinion.
  const own = vouchedJson(bytes, schema);
  if (own !== undefined) return { ok: true, envelope: JSON.parse(own) as z.infer<S> };
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(bytes));
  } catch (error) {
    return { ok: false, reason: 'not-json', detail: (error as Error).message };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(parsed.error) };
  return { ok: true, envelope: parsed.data };
}

export const decodeAgentEnvelope = (bytes: Uint8Array, maxBytes = DEFAULT_MAX_ENVELOPE_BYTES) =>
  decodeWith(AgentEnvelope, bytes, maxBytes);
export const decodeGatewayEnvelope = (bytes: Uint8Array, maxBytes = DEFAULT_MAX_ENVELOPE_BYTES) =>
  decodeWith(GatewayEnvelope, bytes, maxBytes);
