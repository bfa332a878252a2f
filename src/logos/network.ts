/**
 * The Logos network the gateway joins, as configured: the in-process memory network, Waku Relay through an
 * embedded node (which can serve the nwaku REST API too), Waku as a light node of service nodes, or Waku Relay
 * through the REST API of a node run elsewhere (nwaku-rest). It hands out the gateway's node and nodes for in-process
 * agents, joined to the same network. Each kind but the default (an embedded relay node) is loaded only when chosen:
 * js-waku's light client and the REST layers are hundreds of modules a start would otherwise load for nothing.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { payloadBytesPerMessage } from './network-presets.ts';
import { loadOrCreateKey } from './secret-key-file.ts';
import type { LogosTransport } from './transport.ts';
import { MemoryNetwork } from './transports/memory.ts';
import { BINDING_SHARD_TOPIC, WakuTransport } from './transports/waku.ts';
import { isWakuAddress } from './transports/waku/identity.ts';
import type { NodeRestServer, NodeRestSettings } from './node-rest/server.ts';

export interface LogosNetwork {
  readonly gateway: LogosTransport;
  /** What the gateway's node is, for people: "Waku relay (cluster 2, 8 shards)". */
  readonly description: string;
  /** A node for an in-process agent (its identity is kept beside the gateway's, so its address survives restarts). */
  agentNode(name: string): LogosTransport;
  /** The LEZ key an in-process agent signs its card with (kept the same way). */
  agentCardKey(name: string): Uint8Array;
  /** Resolves once the gateway can reach that many agents (Waku: relay peers in its mesh), or after `timeoutMs`. */
  ready(agentCount: number, timeoutMs?: number): Promise<boolean>;
  /**
   * Whether `address` is of this network's kind (Waku: a public key; memory: a name). An agent left in the directory
   * by a run on another transport, at an address of the other kind, can never be reached from here.
   */
  reaches(address: string): boolean;
  /** Addresses other processes can join at (Waku multiaddrs); empty for the memory network. */
  joinAddresses(): string[];
  /** Where the embedded node serves the nwaku REST API, when it does. */
  readonly nodeRestUrl?: string;
  /** The node whose REST API the gateway goes through (nwaku-rest). */
  readonly remoteNodeUrl?: string;
  stop(): Promise<void>;
}

/**
 * Where the gateway's Logos side runs: the in-process network, an embedded Waku relay node, a light node, or the
 * REST API of a node run elsewhere.
 */
export type NetworkSettings =
  | { kind: 'memory' }
  | WakuNetworkSettings
  | WakuLightNetworkSettings
  | { kind: 'nwaku-rest'; url: string; keyFile: string; pollIntervalMs: number; maxMessageBytes: number };

interface WakuNetworkCommon {
  /** Peers to stay connected to: the network's entry nodes, then the operator's own. */
  entryNodes: string[];
  peers: string[];
  clusterId: number;
  shards: number;
  maxMessageBytes: number;
  keyFile: string;
}

/** Where a single gateway keeps its node key when none is configured: beside its party key. */
export function defaultNodeKeyFile(keyFile: string): string {
  return join(dirname(keyFile), `${basename(keyFile, '.key')}-node.key`);
}

export interface WakuNetworkSettings extends WakuNetworkCommon {
  kind: 'waku';
  listen: string[];
  /** The node's key, which fixes its peer id (its join address) across restarts; a fresh one per start without. */
  nodeKeyFile?: string | undefined;
  rest?: NodeRestSettings | undefined;
  /** Ask peers that serve peer exchange for more relay peers (the fleets' nodes do). Default off. */
  peerExchange?: boolean | undefined;
  /** The other replicas' relay nodes, by DNS (replica-peers.ts). */
  replicaPeers?: { host: string; port: number } | undefined;
}

/** A light node: the entry nodes and peers are its service nodes (LightPush and Filter). */
export interface WakuLightNetworkSettings extends WakuNetworkCommon {
  kind: 'waku-light';
}

/**
 * Whether the node dials peers of its own (the network's entry nodes, configured peers), which it can wait for. A
 * node given none is dialled by its agents instead, whenever they come.
 */
export function dialsPeers(settings: NetworkSettings): boolean {
  if (settings.kind !== 'waku' && settings.kind !== 'waku-light') return false;
  return settings.entryNodes.length + settings.peers.length > 0;
}

