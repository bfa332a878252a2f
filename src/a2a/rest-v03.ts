/**
 * The A2A v0.3 HTTP+JSON (REST) binding for one agent, at `{base}/v1/…`: what v0.3 clients (`@a2a-js/sdk` 0.3,
 * Python a2a-sdk 0.3) call when they pick HTTP+JSON. Behaviour and error mapping are the SDK's
 * `LegacyRestTransportHandler`, over the same request handler as every other binding; the proto JSON on the wire is
 * read by rest-v03-requests.ts and written by rest-v03-codec.ts.
 */
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyA2AError, LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, RequestMalformedError, RestContentTypeNotSupportedError, RestRequestMalformedError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import type { ApiKeys } from './api-keys.ts';
import { callContext, requestedVersionOf } from './call-context.ts';
import { negotiateVersion } from './protocol-version.ts';
import { parseJsonBody, readBody } from './request-body.ts';
import { jsonResponse, respond } from './responses.ts';
import { agentCardToProto } from './rest-v03-card.ts';
import {
  pushConfigListToProto,
  sendResultToProto,
  streamEventToProto,
  taskPushConfigToProto,
  taskToProto,
  type LegacyStreamEvent,
} from './rest-v03-codec.ts';
import { legacyErrorBody, legacyErrorResponse, legacyErrorStatus } from './rest-v03-errors.ts';
import { parseSendMessageRequest, parseTaskPushConfig } from './rest-v03-requests.ts';
import type { LegacyRestRoute } from './rest-v03-routes.ts';
import { sseResponse } from './sse.ts';

export { matchLegacyRestRoute, type LegacyRestRoute, type LegacyRestRouteMatch } from './rest-v03-routes.ts';

export interface LegacyRestBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
  /** Where the details of internal errors go (the client is told only that there was one). */
  log?: (message: string, error?: unknown) => void;
}

export class LegacyRestBinding {
  private readonly transport: LegacyRestTransportHandler;
  private readonly options: LegacyRestBindingOptions;

  constructor(handler: A2ARequestHandler, options: LegacyRestBindingOptions) {
    this.transport = new LegacyRestTransportHandler(handler);
    this.options = options;
  }

  async handle(c: Context, route: LegacyRestRoute): Promise<Response> {
    // The /v1/ paths are v0.3's, so here a request without A2A-Version is v0.3, and one that asks for another
    // version has come to the wrong binding.
    const negotiated = negotiateVersion(requestedVersionOf(c), '0.3');
    if (!negotiated.ok || negotiated.version !== '0.3') {
      const requested = negotiated.ok ? negotiated.version : negotiated.requested;
      return legacyErrorResponse(
        new VersionNotSupportedError(
          `The /v1/ routes are the A2A v0.3 HTTP+JSON binding; A2A-Version "${requested}" is not served here. A2A v1.0 clients: POST {base}/message:send, GET {base}/tasks/{id} and so on.`,
        ),
      );
    }
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok) return jsonResponse({ code: A2A_ERROR_CODE.INVALID_REQUEST, message: auth.message }, 401, { 'WWW-Authenticate': 'Bearer' });
    const abort = new AbortController();
    const context = callContext(c, '0.3', auth.user, abort.signal);
    try {
      return await this.dispatch(c, route, context, abort);
    } catch (error) {
      if (legacyErrorStatus(error) >= 500) this.options.log?.(`internal error serving ${c.req.method} ${c.req.path}`, error);
      return legacyErrorResponse(error, extensionHeaders(context));
    }
  }

  private async dispatch(c: Context, route: LegacyRestRoute, context: ServerCallContext, abort: AbortController): Promise<Response> {
    // Status codes as the SDK's v0.3 router sends them: 201 for what a POST creates, 204 for a delete.
    const reply = (status: number, json: unknown) => jsonResponse(json, status, extensionHeaders(context));
    switch (route.name) {
      case 'card':
        return reply(200, agentCardToProto(await this.transport.getAuthenticatedExtendedAgentCard(context)));
      case 'send': {
        const params = parseSendMessageRequest(await this.jsonBody(c));
        return reply(201, sendResultToProto(await this.transport.sendMessage(params, context)));
      }
      case 'stream': {
        const params = parseSendMessageRequest(await this.jsonBody(c));
        return this.stream(await this.transport.sendMessageStream(params, context), context, abort);
      }
      case 'getTask':
        return reply(200, taskToProto(await this.transport.getTask(route.taskId, context, historyLengthOf(c))));
      case 'cancel':
        return reply(200, taskToProto(await this.transport.cancelTask(route.taskId, context)));
      case 'subscribe':
        return this.stream(await this.transport.resubscribe(route.taskId, context), context, abort);
      case 'createPushConfig': {
        const config = parseTaskPushConfig(await this.jsonBody(c), route.taskId);
        return reply(201, taskPushConfigToProto(await this.transport.setTaskPushNotificationConfig(config, context)));
      }
      case 'listPushConfigs':
        return reply(200, pushConfigListToProto(await this.transport.listTaskPushNotificationConfigs(route.taskId, context)));
      case 'getPushConfig':
        return reply(200, taskPushConfigToProto(await this.transport.getTaskPushNotificationConfig(route.taskId, route.configId, context)));
      case 'deletePushConfig':
        await this.transport.deleteTaskPushNotificationConfig(route.taskId, route.configId, context);
        return respond(null, 204, extensionHeaders(context));
    }
  }

  private async jsonBody(c: Context): Promise<unknown> {
    const contentType = c.req.header('content-type');
    if (contentType?.split(';', 1)[0]?.trim().toLowerCase() !== 'application/json') {
      throw new RestContentTypeNotSupportedError({
        message: `Content-Type must be application/json; got ${contentType ? `"${contentType}"` : 'none'}.`,
        statusCode: 415,
      });
    }
    const body = await readBody(c.req.raw, this.options.maxBodyBytes);
    if (!body.ok && body.reason === 'too-large') {
      // The rest of the body is never read, so the connection cannot carry another request.
      throw new RestRequestMalformedError({ message: body.message, statusCode: 413, headers: { Connection: 'close' } });
    }
    if (!body.ok) throw new RequestMalformedError(body.message);
    const json = parseJsonBody(body.text);
    if (!json.ok) throw json.reason === 'too-deep' ? new RequestMalformedError(json.message) : LegacyA2AError.parseError(json.message);
    return json.value;
  }

  private stream(events: AsyncGenerator<LegacyStreamEvent, void, undefined>, context: ServerCallContext, abort: AbortController): Promise<Response> {
    // Each event is the bare StreamResponse: v0.3 REST has no JSON-RPC envelope around it.
    return sseResponse(
      events,
      {
        heartbeatMs: this.options.heartbeatMs,
        format: streamEventToProto,
        formatError: legacyErrorBody,
        headers: extensionHeaders(context),
        onCancel: () => abort.abort(),
      },
      (error) => legacyErrorResponse(error, extensionHeaders(context)),
    );
  }
}

/** `historyLength` (or, by its proto name, `history_length`) of GET /v1/tasks/{id}. */
function historyLengthOf(c: Context): number | undefined {
  const value = c.req.query('historyLength') ?? c.req.query('history_length');
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw new RequestMalformedError(`historyLength must be a whole number, 0 or more; got "${value}".`);
  return Number(value);
}

function extensionHeaders(context: ServerCallContext): Record<string, string> {
  const activated = context.activatedExtensions ?? [];
  return activated.length > 0 ? { [LEGACY_HTTP_EXTENSION_HEADER]: activated.join(', ') } : {};
}
