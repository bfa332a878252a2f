/**
 * Every response the gateway sends is built here, so each carries the CORS headers (A2A is called from browsers too)
 * and is a plain Response with its headers given up front. That keeps @hono/node-server on its fast path, which a
 * header set after the fact (as a CORS middleware does) would leave.
 *
 * The operator API (/admin) is the exception: it is not for browsers on other origins, so its responses carry no
 * CORS headers and a preflight there is not granted anything.
 */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Last-Modified, A2A-Version, A2A-Extensions, X-A2A-Extensions',
} as const;

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, A2A-Version, A2A-Extensions, X-A2A-Extensions, Authorization, X-API-Key, If-None-Match, If-Modified-Since',
  'Access-Control-Max-Age': '600',
} as const;

/** Where the operator API lives: no CORS there. */
export const OPERATOR_PATH_PREFIX = '/admin';

export function isOperatorPath(path: string): boolean {
  return path === OPERATOR_PATH_PREFIX || path.startsWith(`${OPERATOR_PATH_PREFIX}/`);
}

/** Whether a response is for browsers on any origin (`cors`) or for the operator's own tools only (`none`). */
export type CorsPolicy = 'cors' | 'none';

export function respond(
  body: BodyInit | null,
  status: number,
  headers: Record<string, string> = {},
  cors: CorsPolicy = 'cors',
): Response {
  return new Response(body, { status, headers: cors === 'cors' ? { ...CORS_HEADERS, ...headers } : headers });
}

export function jsonResponse(
  json: unknown,
  status = 200,
  headers: Record<string, string> = {},
  cors: CorsPolicy = 'cors',
): Response {
  return respond(JSON.stringify(json), status, { 'Content-Type': 'application/json', ...headers }, cors);
}

/**
 * The body of the gateway's own errors (not A2A ones), `{error: {code, status, message}}` with the HTTP status as
 * code: written for the gateway's routes by gatewayErrorResponse (errors.ts), and by the operator API.
 */
export function httpError(
  status: number,
  name: string,
  message: string,
  headers: Record<string, string> = {},
  cors: CorsPolicy = 'cors',
): Response {
  return jsonResponse({ error: { code: status, status: name, message } }, status, headers, cors);
}

/**
 * The answer to a CORS preflight (OPTIONS) for `path`: everything a browser needs to call A2A from any origin, or,
 * under the operator API, nothing at all, so a browser refuses to send the cross-origin call. Without a path it
 * answers as for A2A.
 */
export function preflightResponse(path?: string): Response {
  if (path !== undefined && isOperatorPath(path)) return new Response(null, { status: 204 });
  return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
}
