/**
 * A timer that outlives its request: set inside a request's log fields and span, its callback sees neither, only
 * the log fields and trace it was given.
 */
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { detachedTimeout } from '../../src/observability/detached-timeout.ts';
import { currentLogContext, withLogContext } from '../../src/observability/log-context.ts';
import { inSpan, startTracing, type Tracing } from '../../src/observability/tracing.ts';

const TASK_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

let tracing: Tracing;
beforeAll(async () => (tracing = await startTracing({ exporter: new InMemorySpanExporter() })));
afterAll(() => tracing.stop());

it('runs its callback in the scope given, holding none of the context that set it', async () => {
  const fired = await new Promise<{ log: object; traceId: string | undefined; requestTraceId: string }>((resolve) =>
    withLogContext({ requestId: 'the-request' }, () =>
      inSpan('the request', {}, async (span) => {
        detachedTimeout(
          5,
          { logFields: { taskId: 'the-task' }, trace: { traceparent: `00-${TASK_TRACE}-00f067aa0ba902b7-01` } },
          () =>
            resolve({
              log: currentLogContext(),
              traceId: trace.getSpanContext(context.active())?.traceId,
              requestTraceId: span.spanContext().traceId,
            }),
        );
      }),
    ),
  );
  expect(fired.log).toEqual({ taskId: 'the-task' });
  expect(fired.requestTraceId).not.toBe(TASK_TRACE);
  expect(fired.traceId).toBe(TASK_TRACE);
});
