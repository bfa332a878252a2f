/**
 * A Waku Relay node for the outside agents of this folder, with stock packages only: libp2p's gossipsub spoken
 * under Waku Relay's protocol id (`/vac/waku/relay/2.0.0`; gossipsub takes its protocol ids from `multicodecs`, which
 * its constructor option does not set, so it is assigned after construction), unsigned, message ids SHA-256 of the
 * message; `@waku/sdk`'s libp2p for the cluster (its metadata protocol says which cluster the node is on);
 * `@waku/proto` to read WakuMessages and `@waku/sdk`'s plain encoder to write them. A relay node sees every message
 * on the shards it joins, whatever its content topic, as the peers' nwaku nodes do: an agent with no inbox (lp-0008)
 * finds its tasks that way.
 */
import { GossipSub } from '@chainsafe/libp2p-gossipsub';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { sha256 } from '@noble/hashes/sha2.js';
import { proto_message } from '@waku/proto';
import { createEncoder, defaultLibp2p, utils } from '@waku/sdk';

const RELAY_CODEC = '/vac/waku/relay/2.0.0';

export interface RelayNode {
  /** Publishes `payload` as a plain (version 0) WakuMessage on `contentTopic`. */
  publish(contentTopic: string, payload: Uint8Array): Promise<void>;
  /** Every message on the node's shard: its content topic and payload. */
  onMessage(handler: (contentTopic: string, payload: Uint8Array) => void): void;
  stop(): Promise<void>;
}

/**
 * Joins `clusterId` (8 shards) as a relay node on the shard of `anyTopic` (one of the binding's content topics: they
 * all share a shard), dials `peer`, and resolves once the peer relays that shard too.
 */
export async function joinRelay(peer: string, clusterId: number, anyTopic: string): Promise<RelayNode> {
  const network = { clusterId, numShardsInCluster: 8 };
  const route = (contentTopic: string) => utils.createRoutingInfo(network, { contentTopic });
  const shard = route(anyTopic).pubsubTopic;
  const node = await defaultLibp2p(clusterId, {
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp()],
    hideWebSocketInfo: true,
    services: {
      pubsub: (components: ConstructorParameters<typeof GossipSub>[0]) => {
        const gossipsub = new GossipSub(components, {
          globalSignaturePolicy: 'StrictNoSign',
          msgIdFn: (message) => sha256(message.data),
          fallbackToFloodsub: false,
          allowPublishToZeroTopicPeers: true,
        });
        gossipsub.multicodecs = [RELAY_CODEC];
        return gossipsub;
      },
    },
  } as never);
  const pubsub = (node.services as unknown as { pubsub: GossipSub }).pubsub;
  await node.start();
  pubsub.subscribe(shard);
  await node.dial(multiaddr(peer));
  const deadline = Date.now() + 20_000;
  while (pubsub.getSubscribers(shard).length === 0) {
    if (Date.now() > deadline) throw new Error(`${peer} never joined ${shard}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    async publish(contentTopic, payload) {
      const encoder = createEncoder({ contentTopic, routingInfo: route(contentTopic) });
      const wire = await encoder.toWire({ payload });
      if (wire) await pubsub.publish(shard, wire).catch(() => undefined);
    },
    onMessage(handler) {
      pubsub.addEventListener('message', (event) => {
        if (event.detail.topic !== shard) return;
        try {
          const message = proto_message.WakuMessage.decode(event.detail.data);
          if (message.payload) handler(message.contentTopic, message.payload);
        } catch {
          // not a WakuMessage: a relay node ignores what it cannot read
        }
      });
    },
    stop: async () => await node.stop(),
  };
}

/** The agents' arguments: one JSON object on the command line. */
export function agentArguments<T>(usage: string): T {
  const [json] = process.argv.slice(2);
  if (!json) throw new Error(`usage: ${usage}`);
  return JSON.parse(json) as T;
}

/** Prints one JSON line for the test that drives the agent. */
export const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

/** Stops the node on SIGTERM, then exits. */
export function stopOnSignal(node: RelayNode, ...timers: NodeJS.Timeout[]): void {
  process.once('SIGTERM', () => {
    for (const timer of timers) clearInterval(timer);
    void node.stop().then(() => process.exit(0));
  });
}
