/**
 * Composition root: configuration → store, transport, agent directory, task engine, HTTP app. Runtime adapters
 * (src/cli/ for Node) only start and stop what this builds.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { createApp } from '../a2a/app.ts';
import { AgentDirectory } from '../logos/directory.ts';
import { DiscoveryListener } from '../logos/discovery.ts';
import { isPlainObject } from '../json-object.ts';
import { TaskEngine } from '../bridge/task-engine.ts';
import { ConfigError, grpcPublicAddressOf, publicBaseUrlOf, type GatewayConfig } from './config.ts';
import type { AgentPayments, LogosAgent } from '../logos/agent-runtime.ts';
import { paidAgent } from '../logos/agents/paid.ts';
import { conformanceAgent } from '../logos/agents/conformance.ts';
import { echoAgent } from '../logos/agents/echo.ts';
import {
  defaultNodeKeyFile,
  dialsPeers,
  openNetwork,
  type LogosNetwork,
  type NetworkSettings,
} from '../logos/network.ts';
import { WireBindings } from '../logos/bindings/binding-of.ts';
import { peerContext } from '../logos/bindings/peer-context.ts';
import { storedPeerCardReader } from '../logos/peer-card-reading.ts';
import { PeerDiscovery, peerAddressRule } from '../logos/peer-discovery.ts';
import { openPeerNetworks, type PeerNetworks } from '../logos/peer-networks.ts';
import type { MemoryNetwork } from '../logos/transports/memory.ts';
import { TaskPayments, type Payer } from '../bridge/task-payments.ts';
import { limitsBelowFeeCap } from '../lez/rail/spending-gate.ts';
import { spendingRules } from './payment-wiring.ts';
import { payerFromConfig } from './wallet-payer.ts';
import { PublishedAgents } from '../publish/published-agents.ts';
import { publishedParts } from './published-wiring.ts';
import { ApiKeys } from '../a2a/api-keys.ts';
import { JWKS_PATH } from '../a2a/card-jws.ts';
import { verifyLogosCard } from '../logos/card-signature.ts';
import { loadOrCreateKey } from '../logos/secret-key-file.ts';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { TaskStore } from '../store/task-store.ts';
import { openStores } from '../store/open-stores.ts';
import { PostgresPayerLock } from '../store/postgres/payer-lock.ts';
import { isPostgresUrl } from '../store/postgres/connection.ts';
import { PushNotificationService } from '../push/push-service.ts';
import { TaskState } from '@a2a-js/sdk';
import type { TaskChange } from '../bridge/task-change.ts';
import { decodeChange } from '../bridge/replica-messages.ts';
import type { Logger } from '../observability/logger.ts';
import { consoleLog, type ErrorLog } from '../a2a/errors.ts';
import { listenGrpc, type GrpcServer } from '../a2a/grpc.ts';
import { collectProcessMetrics, countPeersWith, metrics } from '../observability/metrics.ts';
import {
  countingTransport,
  loggerFromConfig,
  rateLimiterFromConfig,
  tracingFromConfig,
} from './observability-wiring.ts';

export interface Gateway {
  readonly app: Hono;
  readonly engine: TaskEngine;
  readonly store: TaskStore;
  readonly directory: AgentDirectory;
  readonly discovery: DiscoveryListener;
  /** The peer bindings' discovery, on the networks of the `networks` setting that name one. */
  readonly peerDiscovery: PeerDiscovery;
  readonly network: LogosNetwork;
  /** The further networks of the `networks` setting, a node per cluster (peer-networks.ts). */
  readonly peerNetworks: PeerNetworks;
  readonly push: PushNotificationService;
  /** Where the gateway is reachable, once listening. */
  readonly url: string;
  readonly port: number;
  /** Where the gRPC binding is reachable (`host:port`), when it is served (grpcPort). */
  readonly grpcAddress?: string;
  /** The agent the root serves (`defaultAgent`, else the first one configured); none when no agent is configured. */
  readonly defaultAgentId?: string;
  /** The wallet that pays agents, when payments are on (the start banner names it). */
  readonly payer?: Payer;
  stop(): Promise<void>;
}

