/** Reading a request body within a size limit, and parsing it within a nesting limit, before anything else sees it. */
import { shallowJson } from './shallow-json.ts';
import { holdsLoneSurrogate } from '../json-object.ts';

export type BodyResult =
  | { ok: true; text: string }
  | {
      ok: false;
      reason: 'too-large' | 'unreadable';
      /** The HTTP status to refuse it with: 413 for too large, 400 for a body that broke off. */
      status: 413 | 400;
      message: string;
      /** The body may not have been read to its end (past MAX_DISCARDED_BYTES, or broken off): send these headers. */
      headers: Record<string, string>;
    };

/**
 * Headers for a refusal of a request with a body. Its body is read and dropped first, but only up to
 * MAX_DISCARDED_BYTES: past that the server drops the connection, and would otherwise have announced it as
 * reusable; `Connection: close` says so up front, whatever the body's size.
 */
export const CLOSE_CONNECTION: Readonly<Record<string, string>> = Object.freeze({ Connection: 'close' });

/**
 * For a response sent before the body was read at all (an authentication, version or Content-Type refusal): when the
 * request declares a body, it is read and dropped first, as for a 413 (readBody), and the response is to say
 * `Connection: close`; nothing when it has none.
 */
export async function discardUnreadBody(request: Request): Promise<Record<string, string>> {
  const length = request.headers.get('content-length');
  const declaresBody = request.headers.has('transfer-encoding') || (length !== null && length.trim() !== '0');
  if (!declaresBody) return {};
  if (!(Number(length) > MAX_DISCARDED_BYTES) && request.body) await discard(request.body.getReader(), 0);
  return { ...CLOSE_CONNECTION };
}

export function isJsonContentType(value: string | undefined): boolean {
  const type = value?.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/a2a+json';
}

export function contentTypeMessage(value: string | undefined): string {
  return `Content-Type must be application/json or application/a2a+json; got ${value ? `"${value}"` : 'none'}. With curl, add -H 'Content-Type: application/json'.`;
}

/**
 * How much of a body over the limit is read and thrown away before the 413 is sent. A client that sends its whole
 * request before reading (Python's http.client, curl past its 100-continue wait) would otherwise run into a
 * connection closed under it and never see the answer. Past this the connection is cut: the client then learns
 * nothing, but the gateway reads no more for it.
 */
export const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

/**
 * Not an async function: the common case (a declared length within the limit) is one `then` on the body's text, where
 * an async frame and its await would make two more promises on every request. `then`, when given, takes the result in
 * that same step: a caller's own step on the answer would be one more promise.
 */
export function readBody(request: Request, maxBytes: number): Promise<BodyResult>;
export function readBody<R>(request: Request, maxBytes: number, then: (body: BodyResult) => R | Promise<R>): Promise<R>;
export function readBody<R>(
  request: Request,
  maxBytes: number,
  then?: (body: BodyResult) => R | Promise<R>,
): Promise<R | BodyResult> {
  const next: (body: BodyResult) => R | BodyResult | Promise<R> = then ?? ((body) => body);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return discardUnreadBody(request).then(() => next(tooLarge(maxBytes)));
  // A declared length within the limit: read it whole (the server enforces the length); this is also the fast path
  // of @hono/node-server, which touching `request.body` would leave.
  if (Number.isInteger(declared)) {
    let text: Promise<string>;
    try {
      text = request.text();
    } catch (error) {
      return Promise.resolve(unreadable(error)).then(next);
    }
    return text.then(
      (text) => next({ ok: true, text }),
      (error: unknown) => next(unreadable(error)),
    );
  }
  return readStreamedBody(request, maxBytes).then(next);
}

/** A body of no declared length, read chunk by chunk within the limit. */
async function readStreamedBody(request: Request, maxBytes: number): Promise<BodyResult> {
  if (!request.body) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await discard(reader, size);
        return tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    return unreadable(error);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

function tooLarge(maxBytes: number): BodyResult {
  return {
    ok: false,
    reason: 'too-large',
    status: 413,
    message: `The request body exceeds the limit of ${maxBytes} bytes.`,
    headers: { ...CLOSE_CONNECTION },
  };
}

function unreadable(error: unknown): BodyResult {
  return {
    ok: false,
    reason: 'unreadable',
    status: 400,
    message: `The request body could not be read: ${(error as Error).message}`,
    headers: { ...CLOSE_CONNECTION },
  };
}

/** Reads the rest of a body and drops it, up to MAX_DISCARDED_BYTES in all; a body that breaks off just ends it. */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
  let size = alreadyRead;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > MAX_DISCARDED_BYTES) break;
    }
  } catch {
    return;
  }
  await reader.cancel().catch(() => undefined);
}

/**
 * How deeply a request body may nest arrays and objects. A2A messages need a handful of levels plus whatever the
 * caller's own data and metadata hold; 64 is generous for that, and keeps every recursive walk after parsing (the
 * SDK's codecs, JSON.stringify of envelopes, the agent's decoder) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, found by a pass over the text that never
 * recurses (brackets inside strings do not count). Call it before JSON.parse: a deeply nested body is refused before
 * anything recursive touches it.
 */
export function jsonTooDeep(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  // Nesting needs an opening bracket per level: a text with no more of them than the limit cannot pass it, whatever
  // its strings hold. Most bodies have a handful, found by the engine's own search instead of a look at every character.
  if (!moreOpeningBrackets(text, maxDepth)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c /* \ */) i++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** Whether `text` holds more than `limit` opening brackets (`{` or `[`), strings or not. */
function moreOpeningBrackets(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return true;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return true;
  return false;
}

export type JsonResult =
  | { ok: true; value: unknown }
  /** `upper`: the value with every level past the limit replaced by null (shallow-json.ts), for the JSON-RPC id. */
  | { ok: false; reason: 'too-deep'; message: string; upper: unknown }
  /** Valid JSON whose strings are not all Unicode text; `upper`: the value, for the JSON-RPC id. */
  | { ok: false; reason: 'lone-surrogate'; message: string; upper: unknown }
  | { ok: false; reason: 'not-json'; message: string };

/**
 * JSON.parse behind the depth check: what both HTTP bindings use on a request body. Text past the limit is still told
 * apart as JSON or not, as JSON-RPC answers the two with different codes (invalid params, parse error).
 */
export function parseJsonBody(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonResult {
  if (jsonTooDeep(text, maxDepth)) {
    const upper = shallowJson(text, maxDepth);
    if (upper === undefined) return { ok: false, reason: 'not-json', message: 'The body is not valid JSON.' };
    return {
      ok: false,
      reason: 'too-deep',
      message: `The body nests arrays and objects more than ${maxDepth} levels deep.`,
      upper,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'not-json', message: `The body is not valid JSON (${(error as Error).message}).` };
  }
  if (holdsLoneSurrogate(value, text)) {
    return {
      ok: false,
      reason: 'lone-surrogate',
      message:
        'The body holds a string with a lone surrogate (a \\uD800 to \\uDFFF escape not in a pair), which is not Unicode text and cannot reach an agent; escape a character beyond U+FFFF as its pair, or send it as UTF-8.',
      upper: value,
    };
  }
  return { ok: true, value };
}