export async function openNetwork(settings: NetworkSettings, memory?: MemoryNetwork): Promise<LogosNetwork> {
  if (settings.kind === 'memory') {
    const network = memory ?? new MemoryNetwork();
    const gateway = network.node('gateway');
    await gateway.start();
    return {
      gateway,
      description: 'in-process (memory)',
      agentNode: (name) => network.node(`agent:${name}`),
      agentCardKey: () => Uint8Array.from(randomBytes(32)),
      ready: async () => true,
      reaches: (address) => !isWakuAddress(address),
      joinAddresses: () => [],
      stop: () => gateway.stop(),
    };
  }
  if (settings.kind === 'waku-light') return openLightNetwork(settings);
  if (settings.kind === 'nwaku-rest') return openRemoteNode(settings);
  const common = {
    clusterId: settings.clusterId,
    numShardsInCluster: settings.shards,
    maxMessageBytes: settings.maxMessageBytes,
  };
  const gateway = new WakuTransport({
    ...common,
    privateKey: loadOrCreateKey(settings.keyFile),
    // A fixed peer id as well: the "join at" address agents were given (/…/p2p/<peer id>) still reaches a
    // restarted gateway. Kept apart from the party key, as WakuTransport's nodeKey says why.
    ...(settings.nodeKeyFile ? { nodeKey: loadOrCreateKey(settings.nodeKeyFile) } : {}),
    listen: settings.listen,
    staticPeers: [...settings.entryNodes, ...settings.peers],
    peerExchange: settings.peerExchange ?? false,
    ...(settings.replicaPeers ? { replicaPeers: settings.replicaPeers } : {}),
  });
  await gateway.start();
  let rest: NodeRestServer | undefined;
  try {
    if (settings.rest) {
      const { startNodeRestServer } = await import('./node-rest/server.ts');
      rest = await startNodeRestServer(gateway, settings.rest);
    }
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  return {
    gateway,
    description: `Waku relay (cluster ${settings.clusterId}, ${settings.shards} shards)`,
    ...(rest ? { nodeRestUrl: rest.url } : {}),
    agentNode: (name) =>
      new WakuTransport({
        ...common,
        privateKey: loadOrCreateKey(join(dirname(settings.keyFile), `agent-${name}.key`)),
        listen: ['/ip4/127.0.0.1/tcp/0'],
        staticPeers: gateway.multiaddrs(),
      }),
    agentCardKey: (name) => loadOrCreateKey(join(dirname(settings.keyFile), `agent-${name}.lez.key`)),
    async ready(agentCount, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (gateway.meshPeerCount(BINDING_SHARD_TOPIC) < agentCount) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return true;
    },
    reaches: isWakuAddress,
    joinAddresses: () => gateway.multiaddrs(),
    async stop() {
      await rest?.stop();
      await gateway.stop();
    },
  };
}

/** Through the REST API of a node run elsewhere; in-process agents use it too, each with its own identity. */
async function openRemoteNode(settings: {
  url: string;
  keyFile: string;
  pollIntervalMs: number;
  maxMessageBytes: number;
}): Promise<LogosNetwork> {
  const { NwakuRestTransport } = await import('./transports/nwaku-rest.ts');
  const node = (key: Uint8Array) =>
    new NwakuRestTransport({
      url: settings.url,
      privateKey: key,
      pollIntervalMs: settings.pollIntervalMs,
      maxPayloadBytes: payloadBytesPerMessage(settings.maxMessageBytes),
    });
  const gateway = node(loadOrCreateKey(settings.keyFile));
  await gateway.start();
  return {
    gateway,
    description: `Waku relay through the REST API of ${gateway.url}`,
    remoteNodeUrl: gateway.url,
    agentNode: (name) => node(loadOrCreateKey(join(dirname(settings.keyFile), `agent-${name}.key`))),
    agentCardKey: (name) => loadOrCreateKey(join(dirname(settings.keyFile), `agent-${name}.lez.key`)),
    // Through REST the mesh cannot be seen; the node's own /health tells whether it has relay peers.
    ready: async () => true,
    reaches: isWakuAddress,
    joinAddresses: () => [],
    stop: () => gateway.stop(),
  };
}

/**
 * The gateway as a light node of service nodes; in-process agents are light nodes of the same service nodes (there
 * is no relay node of ours for them to join).
 */
async function openLightNetwork(settings: WakuLightNetworkSettings): Promise<LogosNetwork> {
  const { WakuLightTransport } = await import('./transports/waku-light.ts');
  const servicePeers = [...settings.entryNodes, ...settings.peers];
  const light = (privateKey: Uint8Array) =>
    new WakuLightTransport({
      privateKey,
      servicePeers,
      clusterId: settings.clusterId,
      numShardsInCluster: settings.shards,
      maxMessageBytes: settings.maxMessageBytes,
    });
  const gateway = light(loadOrCreateKey(settings.keyFile));
  await gateway.start();
  return {
    gateway,
    description: `Waku light node of ${servicePeers.join(', ') || 'no service node'}`,
    agentNode: (name) => light(loadOrCreateKey(join(dirname(settings.keyFile), `agent-${name}.key`))),
    agentCardKey: (name) => loadOrCreateKey(join(dirname(settings.keyFile), `agent-${name}.lez.key`)),
    ready: (_agentCount, timeoutMs = 10_000) =>
      gateway.waitForService(timeoutMs).then(
        () => true,
        () => false,
      ),
    reaches: isWakuAddress,
    joinAddresses: () => [],
    stop: () => gateway.stop(),
  };
}
