/**
 * The JSON-RPC errors the devnet answers with.
 *
 * Fixed by the real sequencer (jsonrpsee 0.26 and LEZ's `TransactionMalformationError`, docs/lez.md §2 and the
 * sources it cites):
 * - -32700 Parse error, -32600 Invalid request, -32601 Method not found, -32602 Invalid params (with the reason
 *   as `data`), -32603 Internal error, -32007 Request is too big (HTTP 413): jsonrpsee's own codes and texts;
 * - -32602 "Invalid signature(-s)": a signature that does not verify (the note's `InvalidSignature`);
 * - -32602 "Transaction size N exceeds maximum allowed size of M bytes";
 * - -31999 "Block with id N not found" from getBlockRange.
 *
 * Chosen for the devnet, in the server-error range, for things a real sequencer does not refuse:
 * - -32000 the mempool is full (the real one makes the caller wait);
 * - -32001 already known, -32002 would fail execution: `admission: 'strict'` only (chain.ts);
 * - -32003 a program deployment (the devnet runs no guest programs), or a privacy-preserving transaction on a
 *   profile whose layout the devnet does not read (lee-v0.3, or the rc signing mode).
 */
import type { JsonValue } from '../lez/json.ts';

export interface RpcError {
  code: number;
  message: string;
  data?: JsonValue;
}

export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestTooBig: -32007,
  notFound: -31999,
  mempoolFull: -32000,
  alreadyKnown: -32001,
  rejected: -32002,
  unsupported: -32003,
} as const;

export const parseError = (): RpcError => ({ code: RPC_CODES.parseError, message: 'Parse error' });
export const invalidRequest = (data?: string): RpcError =>
  withData({ code: RPC_CODES.invalidRequest, message: 'Invalid request' }, data);
export const methodNotFound = (): RpcError => ({ code: RPC_CODES.methodNotFound, message: 'Method not found' });
export const invalidParams = (data: string): RpcError => ({
  code: RPC_CODES.invalidParams,
  message: 'Invalid params',
  data,
});
export const internalError = (): RpcError => ({ code: RPC_CODES.internalError, message: 'Internal error' });
export const requestTooBig = (): RpcError => ({ code: RPC_CODES.requestTooBig, message: 'Request is too big' });

function withData(error: RpcError, data: string | undefined): RpcError {
  return data === undefined ? error : { ...error, data };
}
