/** True for a JSON object (not null, not an array): the one shape check every edge parser starts from. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
