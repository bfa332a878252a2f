/**
 * `promise`, or a rejection with `error()` once `ms` have passed, whichever comes first. For waits a peer can drag
 * out without end (a database or a service node that went silent without closing its connection): the caller gives
 * up and goes on, while what it waited for may still settle later, unheeded. The timer never keeps the process alive.
 */
export function withinMs<T>(
  promise: Promise<T>,
  ms: number,
  error = () => new Error(`no answer in ${ms} ms`),
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
    timer.unref?.();
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
