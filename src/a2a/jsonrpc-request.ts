/**
 * What the JSON-RPC binding accepts, checked once, where it enters: one JSON-RPC 2.0 request object (no batches)
 * naming a method of the negotiated protocol version, with params that pass the edge schema (message-shape.ts).
 * The outcome is the typed call, or the A2A error to answer and the id to answer it under, or a notification.
 *
 * A notification (a request object without an `id` member) must not be answered (JSON-RPC 2.0 §4.1), and A2A has
 * no method meant to be called that way: every one exists for its result, and one run unanswered (a send that
 * pays, a stream nobody reads) would act where the caller can see neither the outcome nor an error. So it is not
 * run at all; the binding answers HTTP 204 with no body (docs/http-face.md §3).
 */
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { A2A_ERROR_CODE, RequestMalformedError, type A2AError } from '@a2a-js/sdk/errors';
import { isPlainObject } from '../json-object.ts';
import { jsonRpcProtocolError } from './errors.ts';
import type { JsonRpcId } from './jsonrpc-errors.ts';
import { checkedMethods, paramsProblem } from './message-shape.ts';
import type { ProtocolVersion } from './protocol-version.ts';
import { parseJsonBody } from './request-body.ts';

export interface JsonRpcCall {
  id: JsonRpcId;
  method: string;
  /** The request object as it came, for the SDK's transport handler. */
  request: Record<string, unknown>;
}

export type JsonRpcRequestResult =
  { kind: 'call'; call: JsonRpcCall } | { kind: 'refused'; id: JsonRpcId; error: A2AError } | { kind: 'notification' };

export function readJsonRpcRequest(text: string, version: ProtocolVersion): JsonRpcRequestResult {
  const parsed = parseJsonBody(text);
  if (!parsed.ok) {
    // Valid JSON that nests too deeply, or holds no Unicode text, is a request whose params cannot be taken, answered
    // under its id.
    if (parsed.reason !== 'not-json') {
      const error = new RequestMalformedError(`Invalid params: ${lowerFirst(parsed.message)}`);
      return { kind: 'refused', id: idOf(parsed.upper), error };
    }
    const error = jsonRpcProtocolError(A2A_ERROR_CODE.PARSE_ERROR, `Parse error: ${lowerFirst(parsed.message)}`);
    return { kind: 'refused', id: null, error };
  }
  const request = parsed.value;
  const invalid = envelopeProblem(request);
  if (invalid !== undefined) {
    return {
      kind: 'refused',
      id: idOf(request),
      error: jsonRpcProtocolError(A2A_ERROR_CODE.INVALID_REQUEST, `Invalid request: ${invalid}.`),
    };
  }
  if (!('id' in (request as object))) return { kind: 'notification' };
  const { id, method, params } = request as { id: JsonRpcId; method: string; params?: unknown };
  const wrongMethod = methodProblem(method, version);
  if (wrongMethod)
    return { kind: 'refused', id, error: jsonRpcProtocolError(A2A_ERROR_CODE.METHOD_NOT_FOUND, wrongMethod) };
  const badParams = Array.isArray(params)
    ? 'params must be an object of named members, not an array'
    : paramsProblem(version, method, params);
  if (badParams) return { kind: 'refused', id, error: new RequestMalformedError(`Invalid params: ${badParams}.`) };
  return { kind: 'call', call: { id, method, request: request as Record<string, unknown> } };
}

function envelopeProblem(request: unknown): string | undefined {
  if (Array.isArray(request)) return 'batch requests are not supported; send one request per call';
  if (!isPlainObject(request)) return 'the body must be a JSON-RPC request object';
  if (request.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if (typeof request.method !== 'string' || request.method === '') return '"method" must be a non-empty string';
  if ('id' in request && !(typeof request.id === 'string' || Number.isInteger(request.id) || request.id === null)) {
    return '"id" must be a string, an integer or null';
  }
  // An array is a well-formed JSON-RPC request whose params A2A cannot take: that is -32602, checked later.
  if ('params' in request && (typeof request.params !== 'object' || request.params === null)) {
    return '"params" must be an object';
  }
  return undefined;
}

function lowerFirst(text: string): string {
  return `${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

/** The id of a request that is not a valid one, when it has a usable id at all. */
function idOf(request: unknown): JsonRpcId {
  const id = isPlainObject(request) ? request.id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/** Not a method of this version: a method of the other one says which header to send, instead of a bare "not found". */
function methodProblem(method: string, version: ProtocolVersion): string | undefined {
  if (isMethodOf(version, method)) return undefined;
  if (version === '0.3' && isMethodOf('1.0', method)) {
    return `Method "${method}" is A2A v1.0; this request was read as v0.3 because it has no A2A-Version header. Send A2A-Version: 1.0.`;
  }
  if (version === '1.0' && isMethodOf('0.3', method)) {
    return `Method "${method}" is A2A v0.3; with A2A-Version: 1.0 use the v1.0 name, or send the request without A2A-Version.`;
  }
  return `Method "${method}" does not exist. A2A v1.0 methods: ${checkedMethods('1.0').join(', ')}.`;
}

/**
 * Whether `method` is a JSON-RPC method of `version`, by the SDK's tables. It looks names up with `in`, which
 * Object.prototype's own (`toString`, `constructor`) pass too, so those are ruled out first.
 */
function isMethodOf(version: ProtocolVersion, method: string): boolean {
  if (method in Object.prototype) return false;
  return version === '1.0' ? isV1JsonRpcMethod(method) : isLegacyJsonRpcMethod(method);
}
