/**
 * The further Waku networks of the `networks` setting, where the peer bindings' agents live (issue #22 §2): one
 * relay node per distinct cluster, shared by every network configured on it, and the gateway's own node for a
 * cluster it is already on. Networks are looked up by name, so an agent's record names its network and nothing
 * else about it changes with the network (its URL least of all).
 */
import type { LogosTransport } from './transport.ts';
import { WakuTransport } from './transports/waku.ts';

/** One network, its preset resolved (config.ts). */
export interface PeerNetworkSettings {
  readonly name: string;
  readonly clusterId: number;
  readonly shards: number;
  readonly maxMessageBytes: number;
  readonly entryNodes: readonly string[];
  readonly bootstrap: readonly string[];
  readonly listen: readonly string[];
  readonly peerExchange: boolean;
}

/** A node already running on a cluster (the gateway's own), which networks on that cluster use instead of a new one. */
export interface RunningNode {
  readonly clusterId: number;
  readonly shards: number;
  readonly transport: LogosTransport;
  joinAddresses(): string[];
}

export interface ClusterNode {
  readonly clusterId: number;
  /** The configured networks this node serves, by name. */
  readonly networks: readonly string[];
  readonly transport: LogosTransport;
  /** Whether it is a node of its own, started (and stopped) here, rather than the gateway's. */
  readonly own: boolean;
  joinAddresses(): string[];
}

export interface PeerNetworks {
  readonly nodes: readonly ClusterNode[];
  /** The node of a configured network; undefined for a name not configured. */
  nodeOf(network: string): ClusterNode | undefined;
  stop(): Promise<void>;
}

/** The networks grouped by cluster, in the order their clusters first appear. */
export function byCluster(networks: readonly PeerNetworkSettings[]): PeerNetworkSettings[][] {
  const groups = new Map<number, PeerNetworkSettings[]>();
  for (const network of networks) groups.set(network.clusterId, [...(groups.get(network.clusterId) ?? []), network]);
  return [...groups.values()];
}

const unique = (lists: readonly (readonly string[])[]) => [...new Set(lists.flat())];

/**
 * Starts a relay node for each cluster of `networks` that `running` is not on (config.ts has checked that networks
 * on one cluster agree on its shards), or uses `running`. A start that fails stops the nodes started before it.
 */
export async function openPeerNetworks(
  networks: readonly PeerNetworkSettings[],
  running: readonly RunningNode[] = [],
): Promise<PeerNetworks> {
  const nodes: ClusterNode[] = [];
  const stop = async () => {
    for (const node of nodes.splice(0).reverse()) if (node.own) await node.transport.stop();
  };
  try {
    for (const group of byCluster(networks)) {
      const { clusterId, shards, maxMessageBytes } = group[0]!;
      const names = group.map((network) => network.name);
      const shared = running.find((node) => node.clusterId === clusterId && node.shards === shards);
      if (shared) {
        nodes.push({
          clusterId,
          networks: names,
          transport: shared.transport,
          own: false,
          joinAddresses: () => shared.joinAddresses(),
        });
        continue;
      }
      const listen = unique(group.map((network) => network.listen));
      const transport = new WakuTransport({
        clusterId,
        numShardsInCluster: shards,
        maxMessageBytes,
        listen: listen.length > 0 ? listen : ['/ip4/127.0.0.1/tcp/0'],
        staticPeers: unique(group.flatMap((network) => [network.entryNodes, network.bootstrap])),
        peerExchange: group.some((network) => network.peerExchange),
      });
      await transport.start();
      nodes.push({ clusterId, networks: names, transport, own: true, joinAddresses: () => transport.multiaddrs() });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    nodeOf: (network) => nodes.find((node) => node.networks.includes(network)),
    stop,
  };
}
