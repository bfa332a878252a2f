/**
 * The first middleware of the app: each request gets an id (the caller's `X-Request-Id` when it is a plain token,
 * else a new one), a log context carrying it and the agent's id, a server span continuing the caller's
 * `traceparent`, a line in the JSON log and its count and latency in the metrics, labelled by route pattern.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { contextWithLog } from '../observability/log-context.ts';
import type { Logger } from '../observability/logger.ts';
import { metrics } from '../observability/metrics.ts';
import { contextFrom, inSpan, SpanKind } from '../observability/tracing.ts';
import type { RoutePatterns } from './route-patterns.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface ObserveOptions {
  routeOf: RoutePatterns;
  /** The agent served at the root, named in the log context of root calls. */
  defaultAgentId: string | undefined;
  /** Where request lines go; none are written without one. */
  logger?: Logger;
}

/**
 * The log context and the span are entered as one async context, and the middleware and what follows the request
 * are plain functions on `next()`'s promise: each async frame and each await makes a promise of its own (and a run of
 * the async context's promise hook), on every request.
 */
export function observeRequests(options: ObserveOptions): MiddlewareHandler {
  return (c, next) => {
    const started = performance.now();
    const method = c.req.method;
    const path = c.req.path;
    const route = options.routeOf(path);
    const presented = c.req.header('x-request-id');
    const requestId = presented && REQUEST_ID.test(presented) ? presented : randomUUID();
    const agentId = path.match(/^\/agents\/([^/]+)/)?.[1] ?? (route === '/agents' ? undefined : options.defaultAgentId);
    // A tracestate means nothing without a traceparent: looked up only with one.
    const traceparent = c.req.header('traceparent');
    const carrier = traceparent ? { traceparent, tracestate: c.req.header('tracestate') } : {};
    return inSpan(
      `${method} ${route}`,
      {
        kind: SpanKind.SERVER,
        // Made from the log context, which it carries on.
        parent: contextFrom(carrier, contextWithLog({ requestId, ...(agentId ? { agentId } : {}) })),
        attributes: { 'http.request.method': method, 'http.route': route, 'url.path': path },
      },
      (span) =>
        next().then(() => {
          const status = c.res.status;
          span.setAttribute('http.response.status_code', status);
          const labels = { route, method, status: String(status) };
          const seconds = (performance.now() - started) / 1000;
          metrics.httpRequests.inc(labels);
          metrics.httpDuration.observe(labels, seconds);
          options.logger?.info({ method, route, path, status, durationMs: Math.round(seconds * 1000) }, 'request');
        }),
    );
  };
}
