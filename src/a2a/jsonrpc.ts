/**
 * The JSON-RPC binding: guards (content type, size, version, JSON, envelope) in front of the SDK's transport
 * handlers, v1.0 or v0.3 by A2A-Version, and SSE for the streaming methods.
 */
import { JsonRpcTransportHandler, ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { A2A_ERROR_CODE, toJsonRpcError } from '@a2a-js/sdk/errors';
import { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import type { Context } from 'hono';
import { negotiateVersion, unsupportedVersionMessage, type ProtocolVersion } from './protocol-version.ts';
import { contentTypeMessage, isJsonContentType, MAX_JSON_DEPTH, parseJsonBody, readBody, unreadBodyHeaders } from './request-body.ts';
import { jsonResponse, respond } from './responses.ts';
import { sseResponse } from './sse.ts';
import { checkedMethods, paramsProblem } from './message-shape.ts';
import { callContext, requestedVersionOf } from './call-context.ts';
import type { ApiKeys } from './api-keys.ts';

type JsonRpcId = string | number | null;

export function jsonRpcError(id: JsonRpcId, code: number, message: string, status = 200, headers: Record<string, string> = {}): Response {
  return jsonResponse({ jsonrpc: '2.0', id, error: { code, message } }, status, headers);
}

const INTERNAL_ERROR = A2A_ERROR_CODE.INTERNAL_ERROR;
/** What a caller is told of an internal error; what went wrong is logged, never sent (it may describe internals). */
export const INTERNAL_ERROR_MESSAGE = 'Internal error; the gateway logged the details.';

export interface JsonRpcBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
  /** Where the details of internal errors go (default: console.error). */
  log?: (message: string, error?: unknown) => void;
}

/** One agent's JSON-RPC endpoint, both protocol versions. */
export class JsonRpcBinding {
  private readonly v1: JsonRpcTransportHandler;
  private readonly v03: LegacyJsonRpcTransportHandler;

  private readonly options: JsonRpcBindingOptions;

  constructor(handler: A2ARequestHandler, options: JsonRpcBindingOptions) {
    this.options = options;
    this.v1 = new JsonRpcTransportHandler(handler);
    this.v03 = new LegacyJsonRpcTransportHandler(handler);
  }

  async handle(c: Context): Promise<Response> {
    // Refusals before the body is read say Connection: close (unreadBodyHeaders): the unread rest of the body
    // would otherwise be discarded behind a connection announced as reusable.
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok) return jsonRpcError(null, A2A_ERROR_CODE.INVALID_REQUEST, auth.message, 401, unreadBodyHeaders(c.req.raw));
    const contentType = c.req.header('content-type');
    if (!isJsonContentType(contentType)) {
      return jsonRpcError(null, A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED, contentTypeMessage(contentType), 200, unreadBodyHeaders(c.req.raw));
    }
    const body = await readBody(c.req.raw, this.options.maxBodyBytes);
    if (!body.ok) {
      return jsonRpcError(null, A2A_ERROR_CODE.INVALID_REQUEST, body.message, body.reason === 'too-large' ? 413 : 400, body.headers);
    }
    const negotiated = negotiateVersion(requestedVersionOf(c));
    if (!negotiated.ok) return jsonRpcError(null, A2A_ERROR_CODE.VERSION_NOT_SUPPORTED, unsupportedVersionMessage(negotiated.requested));

    const parsed = parseJsonBody(body.text);
    if (!parsed.ok) {
      return parsed.reason === 'too-deep'
        ? jsonRpcError(null, A2A_ERROR_CODE.INVALID_REQUEST, `Invalid request: the body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`)
        : jsonRpcError(null, A2A_ERROR_CODE.PARSE_ERROR, `Parse error: ${parsed.message.charAt(0).toLowerCase()}${parsed.message.slice(1)}`);
    }
    const request = parsed.value;
    const invalid = envelopeProblem(request);
    if (invalid) return jsonRpcError(idOf(request), A2A_ERROR_CODE.INVALID_REQUEST, `Invalid request: ${invalid}.`);
    const rpc = request as { id?: JsonRpcId; method: string; params?: unknown };
    const id = rpc.id ?? null;
    const wrongVersion = methodHint(rpc.method, negotiated.version);
    if (wrongVersion) return jsonRpcError(id, A2A_ERROR_CODE.METHOD_NOT_FOUND, wrongVersion);
    const badParams = Array.isArray(rpc.params)
      ? 'params must be an object of named members, not an array'
      : paramsProblem(negotiated.version, rpc.method, rpc.params);
    if (badParams) return jsonRpcError(id, A2A_ERROR_CODE.INVALID_PARAMS, `Invalid params: ${badParams}.`);

    const abort = new AbortController();
    const context = callContext(c, negotiated.version, auth.user, abort.signal);
    const transport = negotiated.version === '1.0' ? this.v1 : this.v03;
    const result = await transport.handle(request as Record<string, unknown>, context);
    const headers = responseHeaders(context, negotiated.version);
    if (!isAsyncGenerator(result)) {
      const response = result as { error?: { code?: number; message?: string } };
      if (response.error?.code !== INTERNAL_ERROR) {
        return respond(JSON.stringify(result), 200, { 'Content-Type': 'application/json', ...headers });
      }
      this.logInternal(rpc.method, response.error.message);
      return jsonResponse({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE } }, 500, headers);
    }
    const errorBody = (error: unknown) => ({ jsonrpc: '2.0', id, error: this.publicError(rpc.method, error) });
    return sseResponse(
      result,
      {
        heartbeatMs: this.options.heartbeatMs,
        format: (event) => event,
        formatError: errorBody,
        headers,
        onCancel: () => abort.abort(),
      },
      (error) => jsonResponse(errorBody(error), 200, headers),
    );
  }

  /** A JSON-RPC error object for what a handler threw, with an internal error's own words kept out of it. */
  private publicError(method: string, error: unknown): ReturnType<typeof toJsonRpcError> {
    const mapped = toJsonRpcError(error);
    if (mapped.code !== INTERNAL_ERROR) return mapped;
    this.logInternal(method, error);
    return { code: INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE };
  }

  private logInternal(method: string, detail: unknown): void {
    const log = this.options.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ''));
    log(`internal error while serving JSON-RPC ${method}`, detail);
  }
}