export interface GatewayDeps {
  /** With the memory transport: the in-process network to join (one is created when absent). */
  network?: MemoryNetwork;
  /** Agents already running elsewhere on the network, registered by card. */
  agents?: LogosAgent[];
  /** Pays agents from the gateway wallet; built from `config.payments` when absent. */
  payer?: Payer;
  /** How the built-in `paid` agent takes payments, and the LEZ secret key of the account it is paid to. */
  paidAgent?: { payments: AgentPayments; key: Uint8Array };
  log?: (message: string) => void;
  /**
   * The JSON logger. Default: one on stdout at `config.logLevel`, silent when `log` is given (an embedder or a test
   * that takes the messages itself).
   */
  logger?: Logger;
}

function builtinAgent(
  kind: GatewayConfig['agents'][number]['builtin'],
  network: LogosNetwork,
  discoveryTopic: string,
  deps: GatewayDeps,
): LogosAgent {
  const transport = network.agentNode(kind);
  switch (kind) {
    case 'echo':
      return echoAgent(transport, { discoveryTopic, cardKey: network.agentCardKey(kind) });
    case 'conformance':
      return conformanceAgent(transport, { discoveryTopic, cardKey: network.agentCardKey(kind) });
    case 'paid':
      // startGateway refuses a configuration with "paid" and no paidAgent before anything opens.
      if (!deps.paidAgent) throw new Error('unreachable: the "paid" agent without a paidAgent');
      // Its card names the account it is paid to, so that account's key signs it.
      return paidAgent(transport, deps.paidAgent.payments, { discoveryTopic, cardKey: deps.paidAgent.key });
  }
}

/**
 * Where the gateway keeps its keys when no file is configured: beside the SQLite file, or in .data/ when the
 * database is on a server; nowhere with an in-memory database (they last one run).
 */
function dataFolderOf(config: GatewayConfig): string | undefined {
  if (isPostgresUrl(config.database)) return '.data';
  return config.database === ':memory:' ? undefined : dirname(config.database);
}

/**
 * The card-signing key: from its file (created on first start, beside the SQLite file by default, in .data/ with
 * PostgreSQL, where replicas on other machines must be given the same file), or a fresh one per start with an
 * in-memory database. ES256 (P-256), which the A2A SDKs' verifiers (WebCrypto, jose) can check.
 */
function cardSigningSecret(config: GatewayConfig): Uint8Array {
  const folder = dataFolderOf(config);
  const file = config.cardSigningKeyFile ?? (folder === undefined ? undefined : join(folder, 'card-signing.key'));
  return file ? loadOrCreateKey(file) : Uint8Array.from(randomBytes(32));
}

/**
 * The transport's settings, with the node key's default: a single gateway (SQLite) keeps its peer id across
 * restarts, beside its party key; replicas (PostgreSQL) share that key's folder, and one peer id for several nodes
 * would break the mesh, so each gets a fresh one per start unless given a file of its own.
 */
function networkSettings(config: GatewayConfig): NetworkSettings {
  const transport = config.transport;
  if (transport.kind !== 'waku' || transport.nodeKeyFile || isPostgresUrl(config.database)) return transport;
  return { ...transport, nodeKeyFile: defaultNodeKeyFile(transport.keyFile) };
}

/** How often the directory forgets the agents it has not heard from for `forgetAfterMs` (days, by default). */
const FORGET_CHECK_MS = 3_600_000;

