/**
 * The JSON-RPC binding: guards (API key, content type, size, version) and the edge check of the request
 * (jsonrpc-request.ts) in front of the SDK's transport handlers, v1.0 or v0.3 by A2A-Version, and SSE for the
 * streaming methods. Every error it answers is written by jsonrpc-errors.ts.
 */
import {
  A2A_VERSION_HEADER,
  HTTP_EXTENSION_HEADER,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  A2A_ERROR_CODE,
  ContentTypeNotSupportedError,
  fromJsonRpcErrorResponse,
  RequestMalformedError,
  toJsonRpcError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, type User } from '@a2a-js/sdk/server';
import { generatorEvents, type EventSource } from '../bridge/event-source.ts';
import type { StreamingRequestHandler } from '../bridge/request-handler.ts';
import { isPlainObject } from '../json-object.ts';
import type { Context } from 'hono';
import type { ApiKeys } from './api-keys.ts';
import { callContext, requestedVersionOf } from './call-context.ts';
import { classifyThrown, consoleLog, jsonRpcProtocolError, type BindingError, type ErrorLog } from './errors.ts';
import { jsonRpcErrorObject, jsonRpcErrorResponse, type JsonRpcErrorObject, type JsonRpcId } from './jsonrpc-errors.ts';
import { readJsonRpcRequest, type JsonRpcCall } from './jsonrpc-request.ts';
import { negotiateVersion, unsupportedVersionMessage, type ProtocolVersion } from './protocol-version.ts';
import { contentTypeMessage, isJsonContentType, readBody, discardUnreadBody } from './request-body.ts';
import { respond } from './responses.ts';
import { legacyHttpStatus } from './rest-v03-errors.ts';
import { sseResponse, type SseOptions } from './sse.ts';

export interface JsonRpcBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
  /** Where the details of internal errors go (default: console.error). */
  log?: ErrorLog;
}

/** One agent's JSON-RPC endpoint, both protocol versions. */
export class JsonRpcBinding {
  private readonly v1: JsonRpcTransportHandler;
  private readonly v03: LegacyJsonRpcTransportHandler;
  private readonly handler: StreamingRequestHandler;
  private readonly options: JsonRpcBindingOptions;
  private readonly log: ErrorLog;

  constructor(handler: StreamingRequestHandler, options: JsonRpcBindingOptions) {
    this.handler = handler;
    this.options = options;
    this.log = options.log ?? consoleLog;
    this.v1 = new JsonRpcTransportHandler(handler);
    this.v03 = new LegacyJsonRpcTransportHandler(handler);
  }

