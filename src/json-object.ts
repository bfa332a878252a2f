/** True for a JSON object (not null, not an array): the one shape check every edge parser starts from. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `\uD800`–`\uDFFF` escape: how a lone surrogate gets into a string parsed from JSON text read as UTF-8. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether `value` holds a string (a member's name or a value) with a lone surrogate: valid JSON, but no Unicode
 * text. UTF-8 cannot carry it, canonical JSON (jcs.ts) refuses it, and an agent would get U+FFFD in its place.
 * `text`: the JSON it was parsed from, when at hand: without such an escape it is answered at once, without a walk.
 */
export function holdsLoneSurrogate(value: unknown, text?: string): boolean {
  if (text !== undefined && !SURROGATE_ESCAPE.test(text)) return false;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (LONE_SURROGATE.test(next)) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (isPlainObject(next)) {
      for (const [name, member] of Object.entries(next)) {
        if (LONE_SURROGATE.test(name)) return true;
        pending.push(member);
      }
    }
  }
  return false;
}
