/**
 * The v0.3 HTTP+JSON binding's one error-body builder (the error model: errors.ts): v0.3's bare
 * `{code, message, data?}`, whose JSON-RPC error code v0.3 REST clients map back to their error classes, under the
 * HTTP status the SDK's own v0.3 REST router gives it.
 */
import { toLegacyHTTPError, type LegacyRestErrorBody } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, isJsonRpcError, restStatusFor, type A2AError } from '@a2a-js/sdk/errors';
import { headersOf, INTERNAL_ERROR_MESSAGE, type BindingError, type GatewayError } from './errors.ts';
import { jsonResponse } from './responses.ts';

/**
 * Codes that exist only in JSON-RPC, so have no REST status of their own: the statuses the SDK's v0.3 REST router
 * gives them (it does not export its table).
 */
const STATUS_OF_JSON_RPC_CODE: Record<number, number> = {
  [A2A_ERROR_CODE.PARSE_ERROR]: 400,
  [A2A_ERROR_CODE.INVALID_REQUEST]: 400,
  [A2A_ERROR_CODE.METHOD_NOT_FOUND]: 501,
};

function httpStatusOf(error: A2AError): number {
  return (isJsonRpcError(error) ? STATUS_OF_JSON_RPC_CODE[error.envelopeCode] : undefined) ?? restStatusFor(error);
}

function statusAndBody(error: BindingError): { status: number; body: LegacyRestErrorBody } {
  switch (error.kind) {
    case 'a2a':
      return { status: httpStatusOf(error.error), body: toLegacyHTTPError(error.error) };
    case 'internal':
      return { status: 500, body: { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE } };
    case 'unauthenticated':
      return { status: 401, body: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: error.message } };
  }
}

/**
 * The HTTP status of `error` on the v0.3 faces. The v0.3 JSON-RPC binding uses it too, for a stream refused before
 * it starts, which v0.3 answers with an HTTP error status (A2A v0.3 §7.2).
 */
export function legacyHttpStatus(error: BindingError): number {
  return statusAndBody(error).status;
}

/** The body of an SSE error frame: what the response would have carried. */
export function legacyRestErrorBody(error: BindingError): LegacyRestErrorBody {
  return statusAndBody(error).body;
}

/** The error response, with the headers the error asks for (errors.ts `headersOf`) and `headers`. */
export function legacyRestErrorResponse(error: BindingError, headers: Record<string, string> = {}): Response {
  const { status, body } = statusAndBody(error);
  return jsonResponse(body, status, { ...headersOf(error), ...headers });
}

/**
 * A path under /v1/ that is no route, or a route that does not take the method: answered in v0.3's body, as the
 * clients of that face read every error, with -32601 (the v0.3 code for "no such method").
 */
export function legacyRestRouteError(
  error: Extract<GatewayError, { kind: 'not-found' | 'method-not-allowed' }>,
): Response {
  if (error.kind === 'not-found')
    return jsonResponse({ code: A2A_ERROR_CODE.METHOD_NOT_FOUND, message: error.message }, 404);
  return jsonResponse(
    { code: A2A_ERROR_CODE.METHOD_NOT_FOUND, message: `Use ${error.allow.join(' or ')} here.` },
    405,
    { Allow: error.allow.join(', ') },
  );
}
