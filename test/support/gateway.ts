/** Test fixtures: a real gateway on 127.0.0.1 with a free port, a real SQLite file, real clients. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { SendMessageRequest } from '@a2a-js/sdk';
import { loadConfig, type GatewayConfigInput } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import type { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { conformanceAgent } from '../../src/logos/agents/conformance.ts';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import type { LogosTransport } from '../../src/logos/transport.ts';
import type { Payer } from '../../src/bridge/task-payments.ts';
import type { Logger } from '../../src/observability/logger.ts';
import { eventually } from './eventually.ts';

/**
 * What the test bed's agents run on: the in-process network (the default), or real Waku relay nodes on 127.0.0.1
 * with the gateway on a node of its own, all joined to one hub node, so that every envelope crosses the stock wire
 * (ECIES 1:1 messages, keyed publications, gossipsub over TCP). `LOGOS_A2A_TEST_WIRE=waku` picks the second; the
 * `waku` project of vitest.config.ts runs a set of end-to-end files that way.
 */
export type TestWire = 'memory' | 'waku';
export const TEST_WIRE: TestWire = process.env.LOGOS_A2A_TEST_WIRE === 'waku' ? 'waku' : 'memory';

/** Where a test's agents get their transport: `node(name)` is a party of its own on the bed's network. */
export interface TestNetwork {
  node(name: string): LogosTransport;
}

/** Relay nodes joined to one hub, each created unstarted (an agent starts its own). */
class WakuTestNetwork implements TestNetwork {
  readonly hub: WakuTransport;

  private constructor(hub: WakuTransport) {
    this.hub = hub;
  }

  static async start(): Promise<WakuTestNetwork> {
    return new WakuTestNetwork(await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'] }));
  }

  node(): WakuTransport {
    return new WakuTransport({ staticPeers: this.hub.multiaddrs() });
  }

  /**
   * Until the gateway and every agent are in the hub's mesh: a message published before is lost, as on a fleet.
   * (gossipsub keeps at most 12 mesh peers: a bed of more parties would need a check per party.)
   */
  meshed(parties: number): Promise<true> {
    return eventually(() => (this.hub.meshPeerCount(DEFAULT_DISCOVERY_TOPIC) >= parties ? true : undefined), 15_000);
  }

  stop(): Promise<void> {
    return this.hub.stop();
  }
}

/** The in-process network, for a test that taps or forges what crosses it (such a file runs on it only). */
export function inProcess(network: TestNetwork): MemoryNetwork {
  if (!(network instanceof MemoryNetwork)) throw new Error('this test needs the in-process network');
  return network;
}

export interface TestBed {
  gateway: Gateway;
  network: TestNetwork;
  agents: LogosAgent[];
  database: string;
  /** Stops the gateway only (agents and network stay, as on a real network). */
  stopGateway(): Promise<void>;
  /** Starts a new gateway on the same database and network (optionally with another wallet). */
  restartGateway(changes?: { payer?: Payer }): Promise<Gateway>;
  close(): Promise<void>;
}

export async function startTestBed(
  options: {
    config?: GatewayConfigInput;
    agents?: (network: TestNetwork) => LogosAgent[];
    payer?: Payer;
    /** The gateway's JSON logger (default: none; messages are dropped). */
    logger?: Logger;
  } = {},
): Promise<TestBed> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-test-'));
  const database = join(dir, 'gateway.db');
  const waku = TEST_WIRE === 'waku' ? await WakuTestNetwork.start() : undefined;
  const network = waku ?? new MemoryNetwork();
  const agents = options.agents
    ? options.agents(network)
    : [
        echoAgent(network.node('agent:echo')),
        conformanceAgent(network.node('agent:conformance'), { resubscribeDelayMs: 400, delayedCompleteMs: 300 }),
      ];
  // A start that fails halfway stops what it started: with vitest's shared workers, nodes left running would stay
  // beside the files that come next.
  const abandon = async (error: unknown): Promise<never> => {
    await Promise.allSettled(agents.map((agent) => agent.stop()));
    await waku?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  };
  await Promise.all(agents.map((agent) => agent.start())).catch(abandon);
  const config = loadConfig({
    env: {},
    // A stop waits at most 1 s (not the 10 s default) for calls still open, such as a call a test leaves hanging to
    // play a crash; the calls a stop answers itself end at once. A test may set its own grace in options.config.
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database,
      agents: [],
      sseHeartbeatMs: 1_000,
      shutdownGraceMs: 1_000,
      transport: waku
        ? {
            kind: 'waku',
            listen: ['/ip4/127.0.0.1/tcp/0'],
            peers: waku.hub.multiaddrs(),
            keyFile: join(dir, 'gateway.key'),
          }
        : { kind: 'memory' },
      ...options.config,
    },
  });
  const deps = {
    ...(network instanceof MemoryNetwork ? { network } : {}),
    agents,
    log: () => undefined,
    ...(options.payer ? { payer: options.payer } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  };
  let gateway = await startGateway(config, deps).catch(abandon);
  await waku?.meshed(agents.length + 1).catch(async (error: unknown) => {
    await gateway.stop();
    return abandon(error);
  });
  let running = true;
  const bed: TestBed = {
    get gateway() {
      return gateway;
    },
    network,
    agents,
    database,
    async stopGateway() {
      if (running) await gateway.stop();
      running = false;
    },
    async restartGateway(changes = {}) {
      await bed.stopGateway();
      gateway = await startGateway({ ...config, port: 0 }, { ...deps, ...changes });
      running = true;
      return gateway;
    },
    async close() {
      await bed.stopGateway();
      await Promise.all(agents.map((agent) => agent.stop()));
      await waku?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bed;
}

export type Binding = 'JSONRPC' | 'HTTP+JSON';

/** The official v1.0 client, from the agent card at `baseUrl`, speaking the chosen binding. */
export function clientFor(baseUrl: string, binding: Binding = 'JSONRPC'): Promise<Client> {
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
    preferredTransports: [binding],
  });
  // The SDK resolves the card path relative to the base, so the base must end in "/".
  return factory.createFromUrl(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
}

let counter = 0;

/** A SendMessage request with a text part; `messageId` picks the conformance scenario. */
export function textMessage(
  text: string,
  extra: {
    messageId?: string;
    taskId?: string;
    contextId?: string;
    configuration?: Record<string, unknown>;
    metadata?: Record<string, unknown>;
  } = {},
) {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: extra.messageId ?? `msg-${++counter}-${Date.now()}`,
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
      ...(extra.contextId ? { contextId: extra.contextId } : {}),
      ...(extra.metadata ? { metadata: extra.metadata } : {}),
    },
    ...(extra.configuration ? { configuration: extra.configuration } : {}),
  });
}

export async function collect<T>(stream: AsyncGenerator<T, void, undefined>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

// The one polling helper, where most tests import it from.
export { eventually };

export async function rpc(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'A2A-Version': '1.0' },
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { result?: any; error?: { code: number; message: string; data?: unknown } },
  };
}
