/** When to try a failed webhook delivery again. */

/**
 * Exponential backoff with jitter: after the nth failed attempt, between half and all of base·2^(n-1), capped.
 * The jitter spreads the retries of many deliveries that failed together (a receiver that was down for everyone).
 */
export function backoffDelay(
  failedAttempts: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** A Retry-After header (seconds, or an HTTP date) as a delay in milliseconds; undefined when absent or unreadable. */
export function retryAfterDelay(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
