/**
 * The JSON-RPC binding's one error-body builder (the error model: errors.ts). An A2A error takes the shape of the
 * request's protocol version, by the same SDK mapping its transport handlers answer with: v1.0's error object with
 * google.rpc.ErrorInfo in `data`, v0.3's without.
 */
import { toLegacyHTTPError } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, toJsonRpcError } from '@a2a-js/sdk/errors';
import { headersOf, INTERNAL_ERROR_MESSAGE, type BindingError } from './errors.ts';
import type { ProtocolVersion } from './protocol-version.ts';
import { jsonResponse } from './responses.ts';

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The `error` member of a JSON-RPC response (or of an SSE error frame) for `error`. */
export function jsonRpcErrorObject(error: BindingError, version: ProtocolVersion): JsonRpcErrorObject {
  switch (error.kind) {
    case 'a2a':
      return version === '1.0' ? toJsonRpcError(error.error) : toLegacyHTTPError(error.error);
    case 'internal':
      return { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE };
    case 'unauthenticated':
      return { code: A2A_ERROR_CODE.INVALID_REQUEST, message: error.message };
  }
}

/**
 * A JSON-RPC error response. HTTP 200, as JSON-RPC over HTTP answers, except where the status says more than the
 * body: 500 for an internal error, 401 (with the scheme to use) without a valid API key, and `status` when the
 * caller gives one (413 for a body over the limit; a v0.3 stream refused before it starts: jsonrpc.ts).
 */
export function jsonRpcErrorResponse(
  id: JsonRpcId,
  error: BindingError,
  version: ProtocolVersion,
  http: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const status = http.status ?? (error.kind === 'internal' ? 500 : error.kind === 'unauthenticated' ? 401 : 200);
  return jsonResponse({ jsonrpc: '2.0', id, error: jsonRpcErrorObject(error, version) }, status, {
    ...headersOf(error),
    ...http.headers,
  });
}
