/**
 * The HTTP face's error model: what a caller can be told went wrong, and who writes it on the wire.
 *
 * Inside, an error is one of three things (`FaceError`):
 *  - An A2A error (`a2a`): one of the SDK's `A2AError` classes from @a2a-js/sdk/errors (TaskNotFoundError,
 *    RequestMalformedError, VersionNotSupportedError, …), the one transport-agnostic error type. The request
 *    handler throws them and the bindings' edge checks raise them too, so an error means the same on every binding.
 *    A wire detail the class lacks rides on the SDK's transport twin of it, as the SDK itself does: an HTTP status
 *    and headers on a Rest*Error (413 with Connection: close), a JSON-RPC code that is not an A2A error
 *    (-32700, -32600, -32601) on a JsonRpcTransportError.
 *  - One of the gateway's own refusals (`GatewayError`), for which A2A has no error: no valid API key, no such agent
 *    or route, a method the route does not take, a bad query of the agent index, shutting down.
 *  - Anything else that was thrown (`internal`): a bug or an outage. Its cause goes to the log; the caller is told
 *    INTERNAL_ERROR_MESSAGE and nothing more, since the cause may describe internals.
 *
 * On the wire, one builder per binding writes every error body of that binding:
 *  - JSON-RPC, jsonrpc-errors.ts: `{jsonrpc, id, error: {code, message, data?}}`, in the error shape of the
 *    request's protocol version; HTTP 200, except 500 for -32603, 401 without a valid API key, 413 or 400 for a
 *    body that could not be read, and a v0.3 stream refused before it starts, under its v0.3 HTTP+JSON status.
 *  - HTTP+JSON v1.0, rest-errors.ts: AIP-193 `{error: {code, status, message, details}}`, `code` the HTTP status.
 *  - HTTP+JSON v0.3, rest-v03-errors.ts: `{code, message, data?}`, `code` the v0.3 JSON-RPC code.
 *  - The gateway's own routes, `gatewayErrorResponse` below: `{error: {code, status, message}}`.
 * Codes and statuses: docs/http-face.md §3.
 */
import { A2A_ERROR_CODE, A2AError, isRestError, JsonRpcTransportError, toJsonRpcError } from '@a2a-js/sdk/errors';
import { httpError } from './responses.ts';

/** What a caller is told of an internal error; what went wrong is logged, never sent (it may describe internals). */
export const INTERNAL_ERROR_MESSAGE = 'Internal error; the gateway logged the details.';

/** What was thrown while serving a call: an A2A error, or anything else, which is internal (and logged). */
export type ThrownError = { kind: 'a2a'; error: A2AError } | { kind: 'internal' };

/** The gateway's own refusals: none of them is an A2A error. Each message says what to do instead. */
export type GatewayError =
  | { kind: 'unauthenticated'; message: string }
  | { kind: 'not-found'; message: string }
  | { kind: 'method-not-allowed'; allow: readonly string[] }
  | { kind: 'bad-query'; message: string }
  | { kind: 'shutting-down'; message: string }
  /** A deployment whose settings cannot work (a Worker's are read per request): the message names the setting. */
  | { kind: 'misconfigured'; message: string }
  /** Something the gateway needs is out of reach for now (a Worker's Logos node): the message says what. */
  | { kind: 'unavailable'; message: string };

export type FaceError = ThrownError | GatewayError;

/** What an A2A binding answers with an error: what a call threw, or the refusal of a call without a valid API key. */
export type BindingError = ThrownError | Extract<GatewayError, { kind: 'unauthenticated' }>;

export type ErrorLog = (message: string, error?: unknown) => void;

/** Where internal errors go when no log is given. */
export const consoleLog: ErrorLog = (message, error) => console.error(message, error ?? '');

/**
 * What was thrown while serving `what`, sorted, an internal error's cause logged. An `A2AError` the spec does not
 * name (the bare base class, or a JSON-RPC error with the code -32603) says nothing a caller can act on, so it
 * counts as internal like any other exception.
 */
export function classifyThrown(thrown: unknown, log: ErrorLog, what: string): ThrownError {
  if (thrown instanceof A2AError && toJsonRpcError(thrown).code !== A2A_ERROR_CODE.INTERNAL_ERROR)
    return { kind: 'a2a', error: thrown };
  log(`internal error while serving ${what}`, thrown);
  return { kind: 'internal' };
}

/**
 * The headers an error asks to be sent with it, on any binding: the scheme to authenticate with, or what a Rest*Error
 * carries (Connection: close when the body was left unread).
 */
export function headersOf(error: BindingError): Record<string, string> {
  if (error.kind === 'unauthenticated') return { 'WWW-Authenticate': 'Bearer' };
  if (error.kind !== 'a2a' || !isRestError(error.error) || !error.error.headers) return {};
  return Object.fromEntries(
    Object.entries(error.error.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );
}

/**
 * An error with a JSON-RPC code that is not an A2A error (parse error, invalid request, method not found): JSON-RPC
 * sends it as it is, without the ErrorInfo an A2A error carries.
 */
export function jsonRpcProtocolError(code: number, message: string): A2AError {
  return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/** The response to an error of the gateway's own routes (not an A2A call). */
export function gatewayErrorResponse(error: Exclude<FaceError, { kind: 'a2a' }>): Response {
  switch (error.kind) {
    case 'unauthenticated':
      return httpError(401, 'UNAUTHENTICATED', error.message, { 'WWW-Authenticate': 'Bearer' });
    case 'not-found':
      return httpError(404, 'NOT_FOUND', error.message);
    case 'method-not-allowed':
      return httpError(405, 'METHOD_NOT_ALLOWED', `Use ${error.allow.join(' or ')} here.`, {
        Allow: error.allow.join(', '),
      });
    case 'bad-query':
      return httpError(400, 'INVALID_ARGUMENT', error.message);
    case 'shutting-down':
      // Closing the connection sends the client's next attempt to another replica, or to this one after its restart.
      return httpError(503, 'UNAVAILABLE', error.message, { 'Retry-After': '5', Connection: 'close' });
    case 'misconfigured':
      return httpError(500, 'INTERNAL', error.message);
    case 'unavailable':
      return httpError(503, 'UNAVAILABLE', error.message, { 'Retry-After': '5' });
    case 'internal':
      return httpError(500, 'INTERNAL', INTERNAL_ERROR_MESSAGE);
  }
}
