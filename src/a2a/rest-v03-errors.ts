/**
 * Errors on the v0.3 HTTP+JSON binding: v0.3's bare `{code, message, data?}` body, whose JSON-RPC error codes v0.3
 * REST clients map back to their error classes, under the HTTP status the SDK's own v0.3 REST router gives it.
 */
import { toLegacyHTTPError, type LegacyRestErrorBody } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, A2AError, isJsonRpcError, isRestError, restStatusFor } from '@a2a-js/sdk/errors';
import { INTERNAL_ERROR_MESSAGE } from './jsonrpc.ts';
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

export function legacyErrorStatus(error: unknown): number {
  return (isJsonRpcError(error) ? STATUS_OF_JSON_RPC_CODE[error.envelopeCode] : undefined) ?? restStatusFor(error);
}

export function legacyErrorBody(error: unknown): LegacyRestErrorBody {
  // An A2A error says what the caller got wrong; anything else is the gateway's fault, and its message stays inside.
  return error instanceof A2AError ? toLegacyHTTPError(error) : { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE };
}

export function legacyErrorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  return jsonResponse(legacyErrorBody(error), legacyErrorStatus(error), { ...headersOf(error), ...headers });
}

/** Headers a REST error asks to be sent with it (Connection: close with a 413, say). */
function headersOf(error: unknown): Record<string, string> {
  if (!isRestError(error) || !error.headers) return {};
  return Object.fromEntries(Object.entries(error.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}
