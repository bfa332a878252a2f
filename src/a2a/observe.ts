/**
 * What wraps the app's routing: each request gets an id (the caller's `X-Request-Id` when it is a plain token, else a
 * new one), a log context carrying it and the agent's id, a server span continuing the caller's `traceparent`, a line
 * in the JSON log and its count and latency in the metrics, labelled by route pattern.
 */
import type { Hono } from 'hono';
import { getPathNoStrict } from 'hono/utils/url';
import { contextWithLog } from '../observability/log-context.ts';
import type { Logger } from '../observability/logger.ts';
import { metrics } from '../observability/metrics.ts';
import { uuidV4 } from '../uuid.ts';
import { contextFrom, inSpan, SpanKind } from '../observability/tracing.ts';
import type { RoutePatterns } from './route-patterns.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The app's entry point, as Hono's `fetch`. */
export type FetchHandler = Hono['fetch'];

export interface ObserveOptions {
  routeOf: RoutePatterns;
  /** The agent served at the root, named in the log context of root calls. */
  defaultAgentId: string | undefined;
  /** Where request lines go; none are written without one. */
  logger?: Logger;
}

/**
 * `fetch` observed. A wrapper around the routing rather than a Hono middleware: a request that matches one route is
 * then dispatched straight to it, where each middleware in front puts Hono's async compose chain (a promise per level,
 * each a run of the async context's promise hook) around it. The log context and the span are entered as one async
 * context, and what follows the request is a plain function on the response's promise.
 */
export function observeRequests(fetch: FetchHandler, options: ObserveOptions): FetchHandler {
  return (request, env, executionCtx) => {
    const started = performance.now();
    const method = request.method;
    // The path as the app routes it (strict: false).
    const path = getPathNoStrict(request);
    const route = options.routeOf(path);
    const headers = request.headers;
    const presented = headers.get('x-request-id');
    const requestId = presented && REQUEST_ID.test(presented) ? presented : uuidV4();
    const agentId = path.match(/^\/agents\/([^/]+)/)?.[1] ?? (route === '/agents' ? undefined : options.defaultAgentId);
    // A tracestate means nothing without a traceparent: looked up only with one.
    const traceparent = headers.get('traceparent');
    const carrier = traceparent ? { traceparent, tracestate: headers.get('tracestate') ?? undefined } : {};
    return inSpan(
      `${method} ${route}`,
      {
        kind: SpanKind.SERVER,
        // Made from the log context, which it carries on.
        parent: contextFrom(carrier, contextWithLog({ requestId, ...(agentId ? { agentId } : {}) })),
        attributes: { 'http.request.method': method, 'http.route': route, 'url.path': path },
      },
      (span) => {
        const answered = (response: Response): Response => {
          const status = response.status;
          span.setAttribute('http.response.status_code', status);
          const labels = { route, method, status: String(status) };
          const seconds = (performance.now() - started) / 1000;
          metrics.httpRequests.inc(labels);
          metrics.httpDuration.observe(labels, seconds);
          options.logger?.info({ method, route, path, status, durationMs: Math.round(seconds * 1000) }, 'request');
          return response;
        };
        const response = fetch(request, env, executionCtx);
        return response instanceof Promise ? response.then(answered) : Promise.resolve(answered(response));
      },
    );
  };
}
