/**
 * The part of the nwaku (logos-delivery) REST API that carries the binding, as it is on the wire: route paths and
 * the relay message JSON. Shared by our node's REST face (`app.ts`) and the `nwaku-rest` transport, so both speak
 * exactly what a real nwaku node does (docs/binding.md §2.10). Web APIs only: the transport runs on Workers too.
 *
 * A relay message is `{payload, contentTopic, version?, timestamp?, meta?, ephemeral?, proof?}`: `payload`, `meta`
 * and `proof` are standard base64; `timestamp` is Unix time in nanoseconds, an int64 that JSON numbers in
 * JavaScript cannot hold, so it is read from and written to the JSON text exactly.
 */
import { base64 } from '@scure/base';
import { z } from 'zod';
import type { OutgoingWakuMessage } from '../transports/waku.ts';

export const NWAKU_ROUTES = {
  /** POST subscribes to, DELETE unsubscribes from, a JSON array of content topics. */
  subscriptions: '/relay/v1/auto/subscriptions',
  /** POST publishes a relay message on the shard autosharding gives its content topic. */
  messages: '/relay/v1/auto/messages',
  health: '/health',
  info: '/info',
  debugInfo: '/debug/v1/info',
  version: '/version',
  debugVersion: '/debug/v1/version',
} as const;

/** GET drains what the node cached for a content topic since the last call (404 unless subscribed to it). */
export function messagesPath(contentTopic: string): string {
  return `${NWAKU_ROUTES.messages}/${encodeURIComponent(contentTopic)}`;
}

/** A WakuMessage as the API carries it. */
export type RelayMessage = OutgoingWakuMessage;

/** Bodies the API takes as JSON; nwaku also accepts them labelled text/plain. */
export function isJsonBodyType(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType === 'text/plain';
}

const Base64Text = z.string().refine(isBase64, 'must be standard base64');

const RelayMessageJson = z.object({
  payload: Base64Text.refine((text) => text.trim() !== '', 'Field `payload` is missing or empty'),
  contentTopic: z.string().refine((text) => text.trim() !== '', 'Field `contentTopic` is missing or empty'),
  version: z.number().int().nonnegative().max(0xffffffff).optional(),
  timestamp: z.bigint().optional(),
  meta: Base64Text.optional(),
  ephemeral: z.boolean().optional(),
  proof: Base64Text.optional(),
});

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A publish body: one relay message. */
export function parseRelayMessage(text: string): Parsed<RelayMessage> {
  const json = parseJson(text);
  if (!json.ok) return json;
  const parsed = RelayMessageJson.safeParse(json.value);
  return parsed.success ? { ok: true, value: fromJson(parsed.data) } : { ok: false, error: describe(parsed.error) };
}

/** A GET messages answer: an array of relay messages. */
export function parseRelayMessages(text: string): Parsed<RelayMessage[]> {
  const json = parseJson(text);
  if (!json.ok) return json;
  const parsed = z.array(RelayMessageJson).safeParse(json.value);
  return parsed.success ? { ok: true, value: parsed.data.map(fromJson) } : { ok: false, error: describe(parsed.error) };
}

/** A subscription body: an array of content topics. */
export function parseContentTopics(text: string): Parsed<string[]> {
  const json = parseJson(text);
  if (!json.ok) return json;
  const parsed = z.array(z.string()).safeParse(json.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: describe(parsed.error) };
}

/** The JSON text of relay messages, with every field nwaku writes and the timestamp exact. */
export function relayMessagesJson(messages: readonly RelayMessage[]): string {
  return `[${messages.map(relayMessageJson).join(',')}]`;
}

export function relayMessageJson(message: RelayMessage): string {
  const fields: Record<string, unknown> = {
    payload: base64.encode(message.payload),
    contentTopic: message.contentTopic,
    version: message.version,
  };
  if (message.timestamp !== undefined) fields.timestamp = JSON.rawJSON(message.timestamp.toString());
  if (message.meta !== undefined && message.meta.length > 0) fields.meta = base64.encode(message.meta);
  if (message.ephemeral !== undefined) fields.ephemeral = message.ephemeral;
  return JSON.stringify(fields);
}

function fromJson(json: z.infer<typeof RelayMessageJson>): RelayMessage {
  return {
    payload: base64.decode(json.payload),
    contentTopic: json.contentTopic,
    version: json.version ?? 0,
    ...(json.timestamp !== undefined ? { timestamp: json.timestamp } : {}),
    ...(json.meta !== undefined ? { meta: base64.decode(json.meta) } : {}),
    ...(json.ephemeral !== undefined ? { ephemeral: json.ephemeral } : {}),
  };
}

function parseJson(text: string): Parsed<unknown> {
  try {
    // An integer timestamp becomes a bigint from its own digits, before a double could round it.
    return { ok: true, value: JSON.parse(text, exactTimestamp) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function exactTimestamp(this: unknown, key: string, value: unknown, context?: { source?: string }): unknown {
  if (key === 'timestamp' && typeof value === 'number' && /^-?\d+$/.test(context?.source ?? '')) {
    return BigInt(context!.source!);
  }
  return value;
}

function isBase64(text: string): boolean {
  try {
    base64.decode(text);
    return true;
  } catch {
    return false;
  }
}

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
}

declare global {
  interface JSON {
    /** ES2025 (V8 11.4+: Node 22, Workers): JSON text placed as is by JSON.stringify. */
    rawJSON(text: string): unknown;
  }
}
