/**
 * Every response the gateway sends is built here, so each carries the CORS headers (A2A is called from browsers too)
 * and is a plain Response with its headers given up front. That keeps @hono/node-server on its fast path, which a
 * header set after the fact (as a CORS middleware does) would leave.
 */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Last-Modified, A2A-Version, A2A-Extensions',
} as const;

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, A2A-Version, A2A-Extensions, X-A2A-Extensions, Authorization, X-API-Key, If-None-Match, If-Modified-Since',
  'Access-Control-Max-Age': '600',
} as const;

export function respond(body: BodyInit | null, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...CORS_HEADERS, ...headers } });
}

export function jsonResponse(json: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return respond(JSON.stringify(json), status, { 'Content-Type': 'application/json', ...headers });
}

/** The gateway's own errors (not A2A ones): `{error: {code, status, message}}` with the HTTP status as code. */
export function httpError(status: number, name: string, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse({ error: { code: status, status: name, message } }, status, headers);
}

export function preflightResponse(): Response {
  return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
}
