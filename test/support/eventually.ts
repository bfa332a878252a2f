/** Polling in tests: wait for a condition, and say what was awaited when it never comes. */

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms in vain for ${described(check)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A check, as its source says it: what a test waited for. */
function described(check: () => unknown): string {
  const source = check.toString().replace(/\s+/g, ' ');
  return source.length > 240 ? `${source.slice(0, 240)}…` : source;
}
