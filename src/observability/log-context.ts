/**
 * The ids a log line carries without every call site passing them: the HTTP face opens a context per request
 * (request id, agent id), the bridge adds the task id once it knows it, and every line logged within that async
 * context carries them (logger.ts reads them as pino's mixin). They ride in the process's one async context
 * (async-context.ts), as a value of OpenTelemetry's context: a context made from the active one keeps them.
 */
import { createContextKey, type Context } from '@opentelemetry/api';
import { activeContext, runInContext, useOneAsyncContext } from './async-context.ts';
import { contextWithValue } from './flat-context.ts';

export interface LogContext {
  requestId?: string;
  agentId?: string;
  taskId?: string;
}

const LOG_CONTEXT = createContextKey('logos-a2a log context');

function activeLogContext(): LogContext | undefined {
  return activeContext().getValue(LOG_CONTEXT) as LogContext | undefined;
}

/** Runs `fn` with `fields` over the current context's. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return runInContext(contextWithLog(fields), fn);
}

/**
 * The active context with `fields` over its log context's, not yet entered: for a caller that enters it together with
 * more (the HTTP face, with its request's span), in one async context instead of two nested ones.
 */
export function contextWithLog(fields: LogContext): Context {
  useOneAsyncContext();
  const active = activeContext();
  return contextWithValue(active, LOG_CONTEXT, {
    ...(active.getValue(LOG_CONTEXT) as LogContext | undefined),
    ...fields,
  });
}

/** Adds ids to the current context (seen by what logs later in it, e.g. the request's closing line). */
export function addToLogContext(fields: LogContext): void {
  const store = activeLogContext();
  if (store) Object.assign(store, fields);
}

export function currentLogContext(): LogContext {
  return { ...activeLogContext() };
}
