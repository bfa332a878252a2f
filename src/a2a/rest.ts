/**
 * The HTTP+JSON binding (spec §11) for one agent, on the same request handler as JSON-RPC, with the SDK's codecs
 * and error mapping. Paths are relative to the agent's base URL.
 */
import {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  RestRequestMalformedError,
  TaskNotCancelableError,
  VersionNotSupportedError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { callContext, requestedVersionOf } from './call-context.ts';
import type { ApiKeys } from './api-keys.ts';
import { negotiateVersion, unsupportedVersionMessage } from './protocol-version.ts';
import { CLOSE_CONNECTION, contentTypeMessage, isJsonContentType, parseJsonBody, readBody } from './request-body.ts';
import { jsonResponse } from './responses.ts';
import { sseResponse } from './sse.ts';
import { sendParamsProblem } from './message-shape.ts';
import { pushConfigProblem } from './push-config-shape.ts';
import { INTERNAL_ERROR_MESSAGE } from './jsonrpc.ts';

type Route =
  | { name: 'send' | 'stream' | 'list' | 'extendedCard' }
  | { name: 'get' | 'cancel' | 'subscribe' | 'pushConfigs'; taskId: string }
  | { name: 'pushConfig'; taskId: string; configId: string };

interface RouteSpec {
  pattern: RegExp;
  methods: string[];
  build: (match: RegExpExecArray) => Route;
}

const ROUTES: RouteSpec[] = [
  { pattern: /^\/message:send$/, methods: ['POST'], build: () => ({ name: 'send' }) },
  { pattern: /^\/message:stream$/, methods: ['POST'], build: () => ({ name: 'stream' }) },
  { pattern: /^\/tasks$/, methods: ['GET'], build: () => ({ name: 'list' }) },
  { pattern: /^\/extendedAgentCard$/, methods: ['GET'], build: () => ({ name: 'extendedCard' }) },
  { pattern: /^\/tasks\/([^/:]+):cancel$/, methods: ['POST'], build: (m) => ({ name: 'cancel', taskId: m[1]! }) },
  // Subscribe is POST in spec §5.3 and GET in the proto's HTTP annotation: accept both.
  { pattern: /^\/tasks\/([^/:]+):subscribe$/, methods: ['POST', 'GET'], build: (m) => ({ name: 'subscribe', taskId: m[1]! }) },
  { pattern: /^\/tasks\/([^/:]+)$/, methods: ['GET'], build: (m) => ({ name: 'get', taskId: m[1]! }) },
  {
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    methods: ['POST', 'GET'],
    build: (m) => ({ name: 'pushConfigs', taskId: m[1]! }),
  },
  {
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/,
    methods: ['GET', 'DELETE'],
    build: (m) => ({ name: 'pushConfig', taskId: m[1]!, configId: m[2]! }),
  },
];

export type RouteMatch = { route: Route } | { allow: string[] } | undefined;

/** Which REST route a path names; `allow` when the path exists but not for this method. */
export function matchRestRoute(method: string, path: string): RouteMatch {
  for (const spec of ROUTES) {
    const match = spec.pattern.exec(path);
    if (!match) continue;
    if (!spec.methods.includes(method)) return { allow: spec.methods };
    return { route: spec.build(match) };
  }
  return undefined;
}

/**
 * The HTTP status of an A2A error. Two depart from the SDK's table, to what clients and the conformance suite
 * read: a task that cannot be cancelled is a conflict with its state (409, as other implementations answer), and a
 * body in a media type the binding does not take is 415.
 */
function httpStatusOf(error: unknown): number {
  if (error instanceof TaskNotCancelableError) return 409;
  if (error instanceof ContentTypeNotSupportedError) return 415;
  return restStatusFor(error);
}

/** An A2A error as an AIP-193 body; internal errors say nothing about their cause (it is logged, not sent). */
export function restError(error: unknown, headers?: Record<string, string>): Response {
  const status = httpStatusOf(error);
  const body = status >= 500 && !(error instanceof Error && 'reason' in error)
    ? { error: { code: 500, status: 'INTERNAL', message: INTERNAL_ERROR_MESSAGE, details: [] } }
    : toRestErrorBody(error, status);
  // A 413 or 415 leaves the body unread: the connection cannot carry another request, and saying so spares the
  // client a keep-alive socket that the server then drops.
  return jsonResponse(body, status, status === 413 || status === 415 ? { ...CLOSE_CONNECTION, ...headers } : headers);
}

// Responses are plain application/json (what HTTP+JSON clients and the conformance suite expect); requests may be
// application/json or application/a2a+json.
const VERSION_HEADERS = { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION };
const ok = (json: unknown) => jsonResponse(json, 200, VERSION_HEADERS);

export interface RestBindingOptions {
  maxBodyBytes: number;
  heartbeatMs: number;
  apiKeys: ApiKeys;
  /** Where the details of internal errors go (the client is told only that there was one). */
  log?: (message: string, error?: unknown) => void;
}

export class RestBinding {
  private readonly handler: A2ARequestHandler;
  private readonly options: RestBindingOptions;

  constructor(handler: A2ARequestHandler, options: RestBindingOptions) {
    this.handler = handler;
    this.options = options;
  }

  async handle(c: Context, route: Route): Promise<Response> {
    // These paths are the v1.0 layout (v0.3 REST lived under /v1/), so a request without A2A-Version is v1.0 here.
    const negotiated = negotiateVersion(requestedVersionOf(c), '1.0');
    if (!negotiated.ok || negotiated.version !== '1.0') {
      const requested = negotiated.ok ? negotiated.version : negotiated.requested;
      return restError(new VersionNotSupportedError(`${unsupportedVersionMessage(requested)} v0.3 clients: use the /v1/ paths or JSON-RPC.`));
    }
    const auth = this.options.apiKeys.authenticate(c);
    if (!auth.ok) {
      return jsonResponse({ error: { code: 401, status: 'UNAUTHENTICATED', message: auth.message, details: [] } }, 401, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    const abort = new AbortController();
    const context = callContext(c, '1.0', auth.user, abort.signal);
    try {
      return await this.dispatch(c, route, context, abort);
    } catch (error) {
      if (httpStatusOf(error) >= 500) this.options.log?.(`internal error serving ${c.req.method} ${c.req.path}`, error);
      return restError(error);
    }
  }

  private async dispatch(c: Context, route: Route, context: ServerCallContext, abort: AbortController): Promise<Response> {
    switch (route.name) {
      case 'send': {
        const request = SendMessageRequest.fromJSON(await this.sendBody(c));
        const result = await this.handler.sendMessage(request, context);
        const payload = 'messageId' in result ? { $case: 'message' as const, value: result } : { $case: 'task' as const, value: result };
        return ok(SendMessageResponse.toJSON({ payload }));
      }
      case 'stream': {
        const request = SendMessageRequest.fromJSON(await this.sendBody(c));
        return this.stream(this.handler.sendMessageStream(request, context), abort);
      }
      case 'get': {
        const historyLength = optionalInteger(c.req.query('historyLength'), 'historyLength');
        const request = GetTaskRequest.fromJSON({ id: route.taskId, ...(historyLength !== undefined ? { historyLength } : {}) });
        return ok(Task.toJSON(await this.handler.getTask(request, context)));
      }
      case 'list': {
        const query = c.req.query();
        const request = ListTasksRequest.fromJSON({
          ...query,
          ...(query.pageSize !== undefined ? { pageSize: optionalInteger(query.pageSize, 'pageSize') } : {}),
          ...(query.historyLength !== undefined ? { historyLength: optionalInteger(query.historyLength, 'historyLength') } : {}),
          ...(query.includeArtifacts !== undefined ? { includeArtifacts: query.includeArtifacts === 'true' } : {}),
        });
        const response = await this.handler.listTasks(request, context);
        // ProtoJSON drops default values; the spec wants every field, with nextPageToken "" on the last page.
        const json = ListTasksResponse.toJSON(response) as Record<string, unknown>;
        const { nextPageToken, pageSize, totalSize } = response;
        return ok({ ...json, tasks: json.tasks ?? [], nextPageToken, pageSize, totalSize });
      }
      case 'cancel':
        return ok(Task.toJSON(await this.handler.cancelTask(CancelTaskRequest.fromJSON({ id: route.taskId }), context)));
      case 'subscribe':
        return this.stream(this.handler.resubscribe(SubscribeToTaskRequest.fromJSON({ id: route.taskId }), context), abort);
      case 'pushConfigs': {
        if (c.req.method === 'GET') {
          const listed = await this.handler.listTaskPushNotificationConfigs({ tenant: '', taskId: route.taskId, pageSize: 0, pageToken: '' }, context);
          return ok({ ...(ListTaskPushNotificationConfigsResponse.toJSON(listed) as object), configs: listed.configs.map((config) => TaskPushNotificationConfig.toJSON(config)), nextPageToken: listed.nextPageToken });
        }
        const body = await this.jsonBody(c);
        const problem = pushConfigProblem(body);
        if (problem) throw new RequestMalformedError(`Invalid push notification config: ${problem}.`);
        const config = TaskPushNotificationConfig.fromJSON({ ...(body as object), taskId: route.taskId });
        return ok(TaskPushNotificationConfig.toJSON(await this.handler.createTaskPushNotificationConfig(config, context)));
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
        await this.handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context);
        return ok({});
    }
  }

  private async sendBody(c: Context): Promise<unknown> {
    const body = await this.jsonBody(c);
    const problem = sendParamsProblem(body);
    if (problem) throw new RequestMalformedError(`Invalid request body: ${problem}.`);
    return body;
  }

  private async jsonBody(c: Context): Promise<unknown> {
    const contentType = c.req.header('content-type');
    if (!isJsonContentType(contentType)) throw new ContentTypeNotSupportedError(contentTypeMessage(contentType));
    const body = await readBody(c.req.raw, this.options.maxBodyBytes);
    if (!body.ok) {
      throw new RestRequestMalformedError({ message: body.message, statusCode: body.reason === 'too-large' ? 413 : 400, headers: body.headers });
    }
    const json = parseJsonBody(body.text);
    if (!json.ok) throw new RequestMalformedError(json.message);
    return json.value;
  }

  private stream(events: AsyncGenerator<StreamResponse, void, undefined>, abort: AbortController): Promise<Response> {
    return sseResponse(
      events,
      {
        heartbeatMs: this.options.heartbeatMs,
        format: (event) => StreamResponse.toJSON(event),
        formatError: (error) => toRestErrorBody(error, httpStatusOf(error)),
        headers: VERSION_HEADERS,
        onCancel: () => abort.abort(),
      },
      (error) => restError(error),
    );
  }
}

function optionalInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw new RequestMalformedError(`${name} must be an integer; got "${value}".`);
  return Number(value);
}
