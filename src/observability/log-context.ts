/**
 * The ids a log line carries without every call site passing them: the HTTP face opens a context per request
 * (request id, agent id), the bridge adds the task id once it knows it, and every line logged within that async
 * context carries them (logger.ts reads them as pino's mixin). They ride in the process's one async context
 * (async-context.ts), as a value of OpenTelemetry's context: a context made from the active one keeps them.
 */
import { context, createContextKey } from '@opentelemetry/api';
import { useOneAsyncContext } from './async-context.ts';

export interface LogContext {
  requestId?: string;
  agentId?: string;
  taskId?: string;
}

const LOG_CONTEXT = createContextKey('logos-a2a log context');

function activeLogContext(): LogContext | undefined {
  return context.active().getValue(LOG_CONTEXT) as LogContext | undefined;
}

/** Runs `fn` with `fields` over the current context's. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  useOneAsyncContext();
  const active = context.active();
  return context.with(active.setValue(LOG_CONTEXT, { ...activeLogContext(), ...fields }), fn);
}

/** Adds ids to the current context (seen by what logs later in it, e.g. the request's closing line). */
export function addToLogContext(fields: LogContext): void {
  const store = activeLogContext();
  if (store) Object.assign(store, fields);
}

export function currentLogContext(): LogContext {
  return { ...activeLogContext() };
}
