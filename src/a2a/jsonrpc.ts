/**
 * The JSON-RPC binding: guards (content type, size, version, JSON, envelope) in front of the SDK's transport
 * handlers, v1.0 or v0.3 by A2A-Version, and SSE for the streaming methods.
 */
import { JsonRpcTransportHandler, ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { toJsonRpcError } from '@a2a-js/sdk/errors';
import type { Context } from 'hono';
import { negotiateVersion, unsupportedVersionMessage, VERSION_HEADER, type ProtocolVersion } from './protocol-version.ts';
import { contentTypeMessage, isJsonContentType, readBody } from './request-body.ts';
import { jsonResponse, respond } from './responses.ts';
import { sseResponse } from './sse.ts';
import { SEND_METHODS, sendParamsProblem } from './message-shape.ts';
import { callContext, requestedVersionOf } from './call-context.ts';
import type { ApiKeys } from './api-keys.ts';

type JsonRpcId = string | number | null;

const V1_METHODS = new Set([
  'SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask',
  'CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig', 'GetExtendedAgentCard',
]);
const V03_METHODS = new Set([
  'message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe',
  'tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete', 'agent/getAuthenticatedExtendedCard',
]);

export const JSON_RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  VERSION_NOT_SUPPORTED: -32009,
} as const;

export function jsonRpcError(id: JsonRpcId, code: number, message: string, status = 200): Response {
  return jsonResponse({ jsonrpc: '2.0', id, error: { code, message } }, status);
}

export interface JsonRpcBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
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
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok) return jsonRpcError(null, JSON_RPC.INVALID_REQUEST, auth.message, 401);
    const contentType = c.req.header('content-type');
    if (!isJsonContentType(contentType)) {
      return jsonRpcError(null, JSON_RPC.CONTENT_TYPE_NOT_SUPPORTED, contentTypeMessage(contentType));
    }
    const body = await readBody(c.req.raw, this.options.maxBodyBytes);
    if (!body.ok) return jsonRpcError(null, JSON_RPC.INVALID_REQUEST, body.message, body.reason === 'too-large' ? 413 : 400);
    const negotiated = negotiateVersion(requestedVersionOf(c));
    if (!negotiated.ok) return jsonRpcError(null, JSON_RPC.VERSION_NOT_SUPPORTED, unsupportedVersionMessage(negotiated.requested));

    let request: unknown;
    try {
      request = JSON.parse(body.text);
    } catch (error) {
      return jsonRpcError(null, JSON_RPC.PARSE_ERROR, `Parse error: the body is not valid JSON (${(error as Error).message}).`);
    }
    const invalid = envelopeProblem(request);
    if (invalid) return jsonRpcError(idOf(request), JSON_RPC.INVALID_REQUEST, `Invalid request: ${invalid}.`);
    const rpc = request as { id?: JsonRpcId; method: string };
    const id = rpc.id ?? null;
    const wrongVersion = methodHint(rpc.method, negotiated.version);
    if (wrongVersion) return jsonRpcError(id, JSON_RPC.METHOD_NOT_FOUND, wrongVersion);
    const badParams = SEND_METHODS.has(rpc.method) ? sendParamsProblem((request as { params?: unknown }).params) : undefined;
    if (badParams) return jsonRpcError(id, JSON_RPC.INVALID_PARAMS, `Invalid params: ${badParams}.`);

    const abort = new AbortController();
    const context = callContext(c, negotiated.version, auth.user, abort.signal);
    const transport = negotiated.version === '1.0' ? this.v1 : this.v03;
    const result = await transport.handle(request as Record<string, unknown>, context);
    const headers = responseHeaders(context, negotiated.version);
    if (!isAsyncGenerator(result)) {
      const status = (result as { error?: { code?: number } }).error?.code === -32603 ? 500 : 200;
      return respond(JSON.stringify(result), status, { 'Content-Type': 'application/json', ...headers });
    }
    return sseResponse(
      result,
      {
        heartbeatMs: this.options.heartbeatMs,
        format: (event) => event,
        formatError: (error) => ({ jsonrpc: '2.0', id, error: toJsonRpcError(error) }),
        headers,
        onCancel: () => abort.abort(),
      },
      (error) => jsonResponse({ jsonrpc: '2.0', id, error: toJsonRpcError(error) }, 200, headers),
    );
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
  if ('params' in rpc && (typeof rpc.params !== 'object' || rpc.params === null || Array.isArray(rpc.params))) {
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
  if (version === '0.3' && V1_METHODS.has(method)) {
    return `Method "${method}" is A2A v1.0; this request was read as v0.3 because it has no A2A-Version header. Send A2A-Version: 1.0.`;
  }
  if (version === '1.0' && V03_METHODS.has(method)) {
    return `Method "${method}" is A2A v0.3; with A2A-Version: 1.0 use the v1.0 name, or send the request without A2A-Version.`;
  }
  if (!V1_METHODS.has(method) && !V03_METHODS.has(method)) {
    return `Method "${method}" does not exist. A2A v1.0 methods: ${[...V1_METHODS].join(', ')}.`;
  }
  return undefined;
}

function responseHeaders(context: ServerCallContext, version: ProtocolVersion): Record<string, string> {
  const headers: Record<string, string> = { [VERSION_HEADER]: version };
  const activated = context.activatedExtensions;
  if (activated && activated.length > 0) headers['A2A-Extensions'] = activated.join(', ');
  return headers;
}

function isAsyncGenerator<T>(value: unknown): value is AsyncGenerator<T, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
