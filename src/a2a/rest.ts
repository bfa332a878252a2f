/**
 * The HTTP+JSON binding (spec §11) for one agent, on the same request handler as JSON-RPC, with the SDK's codecs.
 * Its routes are in rest-routes.ts, every error it answers is written by rest-errors.ts.
 */
import {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  HTTP_EXTENSION_HEADER,
  AgentCard,
  CancelTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { RequestMalformedError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { pathIdsProblem } from './message-shape.ts';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import type { EventSource } from '../bridge/event-source.ts';
import type { StreamingRequestHandler } from '../bridge/request-handler.ts';
import { callContext, requestedVersionOf } from './call-context.ts';
import type { ApiKeys } from './api-keys.ts';
import { classifyThrown, consoleLog, type ErrorLog } from './errors.ts';
import { negotiateVersion, unsupportedVersionMessage } from './protocol-version.ts';
import { discardUnreadBody } from './request-body.ts';
import { jsonResponse } from './responses.ts';
import { readRestBody } from './rest-body.ts';
import { restErrorBody, restErrorResponse } from './rest-errors.ts';
import { getTaskRequest, listTasksRequest, pushConfigRequest, sendMessageRequest } from './rest-requests.ts';
import type { RestRoute } from './rest-routes.ts';
import { sseResponse } from './sse.ts';

// Responses are plain application/json (what HTTP+JSON clients and the conformance suite expect); requests may be
// application/json or application/a2a+json.
const VERSION_HEADERS = { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION };
const ok = (json: unknown) => jsonResponse(json, 200, VERSION_HEADERS);

export interface RestBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
  /** Where the details of internal errors go (default: console.error; the client is told only that there was one). */
  log?: ErrorLog;
}

export class RestBinding {
  private readonly handler: StreamingRequestHandler;
  private readonly options: RestBindingOptions;
  private readonly log: ErrorLog;

  constructor(handler: StreamingRequestHandler, options: RestBindingOptions) {
    this.handler = handler;
    this.options = options;
    this.log = options.log ?? consoleLog;
  }

  async handle(c: Context, route: RestRoute): Promise<Response> {
    // Refusals before the body is read drop it and say Connection: close when a body came (request-body.ts).
    // These paths are the v1.0 layout (v0.3 REST lived under /v1/), so a request without A2A-Version is v1.0 here.
    const negotiated = negotiateVersion(requestedVersionOf(c), '1.0');
    if (!negotiated.ok || negotiated.version !== '1.0') {
      const requested = negotiated.ok ? negotiated.version : negotiated.requested;
      const error = new VersionNotSupportedError(
        `${unsupportedVersionMessage(requested)} v0.3 clients: use the /v1/ paths or JSON-RPC.`,
      );
      return restErrorResponse({ kind: 'a2a', error }, await discardUnreadBody(c.req.raw));
    }
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok)
      return restErrorResponse({ kind: 'unauthenticated', message: auth.message }, await discardUnreadBody(c.req.raw));
    const context = callContext(c, '1.0', auth.user);
    try {
      const response = await this.dispatch(c, route, context);
      // The extensions the call activated, as JSON-RPC answers them.
      const activated = context.activatedExtensions ?? [];
      if (activated.length > 0) response.headers.set(HTTP_EXTENSION_HEADER, activated.join(', '));
      return response;
    } catch (thrown) {
      return restErrorResponse(this.failed(c, thrown));
    }
  }

  private failed(c: Context, thrown: unknown) {
    return classifyThrown(thrown, this.log, `${c.req.method} ${c.req.path}`);
  }

  private async dispatch(c: Context, route: RestRoute, context: ServerCallContext): Promise<Response> {
    const problem = pathIdsProblem(route);
    if (problem) throw new RequestMalformedError(`Invalid request: ${problem}.`);
    switch (route.name) {
      case 'send': {
        const request = sendMessageRequest(await this.body(c));
        const result = await this.handler.sendMessage(request, context);
        const payload =
          'messageId' in result
            ? { $case: 'message' as const, value: result }
            : { $case: 'task' as const, value: result };
        return ok(SendMessageResponse.toJSON({ payload }));
      }
      case 'stream': {
        const request = sendMessageRequest(await this.body(c));
        return this.stream(c, this.handler.streamMessage(request, context));
      }
      case 'get':
        return ok(Task.toJSON(await this.handler.getTask(getTaskRequest(route.taskId, c.req.query()), context)));
      case 'list': {
        const response = await this.handler.listTasks(listTasksRequest(c.req.query()), context);
        // ProtoJSON drops default values; the spec wants every field, with nextPageToken "" on the last page.
        const json = ListTasksResponse.toJSON(response) as Record<string, unknown>;
        const { nextPageToken, pageSize, totalSize } = response;
        return ok({ ...json, tasks: json.tasks ?? [], nextPageToken, pageSize, totalSize });
      }
      case 'cancel':
        return ok(
          Task.toJSON(await this.handler.cancelTask(CancelTaskRequest.fromJSON({ id: route.taskId }), context)),
        );
      case 'subscribe':
        return this.stream(c, this.handler.streamTask(SubscribeToTaskRequest.fromJSON({ id: route.taskId }), context));
      case 'pushConfigs': {
        if (c.req.method === 'GET') {
          const listed = await this.handler.listTaskPushNotificationConfigs(
            { tenant: '', taskId: route.taskId, pageSize: 0, pageToken: '' },
            context,
          );
          return ok({
            ...(ListTaskPushNotificationConfigsResponse.toJSON(listed) as object),
            configs: listed.configs.map((config) => TaskPushNotificationConfig.toJSON(config)),
            nextPageToken: listed.nextPageToken,
          });
        }
        const config = pushConfigRequest(route.taskId, await this.body(c));
        return ok(
          TaskPushNotificationConfig.toJSON(await this.handler.createTaskPushNotificationConfig(config, context)),
        );
      }
      case 'pushConfig': {
        const params = { tenant: '', taskId: route.taskId, id: route.configId };
        if (c.req.method === 'DELETE') {
          await this.handler.deleteTaskPushNotificationConfig(params, context);
          return ok({});
        }
        return ok(TaskPushNotificationConfig.toJSON(await this.handler.getTaskPushNotificationConfig(params, context)));
      }
      case 'extendedCard':
        return ok(AgentCard.toJSON(await this.handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context)));
    }
  }

  private body(c: Context): Promise<unknown> {
    return readRestBody(c.req.raw, this.options.maxBodyBytes, '1.0');
  }

  private stream(c: Context, events: EventSource<StreamResponse>): Promise<Response> {
    return sseResponse(
      c,
      events,
      {
        heartbeatMs: this.options.heartbeatMs,
        format: (event) => StreamResponse.toJSON(event),
        formatError: (thrown) => restErrorBody(this.failed(c, thrown)),
        headers: VERSION_HEADERS,
      },
      (thrown) => restErrorResponse(this.failed(c, thrown)),
    );
  }
}