function envelopeProblem(request: unknown): string | undefined {
  if (Array.isArray(request)) return 'batch requests are not supported; send one request per call';
  if (typeof request !== 'object' || request === null) return 'the body must be a JSON-RPC request object';
  const rpc = request as Record<string, unknown>;
  if (rpc.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if (typeof rpc.method !== 'string' || rpc.method === '') return '"method" must be a non-empty string';
  if ('id' in rpc && !(typeof rpc.id === 'string' || Number.isInteger(rpc.id) || rpc.id === null)) {
    return '"id" must be a string, an integer or null';
  }
  // An array is a well-formed JSON-RPC request whose params A2A cannot take: that is -32602, checked later.
  if ('params' in rpc && (typeof rpc.params !== 'object' || rpc.params === null)) {
    return '"params" must be an object';
  }
  return undefined;
}

function idOf(request: unknown): JsonRpcId {
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/** A method of the other protocol version: say which header to send instead of a bare "not found". */
function methodHint(method: string, version: ProtocolVersion): string | undefined {
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

function responseHeaders(context: ServerCallContext, version: ProtocolVersion): Record<string, string> {
  const headers: Record<string, string> = { [A2A_VERSION_HEADER]: version };
  const activated = context.activatedExtensions;
  if (activated && activated.length > 0) headers[HTTP_EXTENSION_HEADER] = activated.join(', ');
  return headers;
}

function isAsyncGenerator<T>(value: unknown): value is AsyncGenerator<T, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
