/**
 * A timer that outlives the request that sets it (a live task's silence timer lives as long as the task) would keep
 * that request's async context alive with it: its log fields and trace context, some 600 bytes per live task with
 * 10,000 open streams. This one is set outside them, and its callback runs in the log fields and trace given.
 */
import { outsideLogContext, withLogContext, type LogContext } from './log-context.ts';
import { inTraceOf, outsideTrace } from './tracing.ts';

export interface TimeoutScope {
  logFields: LogContext;
  /** The trace the callback continues (a `traceparent`, and `tracestate`). */
  trace: { traceparent?: string | undefined; tracestate?: string | undefined };
}

export function detachedTimeout(ms: number, scope: TimeoutScope, callback: () => void): NodeJS.Timeout {
  const inScope = () => withLogContext(scope.logFields, () => inTraceOf(scope.trace, callback));
  return outsideLogContext(() => outsideTrace(() => setTimeout(inScope, ms)));
}
