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