  /**
   * Not an async function: the steps are chained on the body's promise and the call's, where an async frame would add
   * its own promise and one per await (each a run of the async context's promise hook) on every request.
   */
  handle(c: Context): Promise<Response> {
    const negotiated = negotiateVersion(requestedVersionOf(c));
    // Errors take the shape of the version asked for; one that is not served gets the current version's.
    const version: ProtocolVersion = negotiated.ok ? negotiated.version : '1.0';

    // Refusals before the body is read drop it first, so that a client still sending gets them, and say
    // Connection: close (discardUnreadBody).
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok) return refuseUnread(c, version, { kind: 'unauthenticated', message: auth.message });
    const contentType = c.req.header('content-type');
    if (!isJsonContentType(contentType)) {
      const error = new ContentTypeNotSupportedError(contentTypeMessage(contentType));
      return refuseUnread(c, version, { kind: 'a2a', error });
    }
    return readBody(c.req.raw, this.options.maxBodyBytes, (body) => {
      if (!body.ok) {
        const error = jsonRpcProtocolError(A2A_ERROR_CODE.INVALID_REQUEST, body.message);
        return jsonRpcErrorResponse(null, { kind: 'a2a', error }, version, {
          status: body.status,
          headers: body.headers,
        });
      }
      if (!negotiated.ok) {
        const error = new VersionNotSupportedError(unsupportedVersionMessage(negotiated.requested));
        return jsonRpcErrorResponse(null, { kind: 'a2a', error }, version);
      }
      return this.call(c, body.text, version, auth.user);
    });
  }

  private call(
    c: Context,
    text: string,
    version: ProtocolVersion,
    user: User | undefined,
  ): Promise<Response> | Response {
    const read = readJsonRpcRequest(text, version);
    if (read.kind === 'notification') return respond(null, 204, {});
    if (read.kind === 'refused') return jsonRpcErrorResponse(read.id, { kind: 'a2a', error: read.error }, version);
    const { method, request } = read.call;
    const v1Stream = version === '1.0' && (method === 'SendStreamingMessage' || method === 'SubscribeToTask');
    // Only a stream is told that its client went away (call-abort.ts); the other calls go without the controller.
    const abort =
      v1Stream || (version === '0.3' && isLegacyStreamingMethod(method)) ? new AbortController() : undefined;
    const context = callContext(c, version, user, abort?.signal);
    if (v1Stream) return this.streamV1(c, read.call, context);
    const answered = (answer: unknown) => this.answer(c, read.call, version, context, answer, abort);
    if (version === '1.0' && method === 'SendMessage') return sendMessageV1(this.handler, read.call, context, answered);
    return (version === '1.0' ? this.v1 : this.v03).handle(request, context).then(answered);
  }

  /** The response to what the transport handler answered: a JSON-RPC response object, or a stream of them. */
  private answer(
    c: Context,
    call: JsonRpcCall,
    version: ProtocolVersion,
    context: ServerCallContext,
    result: unknown,
    abort: AbortController | undefined,
  ): Promise<Response> | Response {
    const { id, method } = call;
    const refuse = (error: BindingError, http?: { status?: number; headers?: Record<string, string> }) =>
      jsonRpcErrorResponse(id, error, version, http);
    const failed = (thrown: unknown) => classifyThrown(thrown, this.log, `JSON-RPC ${method}`);
    const headers = responseHeaders(context, version);
    // A v0.3 stream refused before it starts is answered with an HTTP error status (A2A v0.3 §7.2, "on initial
    // subscription failure"): the official v0.3 clients read the error from a non-2xx answer, and take a 200 that
    // is not an event stream for a broken stream, losing the error. v1.0 answers such a refusal as any other.
    const streamStatus = (error: BindingError) =>
      version === '0.3' && isLegacyStreamingMethod(method) ? { status: legacyHttpStatus(error) } : {};
    if (!isAsyncGenerator(result)) {
      // The transport handler has mapped what the request handler threw, with the same SDK mapping as
      // jsonRpcErrorObject; only an internal error is answered anew, its words (all that is left of it) logged.
      const response = result as { error?: { code?: number; message?: string } };
      if (response.error?.code !== A2A_ERROR_CODE.INTERNAL_ERROR) {
        const refused = response.error
          ? streamStatus({
              kind: 'a2a',
              error: fromJsonRpcErrorResponse(result as Parameters<typeof fromJsonRpcErrorResponse>[0]),
            })
          : {};
        return respond(JSON.stringify(result), refused.status ?? 200, {
          'Content-Type': 'application/json',
          ...headers,
        });
      }
      return refuse(failed(response.error.message), { headers });
    }
    return sseResponse(
      c,
      generatorEvents(result),
      {
        heartbeatMs: this.options.heartbeatMs,
        format: (event) => event,
        formatError: (thrown) => ({ jsonrpc: '2.0', id, error: jsonRpcErrorObject(failed(thrown), version) }),
        headers,
        onCancel: () => abort?.abort(),
      },
      (thrown) => {
        const error = failed(thrown);
        return refuse(error, { headers, ...streamStatus(error) });
      },
    );
  }

  /**
   * A v1.0 stream, pushed from the request handler to the SSE writer without the SDK transport handler's generator
   * around it: the same checks, tenant, request decoding and `{jsonrpc, id, result}` frames as that handler.
   */
  private streamV1(c: Context, call: JsonRpcCall, context: ServerCallContext): Promise<Response> {
    const { method } = call;
    const params = call.request.params;
    // Read now, as the SDK's handler answers: the stream's headers are out before the handler activates anything.
    const frames = new JsonRpcFrames(call, this.log, this.options.heartbeatMs, responseHeaders(context, '1.0'));
    let source: EventSource<StreamResponse>;
    try {
      if (!isParamsObject(params)) throw new RequestMalformedError('Invalid method parameters.');
      if (typeof params.tenant === 'string' && params.tenant) context.setTenant(params.tenant);
      source =
        method === 'SendStreamingMessage'
          ? this.handler.streamMessage(SendMessageRequest.fromJSON(params), context)
          : this.handler.streamTask(SubscribeToTaskRequest.fromJSON(params), context);
    } catch (thrown) {
      return Promise.resolve(frames.refuse(thrown));
    }
    return sseResponse(c, source, frames, (thrown) => frames.refuse(thrown));
  }
}

