/**
 * The HTTP face: one Hono app on Web Request/Response that serves every agent of the directory at
 * /agents/{agentId}/… and the default agent at the root. It holds no protocol logic of its own: cards come from the
 * bridge's projection, calls go to each agent's request handler through the JSON-RPC and REST bindings.
 */
import { readFileSync } from 'node:fs';
import { Hono, type Context } from 'hono';
import { getPathNoStrict } from 'hono/utils/url';
import type { AgentDirectory, DirectoryEntry } from '../logos/directory.ts';
import { agentRequestHandler } from '../bridge/request-handler.ts';
import type { TaskEngine } from '../bridge/task-engine.ts';
import type { TaskStore } from '../store/task-store.ts';
import { cardDocument, cardResponse, type CardDocument } from './agent-card-response.ts';
import { consoleLog, gatewayErrorResponse, type ErrorLog } from './errors.ts';
import { JsonRpcBinding } from './jsonrpc.ts';
import { RestBinding } from './rest.ts';
import { matchRestRoute } from './rest-routes.ts';
import { LegacyRestBinding } from './rest-v03.ts';
import { isLegacyRestPath, matchLegacyRestRoute } from './rest-v03-routes.ts';
import { legacyRestRouteError } from './rest-v03-errors.ts';
import { jsonResponse, preflightResponse, respond } from './responses.ts';
import { mountAdmin } from './admin.ts';
import { agentsIndex } from './agents-index.ts';
import { AI_CATALOG_MEDIA_TYPE, AI_CATALOG_PATH, aiCatalog } from './ai-catalog.ts';
import { directoryPageHeaders, prefersHtml, renderDirectoryPage } from './directory-page.ts';
import { ApiKeys } from './api-keys.ts';
import { cardSigningKid, cardSigningPublicKey, gatewayJwks, JWKS_PATH, type CardSigningKey } from './card-jws.ts';
import { entryCards, type CardShape } from './served-cards.ts';
import type { TaskPayments } from '../bridge/task-payments.ts';
import type { PushNotificationService } from '../push/push-service.ts';
import type { Logger } from '../observability/logger.ts';
import { METRICS_CONTENT_TYPE, metricsText } from '../observability/metrics.ts';
import { observeRequests, type FetchHandler } from './observe.ts';
import { routePatterns } from './route-patterns.ts';
import { rateLimit, type RateLimiter } from './rate-limit.ts';
import { readiness } from './readiness.ts';
import { mountDocs } from './docs-page.ts';
import { bearerToken, sameDigest, secretDigest } from './bearer.ts';

export interface AppOptions {
  directory: AgentDirectory;
  engine: TaskEngine;
  store: TaskStore;
  /** Public base URL, no trailing slash: every URL the gateway hands out starts with it. */
  publicBaseUrl: string;
  /** The agent served at the root. */
  defaultAgentId: string | undefined;
  /** What a card request that names no A2A version gets (default: the union card). */
  cardShape?: CardShape;
  maxBodyBytes: number;
  sseHeartbeatMs: number;
  /** Signs every served card (A2A §8.4); its public key is served at /.well-known/jwks.json. */
  cardSigningKey?: CardSigningKey;
  /** Callers' API keys; none configured = an open gateway. */
  apiKeys?: ApiKeys;
  /** The operator API's bearer token; the API is off without one. */
  adminToken?: string;
  payments?: TaskPayments;
  /**
   * Aborted when the gateway starts to shut down: /readyz turns 503, new calls get 503 with Retry-After, blocking
   * calls in flight return their task as it stands and open streams end with its current status.
   */
  shutdown?: AbortSignal;
  /**
   * The OpenAPI document served at /openapi.json. Default: the package's openapi/openapi.json, read from disk;
   * runtimes without the package's files (Cloudflare Workers) pass it in.
   */
  openApiDocument?: Record<string, unknown>;
  /** Push notifications (the config methods and webhooks); absent: they answer PushNotificationNotSupported. */
  push?: PushNotificationService;
  log?: ErrorLog;
  /** Request lines of the JSON log; none without it. */
  logger?: Logger;
  /** Connected Logos peers for /readyz; undefined where there are none to wait for (memory, a node that dials none). */
  logosPeers?: () => number | undefined;
  /** Limits per API key and client address; none without it. */
  rateLimit?: { limiter: RateLimiter; trustProxy: boolean };
  /** Where the gRPC binding is served (`host:port`, a2a/grpc.ts), for the cards; none without it. */
  grpcAddress?: string;
}

