/**
 * The ids a log line carries without every call site passing them: the HTTP face opens a context per request
 * (request id, agent id), the bridge adds the task id once it knows it, and every line logged within that async
 * context carries them (logger.ts reads them as pino's mixin).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface LogContext {
  requestId?: string;
  agentId?: string;
  taskId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` over the current context's. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/** Adds ids to the current context (seen by what logs later in it, e.g. the request's closing line). */
export function addToLogContext(fields: LogContext): void {
  const store = storage.getStore();
  if (store) Object.assign(store, fields);
}

export function currentLogContext(): LogContext {
  return { ...storage.getStore() };
}