/**
 * The frames of one v1.0 JSON-RPC stream, as its SSE options: one small object per open stream instead of
 * closures over the whole request.
 */
class JsonRpcFrames implements SseOptions<StreamResponse> {
  private readonly id: JsonRpcId;
  private readonly method: string;
  private readonly log: ErrorLog;
  readonly heartbeatMs: number;
  readonly headers: Record<string, string>;

  constructor(call: JsonRpcCall, log: ErrorLog, heartbeatMs: number, headers: Record<string, string>) {
    this.id = call.id;
    this.method = call.method;
    this.log = log;
    this.heartbeatMs = heartbeatMs;
    this.headers = headers;
  }

  format(event: StreamResponse): unknown {
    return { jsonrpc: '2.0', id: this.id, result: StreamResponse.toJSON(event) };
  }

  formatError(thrown: unknown): unknown {
    return { jsonrpc: '2.0', id: this.id, error: jsonRpcErrorObject(this.failed(thrown), '1.0') };
  }

  /** The error answer of a stream that fails before its first event. */
  refuse(thrown: unknown): Response {
    return jsonRpcErrorResponse(this.id, this.failed(thrown), '1.0', { headers: this.headers });
  }

  private failed(thrown: unknown): BindingError {
    return classifyThrown(thrown, this.log, `JSON-RPC ${this.method}`);
  }
}

/** A refusal before the body is read: the body is dropped first (discardUnreadBody). */
function refuseUnread(c: Context, version: ProtocolVersion, error: BindingError): Promise<Response> {
  return discardUnreadBody(c.req.raw).then((headers) => jsonRpcErrorResponse(null, error, version, { headers }));
}

/** A JSON-RPC response object, as the SDK's transport handler answers a call that is not a stream. */
interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: JsonRpcErrorObject;
}

/**
 * A v1.0 SendMessage, answered as the SDK's transport handler answers it: the same params check, tenant, codecs and
 * error mapping. The call nearly every client makes goes without that handler's async frame and its await (two
 * promises, each a run of the async context's hook) and method dispatch; every other call still goes through it.
 * `answered` makes the response in the same step on the handler's promise: a step of its own would be one more promise.
 */
function sendMessageV1<R>(
  handler: StreamingRequestHandler,
  call: JsonRpcCall,
  context: ServerCallContext,
  answered: (answer: JsonRpcAnswer) => R | Promise<R>,
): Promise<R> | R {
  const { id } = call;
  const failed = (thrown: unknown): R | Promise<R> => answered({ jsonrpc: '2.0', id, error: toJsonRpcError(thrown) });
  let sent: Promise<Message | Task>;
  try {
    const params = call.request.params;
    if (!isParamsObject(params)) throw new RequestMalformedError('Invalid method parameters.');
    if (params.tenant) context.setTenant(params.tenant as string);
    sent = handler.sendMessage(SendMessageRequest.fromJSON(params), context);
  } catch (thrown) {
    return failed(thrown);
  }
  return sent.then((answer) => {
    let result: { message: unknown } | { task: unknown };
    try {
      result = 'messageId' in answer ? { message: Message.toJSON(answer) } : { task: Task.toJSON(answer) };
    } catch (thrown) {
      return failed(thrown);
    }
    return answered({ jsonrpc: '2.0', id, result });
  }, failed);
}

/** What the SDK's handler takes as params: an object whose keys are all non-empty. */
function isParamsObject(params: unknown): params is Record<string, unknown> {
  return isPlainObject(params) && !Object.keys(params).includes('');
}

function responseHeaders(context: ServerCallContext, version: ProtocolVersion): Record<string, string> {
  const headers: Record<string, string> = { [A2A_VERSION_HEADER]: version };
  const activated = context.activatedExtensions;
  // Each generation reads its own header name: v0.3 clients X-A2A-Extensions, v1.0 clients A2A-Extensions.
  if (activated && activated.length > 0)
    headers[version === '0.3' ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER] = activated.join(', ');
  return headers;
}

/** The v0.3 JSON-RPC methods answered with an event stream. */
function isLegacyStreamingMethod(method: string): boolean {
  return method === 'message/stream' || method === 'tasks/resubscribe';
}

function isAsyncGenerator<T>(value: unknown): value is AsyncGenerator<T, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