interface AgentEndpoint {
  card: CardDocument;
  jsonRpc: JsonRpcBinding;
  rest: RestBinding;
  /** The v0.3 HTTP+JSON binding, under /v1/ (the v1.0 paths never start with it). */
  legacyRest: LegacyRestBinding;
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

export function createApp(options: AppOptions): Hono {
  const app = new Hono({ strict: false });
  const endpoints = new Map<string, { entry: DirectoryEntry; endpoint: AgentEndpoint }>();
  const apiKeys = options.apiKeys ?? new ApiKeys([]);
  const cardsOf = (entry: DirectoryEntry, baseUrl: string) =>
    entryCards(entry, baseUrl, {
      apiKeyRequired: apiKeys.required,
      pushNotifications: options.push !== undefined,
      ...(options.grpcAddress
        ? { grpc: { address: options.grpcAddress, legacy: entry.id === options.defaultAgentId } }
        : {}),
      ...(options.cardSigningKey ? { signingKey: options.cardSigningKey } : {}),
    });
  const log = options.log ?? consoleLog;

  const endpointFor = (entry: DirectoryEntry, baseUrl: string): AgentEndpoint => {
    const cached = endpoints.get(baseUrl);
    if (cached && cached.entry === entry) return cached.endpoint;
    const cards = cardsOf(entry, baseUrl);
    const handler = agentRequestHandler(entry, cards.v1, options);
    const bindingOptions = { maxBodyBytes: options.maxBodyBytes, heartbeatMs: options.sseHeartbeatMs, apiKeys, log };
    const endpoint: AgentEndpoint = {
      card: cardDocument(cards, options.cardShape ?? 'union', entry.updatedAt),
      jsonRpc: new JsonRpcBinding(handler, bindingOptions),
      rest: new RestBinding(handler, bindingOptions),
      legacyRest: new LegacyRestBinding(handler, bindingOptions),
    };
    endpoints.set(baseUrl, { entry, endpoint });
    return endpoint;
  };

  const serveAgent = (
    c: Context,
    entry: DirectoryEntry,
    baseUrl: string,
    path: string,
  ): Promise<Response> | Response => {
    const endpoint = endpointFor(entry, baseUrl);
    const method = c.req.method;
    if (CARD_PATHS.has(path)) {
      if (method === 'GET' || method === 'HEAD') return cardResponse(c, endpoint.card);
      return methodNotAllowed(['GET', 'HEAD']);
    }
    if (path === '/') {
      if (method === 'POST') return endpoint.jsonRpc.handle(c);
      return notFound(`POST JSON-RPC requests here; the agent card is at ${baseUrl}/.well-known/agent-card.json.`);
    }
    const noRoute = `No route ${method} ${path} for agent "${entry.id}". See ${options.publicBaseUrl}/openapi.json.`;
    if (isLegacyRestPath(path)) {
      const legacy = matchLegacyRestRoute(method, path);
      if (!legacy) return legacyRestRouteError({ kind: 'not-found', message: noRoute });
      if ('allow' in legacy) return legacyRestRouteError({ kind: 'method-not-allowed', allow: legacy.allow });
      return endpoint.legacyRest.handle(c, legacy.route);
    }
    const match = matchRestRoute(method, path);
    if (!match) return notFound(noRoute);
    if ('allow' in match) return methodNotAllowed(match.allow);
    return endpoint.rest.handle(c, match.route);
  };

  const openapi = openApiJson(options.publicBaseUrl, options.openApiDocument ?? readOpenApiDocument());
  const draining = () => options.shutdown?.aborted === true;
  app.get('/livez', () => jsonResponse({ status: 'ok' }));
  app.get('/readyz', async () => {
    const payer = options.payments?.payer;
    const state = await readiness({
      store: options.store,
      logosPeers: options.logosPeers ?? (() => undefined),
      draining,
      ...(payer ? { payments: { rail: payer.rail, ...(payer.profile ? { profile: payer.profile } : {}) } } : {}),
    });
    const payments = state.payments ? { payments: state.payments } : {};
    if (state.ready) return jsonResponse({ status: 'ready', ...payments });
    return draining()
      ? gatewayErrorResponse({ kind: 'shutting-down', message: state.reason })
      : jsonResponse({ status: 'not-ready', reason: state.reason, ...payments }, 503, { 'Retry-After': '5' });
  });
  const metricsToken = options.adminToken === undefined ? undefined : secretDigest(options.adminToken);
  app.get('/metrics', async (c) => {
    // With an admin token configured, metrics (agent ids, traffic) are the operator's: the scraper sends the token.
    const presented = bearerToken(c.req.header('authorization'));
    if (metricsToken && (presented === undefined || !sameDigest(secretDigest(presented), metricsToken))) {
      return gatewayErrorResponse({
        kind: 'unauthenticated',
        message: 'Send the admin token as Authorization: Bearer <token> to read the metrics.',
      });
    }
    return respond(await metricsText(), 200, { 'Content-Type': METRICS_CONTENT_TYPE }, 'none');
  });
  app.get('/health', () =>
    jsonResponse({
      status: draining() ? 'draining' : 'ok',
      agents: options.directory.all().length,
      activeTasks: options.engine.activeTaskCount,
    }),
  );
  app.options('*', (c) => preflightResponse(c.req.path));
  if (options.rateLimit) {
    app.use('*', rateLimit(options.rateLimit.limiter, { apiKeys, trustProxy: options.rateLimit.trustProxy, log }));
  }

  app.get('/openapi.json', () => respond(openapi, 200, { 'Content-Type': 'application/json' }));
  mountDocs(app);

  // Without a signing key (a Worker without LOGOS_A2A_CARD_SIGNING_KEY) the set is empty: cards are unsigned, and a
  // verifier that fetches the set learns that rather than meeting a 404. Not cached, so a key set later is seen.
  const key = options.cardSigningKey;
  const jwks = key
    ? JSON.stringify(gatewayJwks(cardSigningPublicKey(key), cardSigningKid(key), key.alg))
    : JSON.stringify({ keys: [] });
  const jwksCaching = key ? 'public, max-age=3600' : 'no-cache';
  app.get(JWKS_PATH, () =>
    respond(jwks, 200, { 'Content-Type': 'application/jwk-set+json', 'Cache-Control': jwksCaching }),
  );

  mountAdmin(app, { token: options.adminToken, engine: options.engine, payments: options.payments });

  const indexOptions = (c: Context) => ({
    publicBaseUrl: options.publicBaseUrl,
    query: new URL(c.req.url).searchParams,
    isOnline: (id: string) => options.directory.isOnline(id),
    verifiedAt: (id: string) => {
      const entry = options.directory.get(id);
      return entry?.verified || entry?.peerVerified ? entry.updatedAt.toISOString() : undefined;
    },
  });
  app.get(AI_CATALOG_PATH, () =>
    respond(JSON.stringify(aiCatalog(options.directory.all(), options.publicBaseUrl)), 200, {
      'Content-Type': AI_CATALOG_MEDIA_TYPE,
      'Cache-Control': 'no-cache',
    }),
  );
  app.get('/agents', (c) => {
    const result = agentsIndex(options.directory, indexOptions(c));
    return result.ok ? jsonResponse(result.body) : gatewayErrorResponse({ kind: 'bad-query', message: result.message });
  });

  app.all('/agents/:agentId/*', (c) => {
    const agentId = c.req.param('agentId');
    const entry = options.directory.get(agentId);
    if (!entry) return unknownAgent(agentId, options.directory);
    const prefix = `/agents/${agentId}`;
    return serveAgent(c, entry, `${options.publicBaseUrl}${prefix}`, normalise(c.req.path.slice(prefix.length)));
  });
  app.all('/agents/:agentId', (c) => {
    const agentId = c.req.param('agentId');
    const entry = options.directory.get(agentId);
    if (!entry) return unknownAgent(agentId, options.directory);
    return serveAgent(c, entry, `${options.publicBaseUrl}/agents/${agentId}`, '/');
  });
  app.all('*', (c) => {
    // People get the directory page at the root; A2A clients and curl get the default agent.
    if (
      (c.req.method === 'GET' || c.req.method === 'HEAD') &&
      normalise(c.req.path) === '/' &&
      prefersHtml(c.req.header('Accept'))
    ) {
      const { status, html } = renderDirectoryPage(options.directory, indexOptions(c));
      return respond(c.req.method === 'HEAD' ? null : html, status, directoryPageHeaders(options.publicBaseUrl));
    }
    const entry = options.defaultAgentId ? options.directory.get(options.defaultAgentId) : undefined;
    if (!entry) {
      return notFound(
        options.defaultAgentId
          ? `The default agent "${options.defaultAgentId}" has not announced itself yet; agents are listed at /agents.`
          : 'No default agent is configured (defaultAgent); agents are listed at /agents.',
      );
    }
    return serveAgent(c, entry, options.publicBaseUrl, normalise(c.req.path));
  });

  app.onError((error, c) => {
    log(`internal error while serving ${c.req.method} ${c.req.path}`, error);
    return gatewayErrorResponse({ kind: 'internal' });
  });

  // The probes and metrics answer while draining (that is how a load balancer learns of it); the rest is refused then.
  // Checked in front of the routing, as observation is (observe.ts): the one route a call matches is then reached
  // without Hono's middleware chain.
  const routed = app.fetch;
  const admitted: FetchHandler = (request, env, executionCtx) =>
    draining() && !isProbe(request) ? shuttingDown() : routed(request, env, executionCtx);
  app.fetch = observeRequests(admitted, {
    routeOf: routePatterns(Object.keys((JSON.parse(openapi) as { paths: object }).paths)),
    defaultAgentId: options.defaultAgentId,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return app;
}

/** The routes that answer while the gateway drains, all GET (and so HEAD). */
const PROBE_PATHS = new Set(['/livez', '/readyz', '/metrics', '/health']);

/** Whether the app routes `request` to a probe: its path as the app reads it (strict: false). */
function isProbe(request: Request): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && PROBE_PATHS.has(getPathNoStrict(request));
}

function shuttingDown(): Response {
  return gatewayErrorResponse({
    kind: 'shutting-down',
    message: 'The gateway is shutting down; retry in a moment (another replica, or this one after its restart).',
  });
}

/** Trailing slashes route the same. */
function normalise(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

function notFound(message: string): Response {
  return gatewayErrorResponse({ kind: 'not-found', message });
}

function methodNotAllowed(allow: readonly string[]): Response {
  return gatewayErrorResponse({ kind: 'method-not-allowed', allow });
}

function unknownAgent(agentId: string, directory: AgentDirectory): Response {
  const known = directory.all().map((entry) => entry.id);
  return notFound(`No agent "${agentId}" here. Agents: ${known.length ? known.join(', ') : 'none'}.`);
}

function openApiJson(publicBaseUrl: string, document: Record<string, unknown>): string {
  return JSON.stringify({ ...document, servers: [{ url: publicBaseUrl, description: 'This gateway' }] });
}

function readOpenApiDocument(): Record<string, unknown> {
  // Two levels up from src/a2a (tests) and from dist/a2a (built) alike.
  return JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
}
