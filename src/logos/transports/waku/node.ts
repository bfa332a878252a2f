/**
 * The libp2p node under the `waku` transport: a Waku Relay node, i.e. gossipsub spoken as `/vac/waku/relay/2.0.0`
 * with the parameters nwaku uses (waku_relay/protocol.nim) and js-waku's message id and signature policy, plus the
 * protocols nwaku expects of a relay peer (identify and ping; the metadata protocol is in `metadata.ts`).
 */
import { createHash } from 'node:crypto';
import { GossipSub, type GossipsubOpts } from '@chainsafe/libp2p-gossipsub';
import { noise } from '@chainsafe/libp2p-noise';
import { identify } from '@libp2p/identify';
import type { Libp2p, PrivateKey } from '@libp2p/interface';
import { mplex } from '@libp2p/mplex';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { webSockets } from '@libp2p/websockets';
import { all as anyWebSocketAddress } from '@libp2p/websockets/filters';
import { createLibp2p, type Libp2pOptions } from 'libp2p';
import { batchingWrites } from './write-batching.ts';

export const RELAY_CODEC = '/vac/waku/relay/2.0.0';

export type WakuLibp2p = Libp2p<{ pubsub: GossipSub; identify: unknown; ping: unknown }>;

/**
 * Gossipsub as nwaku configures it for Waku Relay (GossipsubParameters and TopicParameters in
 * waku_relay/protocol.nim), and as js-waku's relay does: message id = sha256(data), no libp2p-level signatures
 * (StrictNoSign: Waku messages are anonymous at that layer), no floodsub fallback.
 */
export function relayGossipsubOptions(overrides: Partial<GossipsubOpts> = {}): Partial<GossipsubOpts> {
  return {
    globalSignaturePolicy: 'StrictNoSign',
    // OpenSSL's SHA-256: gossipsub hashes every message it sees, a kilobyte or more each.
    msgIdFn: (message) => createHash('sha256').update(message.data).digest(),
    fallbackToFloodsub: false,
    // IDONTWANT goes only to peers speaking gossipsub v1.2 (/meshsub/1.2.0), and a relay node speaks only the relay
    // codec, so none is ever sent; but gossipsub builds and encodes one for every message it receives over this size
    // before finding nobody to send it to. Never is the same wire without that work.
    idontwantMinDataSize: Number.POSITIVE_INFINITY,
    floodPublish: true,
    allowPublishToZeroTopicPeers: true,
    ignoreDuplicatePublishError: true,
    D: 6,
    Dlo: 4,
    Dhi: 8,
    Dscore: 6,
    Dout: 3,
    Dlazy: 6,
    heartbeatInterval: 1_000,
    mcacheLength: 6,
    mcacheGossip: 3,
    fanoutTTL: 60_000,
    seenTTL: 120_000,
    pruneBackoff: 60_000,
    unsubcribeBackoff: 5_000,
    gossipFactor: 0.25,
    scoreThresholds: {
      gossipThreshold: -100,
      publishThreshold: -1_000,
      graylistThreshold: -10_000,
      opportunisticGraftThreshold: 0,
    },
    scoreParams: {
      decayInterval: 12_000,
      decayToZero: 0.01,
      retainScore: 600_000,
      appSpecificWeight: 0,
      IPColocationFactorWeight: -50,
      IPColocationFactorThreshold: 5,
      // Several local parties (a gateway and its agents) on one host would otherwise push each other below the
      // publish threshold: nwaku's colocation penalty is meant for the open network, not loopback.
      IPColocationFactorWhitelist: new Set(['127.0.0.1', '::1']),
      behaviourPenaltyWeight: -10,
      behaviourPenaltyDecay: 0.986,
    },
    ...overrides,
    // The transport hands its own publications to its readers itself (waku.ts): gossipsub's emitSelf would also list
    // this node among the recipients, parsing its peer id from a string at every publish, and its readers would
    // hear each one twice; so it stays off whatever the overrides say.
    emitSelf: false,
  };
}

/** nwaku's per-shard scoring (TopicParameters): rewards timely peers, punishes invalid messages hard. */
export const RELAY_TOPIC_SCORE_PARAMS = {
  topicWeight: 1,
  timeInMeshWeight: 0.01,
  timeInMeshQuantum: 1_000,
  timeInMeshCap: 10,
  firstMessageDeliveriesWeight: 1,
  firstMessageDeliveriesDecay: 0.5,
  firstMessageDeliveriesCap: 10,
  meshMessageDeliveriesWeight: 0,
  meshMessageDeliveriesDecay: 0,
  meshMessageDeliveriesCap: 0,
  meshMessageDeliveriesThreshold: 0,
  meshMessageDeliveriesWindow: 0,
  meshMessageDeliveriesActivation: 0,
  meshFailurePenaltyWeight: 0,
  meshFailurePenaltyDecay: 0,
  invalidMessageDeliveriesWeight: -100,
  invalidMessageDeliveriesDecay: 0.5,
};

export interface NodeOptions {
  privateKey: PrivateKey;
  listen: string[];
  gossipsub?: Partial<GossipsubOpts>;
  peerDiscovery?: Libp2pOptions['peerDiscovery'];
  userAgent: string;
  dialTimeoutMs: number;
}

export async function createRelayLibp2p(options: NodeOptions): Promise<WakuLibp2p> {
  const gossipsubInit = relayGossipsubOptions(options.gossipsub);
  const node = await createLibp2p({
    start: false,
    privateKey: options.privateKey,
    addresses: { listen: options.listen },
    // A closing socket waits this long for its last bytes to drain (libp2p's default is 500 ms).
    transports: [tcp({ socketCloseTimeout: 250 }), webSockets({ filter: anyWebSocketAddress })],
    connectionEncrypters: [
      (components: Parameters<ReturnType<typeof noise>>[0]) => batchingWrites(noise()(components)),
    ],
    // js-waku speaks mplex only; nwaku offers mplex and yamux.
    streamMuxers: [mplex()],
    connectionManager: { dialTimeout: options.dialTimeoutMs },
    peerDiscovery: options.peerDiscovery ?? [],
    services: {
      identify: identify({ agentVersion: options.userAgent }),
      ping: ping(),
      pubsub: (components: ConstructorParameters<typeof GossipSub>[0]) => {
        const gossipsub = new GossipSub(components, gossipsubInit);
        // Same engine, Waku's protocol id: peers negotiate relay, not plain gossipsub.
        gossipsub.multicodecs = [RELAY_CODEC];
        return gossipsub;
      },
    },
  });
  return node as unknown as WakuLibp2p;
}

/**
 * Stops the node without leaving timers behind: gossipsub 14 does not clear its pending heartbeat on stop, and
 * libp2p's address manager schedules a debounced update when its listeners close; both would keep the process alive
 * for up to a second after `stop()` returned.
 */
export async function stopRelayLibp2p(node: WakuLibp2p): Promise<void> {
  const pubsub = node.services.pubsub;
  const status = (pubsub as unknown as { status?: { heartbeatTimeout?: ReturnType<typeof setTimeout> } }).status;
  const heartbeat = status?.heartbeatTimeout;
  // gossipsub marks itself stopped before its first await, so no heartbeat can be scheduled after this line.
  const gossipsubStopped = pubsub.stop();
  if (heartbeat !== undefined) clearTimeout(heartbeat);
  await gossipsubStopped;
  await node.stop();
  const addressManager = (node as unknown as { components?: { addressManager?: Record<string, unknown> } }).components
    ?.addressManager;
  const refresh = addressManager?.['_updatePeerStoreAddresses'] as { stop?: () => void } | undefined;
  refresh?.stop?.();
}
