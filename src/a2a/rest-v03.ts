/**
 * The A2A v0.3 HTTP+JSON (REST) binding for one agent, at `{base}/v1/…`: what v0.3 clients (`@a2a-js/sdk` 0.3,
 * Python a2a-sdk 0.3) call when they pick HTTP+JSON. Behaviour and error mapping are the SDK's
 * `LegacyRestTransportHandler`, over the same request handler as every other binding; the proto JSON on the wire is
 * read by rest-v03-requests.ts and written by rest-v03-codec.ts, and every error is written by rest-v03-errors.ts.
 */
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { RequestMalformedError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import type { ApiKeys } from './api-keys.ts';
import { callContext, requestedVersionOf } from './call-context.ts';
import { classifyThrown, consoleLog, type ErrorLog } from './errors.ts';
import { pathIdsProblem } from './message-shape.ts';
import { negotiateVersion } from './protocol-version.ts';
import { discardUnreadBody } from './request-body.ts';
import { jsonResponse, respond } from './responses.ts';
import { readRestBody } from './rest-body.ts';
import { agentCardToProto } from './rest-v03-card.ts';
import {
  pushConfigListToProto,
  sendResultToProto,
  streamEventToProto,
  taskPushConfigToProto,
  taskToProto,
  type LegacyStreamEvent,
} from './rest-v03-codec.ts';
import { legacyRestErrorBody, legacyRestErrorResponse } from './rest-v03-errors.ts';
import { parseSendMessageRequest, parseTaskPushConfig } from './rest-v03-requests.ts';
import type { LegacyRestRoute } from './rest-v03-routes.ts';
import { sseResponse } from './sse.ts';
import { generatorEvents } from '../bridge/event-source.ts';

export interface LegacyRestBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
  /** Where the details of internal errors go (default: console.error; the client is told only that there was one). */
  log?: ErrorLog;
}

export class LegacyRestBinding {
  private readonly transport: LegacyRestTransportHandler;
  private readonly options: LegacyRestBindingOptions;
  private readonly log: ErrorLog;

  constructor(handler: A2ARequestHandler, options: LegacyRestBindingOptions) {
    this.transport = new LegacyRestTransportHandler(handler);
    this.options = options;
    this.log = options.log ?? consoleLog;
  }

  async handle(c: Context, route: LegacyRestRoute): Promise<Response> {
    // Refusals before the body is read drop it and say Connection: close when a body came (request-body.ts).
    // The /v1/ paths are v0.3's, so here a request without A2A-Version is v0.3, and one that asks for another
    // version has come to the wrong binding.
    const negotiated = negotiateVersion(requestedVersionOf(c), '0.3');
    if (!negotiated.ok || negotiated.version !== '0.3') {
      const requested = negotiated.ok ? negotiated.version : negotiated.requested;
      const error = new VersionNotSupportedError(
        `The /v1/ routes are the A2A v0.3 HTTP+JSON binding; A2A-Version "${requested}" is not served here. A2A v1.0 clients: POST {base}/message:send, GET {base}/tasks/{id} and so on.`,
      );
      return legacyRestErrorResponse({ kind: 'a2a', error }, await discardUnreadBody(c.req.raw));
    }
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok)
      return legacyRestErrorResponse(
        { kind: 'unauthenticated', message: auth.message },
        await discardUnreadBody(c.req.raw),
      );
    const abort = new AbortController();
    const context = callContext(c, '0.3', auth.user, abort.signal);
    try {
      return await this.dispatch(c, route, context, abort);
    } catch (thrown) {
      return legacyRestErrorResponse(this.failed(c, thrown), extensionHeaders(context));
    }
  }

  private failed(c: Context, thrown: unknown) {
    return classifyThrown(thrown, this.log, `${c.req.method} ${c.req.path}`);
  }

  private async dispatch(
    c: Context,
    route: LegacyRestRoute,
    context: ServerCallContext,
    abort: AbortController,
  ): Promise<Response> {
    const problem = pathIdsProblem(route);
    if (problem) throw new RequestMalformedError(`Invalid request: ${problem}.`);
    // Status codes as the SDK's v0.3 router sends them: 201 for what a POST creates, 204 for a delete.
    const reply = (status: number, json: unknown) => jsonResponse(json, status, extensionHeaders(context));
    switch (route.name) {
      case 'card':
        return reply(200, agentCardToProto(await this.transport.getAuthenticatedExtendedAgentCard(context)));
      case 'send': {
        const params = parseSendMessageRequest(await readRestBody(c.req.raw, this.options.maxBodyBytes, '0.3'));
        return reply(201, sendResultToProto(await this.transport.sendMessage(params, context)));
      }
      case 'stream': {
        const params = parseSendMessageRequest(await readRestBody(c.req.raw, this.options.maxBodyBytes, '0.3'));
        return this.stream(c, await this.transport.sendMessageStream(params, context), context, abort);
      }
      case 'getTask':
        return reply(200, taskToProto(await this.transport.getTask(route.taskId, context, historyLengthOf(c))));
      case 'cancel':
        return reply(200, taskToProto(await this.transport.cancelTask(route.taskId, context)));
      case 'subscribe':
        return this.stream(c, await this.transport.resubscribe(route.taskId, context), context, abort);
      case 'createPushConfig': {
        const config = parseTaskPushConfig(
          await readRestBody(c.req.raw, this.options.maxBodyBytes, '0.3'),
          route.taskId,
        );
        return reply(201, taskPushConfigToProto(await this.transport.setTaskPushNotificationConfig(config, context)));
      }
      case 'listPushConfigs':
        return reply(
          200,
          pushConfigListToProto(await this.transport.listTaskPushNotificationConfigs(route.taskId, context)),
        );
      case 'getPushConfig':
        return reply(
          200,
          taskPushConfigToProto(
            await this.transport.getTaskPushNotificationConfig(route.taskId, route.configId, context),
          ),
        );
      case 'deletePushConfig':
        await this.transport.deleteTaskPushNotificationConfig(route.taskId, route.configId, context);
        return respond(null, 204, extensionHeaders(context));
    }
  }

  private stream(
    c: Context,
    events: AsyncGenerator<LegacyStreamEvent, void, undefined>,
    context: ServerCallContext,
    abort: AbortController,
  ): Promise<Response> {
    // Each event is the bare StreamResponse: v0.3 REST has no JSON-RPC envelope around it.
    return sseResponse(
      c,
      generatorEvents(events),
      {
        heartbeatMs: this.options.heartbeatMs,
        format: streamEventToProto,
        formatError: (thrown) => legacyRestErrorBody(this.failed(c, thrown)),
        headers: extensionHeaders(context),
        onCancel: () => abort.abort(),
      },
      (thrown) => legacyRestErrorResponse(this.failed(c, thrown), extensionHeaders(context)),
    );
  }
}

/** `historyLength` (or, by its proto name, `history_length`) of GET /v1/tasks/{id}. */
function historyLengthOf(c: Context): number | undefined {
  const value = c.req.query('historyLength') ?? c.req.query('history_length');
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value))
    throw new RequestMalformedError(`historyLength must be a whole number, 0 or more; got "${value}".`);
  return Number(value);
}

function extensionHeaders(context: ServerCallContext): Record<string, string> {
  const activated = context.activatedExtensions ?? [];
  return activated.length > 0 ? { [LEGACY_HTTP_EXTENSION_HEADER]: activated.join(', ') } : {};
}