/** Starts the in-process agents of the config, the engine and the HTTP server. */
export async function startGateway(config: GatewayConfig, deps: GatewayDeps = {}): Promise<Gateway> {
  // Everything opened is closed in reverse order: by stop(), and by a start that fails halfway (a port in use, say),
  // which must not leave a database, a relay node or agents behind.
  const opened: (() => unknown)[] = [];
  const closeAll = async () => {
    for (const close of opened.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        deps.log?.(`while stopping: ${String(error)}`);
      }
    }
  };
  // What the configuration alone can get wrong is found before anything opens, as a ConfigError.
  if (config.agents.some((agent) => agent.builtin === 'paid') && !deps.paidAgent) {
    throw new ConfigError(
      'agents: the built-in "paid" agent needs a LEZ account to be paid on; it runs in the demo (logos-a2a demo), on the devnet.',
    );
  }
  // Replicas on one PostgreSQL database that share the wallet sign by turns (lez/rail/payer-lock.ts).
  const payerLock = (account: string) => {
    const lock = new PostgresPayerLock(config.database, account);
    opened.push(() => lock.close());
    return lock;
  };
  const payer =
    deps.payer ?? (await payerFromConfig(config.payments, isPostgresUrl(config.database) ? { payerLock } : {}));
  const cardSecret = cardSigningSecret(config);
  const logger = deps.logger ?? loggerFromConfig(deps.log ? { ...config, logLevel: 'silent' } : config);
  const log = deps.log ?? ((message: string) => logger.warn(message));
  // A caller that takes the messages itself keeps the HTTP face's own default for internal errors (stderr).
  const errorLog: ErrorLog | undefined = deps.log
    ? undefined
    : (message, error) => logger.error({ err: error }, message);
  try {
    return await open(
      config,
      { ...deps, log, logger, ...(errorLog ? { errorLog } : {}), ...(payer ? { payer } : {}) },
      cardSecret,
      (close) => opened.push(close),
      closeAll,
    );
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function open(
  config: GatewayConfig,
  deps: GatewayDeps & { logger: Logger; log: (message: string) => void; errorLog?: ErrorLog },
  cardSecret: Uint8Array,
  onClose: (close: () => unknown) => void,
  closeAll: () => Promise<void>,
): Promise<Gateway> {
  collectProcessMetrics();
  const tracing = await tracingFromConfig(config);
  onClose(() => tracing.stop());
  const stores = await openStores(config.database, {
    leaseMs: config.replicaLeaseMs,
    log: deps.log,
    onStatement: (statement) => metrics.databaseStatements.inc({ statement: firstWord(statement) }),
  });
  onClose(() => stores.close());
  const store = stores.tasks;
  const settings = networkSettings(config);
  const network = await openNetwork(settings, deps.network);
  onClose(() => network.stop());
  // A further network on the cluster of the gateway's own relay node goes through that node.
  const ownNode =
    config.transport.kind === 'waku'
      ? [{ ...config.transport, transport: network.gateway, joinAddresses: () => network.joinAddresses() }]
      : [];
  const peerNetworks = await openPeerNetworks(config.networks, ownNode);
  onClose(() => peerNetworks.stop());

  // The in-process agents join the network while the rest opens, and the HTTP face answers (their cards included)
  // before they are in the relay mesh: joining takes a gossipsub heartbeat or two, the longest step of a start.
  // Meanwhile the engine's messages wait for them; the start itself ends only once they have joined.
  const ownAgents = config.agents.map(({ builtin }) => builtinAgent(builtin, network, config.discoveryTopic, deps));
  const agentsStarted = Promise.all(ownAgents.map((agent) => agent.start()));
  const settled = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      () => undefined, // the start fails with it (below), and everything closes
    );
  // A start that fails meanwhile stops the agents once they have started: stopped halfway, one would keep announcing.
  onClose(async () => {
    await settled(agentsStarted);
    await Promise.all(ownAgents.map((agent) => agent.stop()));
  });
  const agentsJoined = agentsStarted.then(async () => {
    if (!(await network.ready(ownAgents.length))) deps.log('some in-process agents are not in the relay mesh yet');
  });
  // HTTP agents published on Logos (src/publish/): Logos agents of their own, as the in-process ones. With a SQLite
  // file, each keeps its tasks' HTTP tasks beside it, to go on with them after a restart, and a priced one its money
  // state; closed after the agents.
  const parts = await publishedParts(
    config,
    network,
    dataFolderOf(config),
    config.database !== ':memory:' && !isPostgresUrl(config.database),
    deps.log,
  );
  onClose(() => parts.close());
  const published = new PublishedAgents(config.published, {
    node: parts.node,
    discoveryTopic: config.discoveryTopic,
    // Announced on every configured peer network too, in its binding's format (issue #27).
    peerNetworks: config.networks.map(({ name, binding, discoveryTopic }) => ({
      name,
      binding,
      discoveryTopic,
      node: peerNetworks.nodeOf(name)!.transport,
    })),
    log: deps.log,
  });
  onClose(() => published.stop());
  await published.start();
  const transport = countingTransport(network.gateway, settled(agentsJoined));
  const logosPeers = () => transport.peerCount?.();
  countPeersWith(logosPeers);
  onClose(() => countPeersWith(undefined));
  // Readiness waits only for peers that are sure to come: those the node dials and the in-process agents. Agents of
  // their own dial the gateway when they come, perhaps through a Service that sends nothing to a pod until it is
  // ready: waiting for them could wait for good.
  const awaitedPeers = dialsPeers(settings) || ownAgents.length > 0 ? logosPeers : () => undefined;
  const rateLimiter = await rateLimiterFromConfig(config, stores.sql);
  if (rateLimiter) onClose(() => rateLimiter.close());

  // A peer binding's agent is reached on its network's node, at a content topic of its binding.
  const peerAddress = peerAddressRule(config.networks);
  // Pilot's identity and pins, kept in the data folder, made only when a pilot agent is first heard (or loaded).
  const peers = peerContext(dataFolderOf(config), config.maxAgents);
  const directory: AgentDirectory = new AgentDirectory({
    store: stores.directory,
    ownIds: [...ownAgents, ...published.agents, ...(deps.agents ?? [])].map((agent) => agent.card.id),
    offlineAfterMs: config.offlineAfterMs,
    maxAgents: config.maxAgents,
    forgetAfterMs: config.forgetAfterMs,
    // A pilot agent forgotten loses its first-contact pins too (made only if a pilot agent was ever heard).
    forgotten: (entry) => {
      if (entry.peerVerified?.binding === 'pilot') peers.pilot().pins.forgetInbox(entry.address);
    },
    // The engine is made below; the directory forgets nothing before its first hourly look.
    keep: (entry): boolean => engine.runsTaskAt(entry.address),
    allowUnverified: config.allowUnverifiedAgents,
    reaches: (address) => network.reaches(address) || peerAddress(address),
    // A stored peer card is verified again as this run configures its network (its card keys, pilot's pins).
    readPeer: storedPeerCardReader(config.networks, peers),
    log: deps.log,
  });
  onClose(() => directory.flush());
  await directory.load();
  const forgetting = setInterval(() => directory.forgetUnheard(), FORGET_CHECK_MS).unref();
  onClose(() => clearInterval(forgetting));
  for (const agent of [...ownAgents, ...published.agents, ...(deps.agents ?? [])]) {
    const verified = agent.signedCard ? verifyLogosCard(agent.signedCard) : undefined;
    directory.registerOwn(agent.card, verified?.ok ? verified : undefined);
  }

  // The root serves the configured default, else the first agent this start was configured with; never whatever the
  // directory happens to list first (a stale entry from an earlier run, offline, would hang every call at the root).
  const defaultAgentId = config.defaultAgent ?? [...ownAgents, ...(deps.agents ?? [])][0]?.card.id;
  if (config.defaultAgent && !directory.get(config.defaultAgent)) {
    deps.log(`defaultAgent "${config.defaultAgent}" has not announced itself yet; the root answers 404 until it does`);
  }

  const payer = deps.payer;
  const spending = spendingRules(config);
  const unpayable = payer && limitsBelowFeeCap(spending.limits, payer.feeCap);
  if (unpayable) deps.log(unpayable);
  const payments = payer
    ? new TaskPayments({
        payer,
        store: stores.payments,
        network: config.payments.sequencerUrl ?? payer.rail,
        ...spending,
        inDoubtWaitMs: config.payments.inDoubtWaitMs,
      })
    : undefined;
  const push = new PushNotificationService(stores.push, {
    allowPrivate: config.pushAllowPrivate,
    allowNetworks: config.pushAllowNetworks,
    log: deps.log,
    readChange: decodeChange,
  });
  const wireBindings = new WireBindings((name) => peerNetworks.nodeOf(name)?.transport, peers);
  const engine = new TaskEngine({
    store,
    onChange: (change) => {
      countStatesEntered(change);
      void push.changed(change.task, change.events);
    },
    transport,
    agentTimeoutMs: config.agentTimeoutMs,
    cancelTimeoutMs: config.cancelTimeoutMs,
    approvalTimeoutMs: config.payments.approvalTimeoutMs,
    // A published HTTP agent's limits are checked before its task is paid for: over them, nothing is paid.
    admitAhead: (task) => published.admitAhead(task.agentId, task.taskId),
    bindingOf: (address, agentId) =>
      wireBindings.of(directory.dialectAt(address, agentId), directory.networkAt(address)),
    ...(stores.replicas ? { replicas: stores.replicas } : {}),
    // A refund recorded missing is looked for again every 10 s: one that lands late corrects its task's receipt.
    ...(payments ? { payments, refundRecheckMs: 10_000 } : {}),
    log: deps.log,
  });
  onClose(() => engine.stop());
  await engine.start();
  // Deliveries not made by the time it stops stay in the outbox for the next start.
  onClose(() => push.stop(config.shutdownGraceMs));
  push.start();
  const discovery = new DiscoveryListener(transport, directory, config.discoveryTopic, (address) =>
    engine.agentRestarted(address),
  );
  onClose(() => discovery.stop());
  discovery.start();
  const peerDiscovery = new PeerDiscovery(
    config.networks.flatMap(({ name, binding, cardKeys, discoveryTopic }) =>
      binding ? [{ name, binding, cardKeys, discoveryTopic, node: peerNetworks.nodeOf(name)!.transport }] : [],
    ),
    directory,
    peers,
  );
  onClose(() => peerDiscovery.stop());
  peerDiscovery.start();

  const shutdown = new AbortController();
  // The public URL depends on the bound port when port 0 asks for any free one, so listen first.
  let app: Hono | undefined;
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve(
      {
        fetch: (request, env) => app!.fetch(request, env),
        port: config.port,
        hostname: config.host,
        serverOptions: slowClientLimits(config),
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  let grpc: GrpcServer | undefined;
  // Drain first: calls in flight answer with their task as it stands and streams end, new ones get 503, then the
  // servers close.
  onClose(() => {
    shutdown.abort();
    return Promise.all([closeServer(server, config.shutdownGraceMs), grpc?.stop(config.shutdownGraceMs)]);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = publicBaseUrlOf(config, port);
  const apiKeys = new ApiKeys(config.apiKeys);
  const rateLimit = rateLimiter ? { limiter: rateLimiter, trustProxy: config.trustProxy } : undefined;
  grpc =
    config.grpcPort === undefined
      ? undefined
      : await listenGrpc({
          host: config.host,
          port: config.grpcPort,
          addressOf: (boundPort) => grpcPublicAddressOf(config, url, boundPort),
          directory,
          engine,
          store,
          publicBaseUrl: url,
          defaultAgentId,
          apiKeys,
          maxMessageBytes: config.maxBodyBytes,
          push,
          shutdown: shutdown.signal,
          ...(rateLimit ? { rateLimit } : {}),
          log: deps.errorLog ?? consoleLog,
          logger: deps.logger,
        }).catch((error: unknown) => {
          throw new ConfigError(`grpcPort (LOGOS_A2A_GRPC_PORT): ${(error as Error).message}`);
        });
  app = createApp({
    directory,
    engine,
    store,
    publicBaseUrl: url,
    defaultAgentId,
    cardShape: config.cardShape,
    maxBodyBytes: config.maxBodyBytes,
    sseHeartbeatMs: config.sseHeartbeatMs,
    ...(config.adminToken ? { adminToken: config.adminToken } : {}),
    cardSigningKey: { alg: 'ES256', secretKey: cardSecret, jku: `${url}${JWKS_PATH}` },
    apiKeys,
    ...(payments ? { payments } : {}),
    shutdown: shutdown.signal,
    push,
    ...(deps.errorLog ? { log: deps.errorLog } : {}),
    logger: deps.logger,
    logosPeers: awaitedPeers,
    ...(rateLimit ? { rateLimit } : {}),
    ...(grpc ? { grpcAddress: grpc.address } : {}),
  });

  await agentsJoined;
  return {
    app,
    engine,
    store,
    directory,
    discovery,
    peerDiscovery,
    network,
    peerNetworks,
    push,
    url,
    port,
    ...(grpc ? { grpcAddress: grpc.address } : {}),
    ...(defaultAgentId !== undefined ? { defaultAgentId } : {}),
    ...(payer ? { payer } : {}),
    stop: closeAll,
  };
}

/**
 * The Node server's limits on slow clients (config.ts: headersTimeoutMs, requestTimeoutMs). Node looks for
 * connections past them only every `connectionsCheckingInterval` (30 s by default, longer than the limits
 * themselves), so it looks four times per header limit, at most once a second.
 */
function slowClientLimits(config: GatewayConfig) {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(config.headersTimeoutMs / 4)),
  };
}

/**
 * Each state a change enters counts in the task-state metric, by agent and state (`completed`, `input_required`…).
 * The agent is read from the gateway's own `metadata.logos` as it is, at every change of every task: its whole
 * schema need not be checked for one field.
 */
function countStatesEntered(change: TaskChange): void {
  const logos = change.task.metadata?.logos;
  const agent = isPlainObject(logos) && typeof logos.agentId === 'string' ? logos.agentId : 'unknown';
  for (const { payload } of change.events) {
    const status =
      payload?.$case === 'statusUpdate'
        ? payload.value.status
        : payload?.$case === 'task'
          ? payload.value.status
          : undefined;
    if (status) metrics.taskStates.inc({ agent, state: stateLabel(status.state) });
  }
}

const stateLabels = new Map<TaskState, string>();

/** A state's label in the task-state metric, made once per state. */
function stateLabel(state: TaskState): string {
  let label = stateLabels.get(state);
  if (label === undefined) stateLabels.set(state, (label = TaskState[state].replace(/^TASK_STATE_/, '').toLowerCase()));
  return label;
}

/**
 * Closes the server within `graceMs`, the shutdown signal already aborted (every new request answered 503 with
 * Retry-After and Connection: close). First the connections are left open while they last, for at most the
 * keep-alive timeout the server announced (`Keep-Alive: timeout=5`): a client may send on an idle one up to then, and
 * had the server closed it at once, that request would meet a reset instead of the 503 that sends it elsewhere. Node
 * closes each as it goes idle past the timeout, or after its 503. Then the server stops listening, closes the idle
 * connections as they come (a stream that just ended leaves one behind), and at the deadline cuts what is left.
 */
async function closeServer(server: ServerType, graceMs: number): Promise<void> {
  const http = server as ServerType & {
    keepAliveTimeout?: number;
    closeIdleConnections?: () => void;
    closeAllConnections?: () => void;
  };
  const started = Date.now();
  const lingerUntil = started + Math.min(graceMs, http.keepAliveTimeout ?? 5_000);
  while (Date.now() < lingerUntil && (await openConnections(server)) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => http.closeIdleConnections?.(), 50);
    const deadline = setTimeout(() => http.closeAllConnections?.(), Math.max(0, started + graceMs - Date.now()));
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    http.closeIdleConnections?.();
  });
}

function openConnections(server: ServerType): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
}

/** A statement's first word, lowercased (`select`, `with`, `begin`…): a label with few values. */
function firstWord(statement: string): string {
  return /^\s*([a-z]+)/i.exec(statement)?.[1]?.toLowerCase() ?? 'other';
}
