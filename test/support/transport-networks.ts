/**
 * The four `LogosTransport` implementations, each as a small network of its own on 127.0.0.1 whose parties reach
 * one another, for the contract suite (test/logos/transports/contract.test.ts). What an implementation legitimately
 * lacks is declared here as a capability, so the suite checks that it is absent rather than skipping a test.
 */
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { NwakuRestTransport } from '../../src/logos/transports/nwaku-rest.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { WakuLightTransport } from '../../src/logos/transports/waku-light.ts';
import { startNodeRestServer } from '../../src/logos/node-rest/server.ts';
import type { LogosTransport } from '../../src/logos/transport.ts';
import { eventually } from './eventually.ts';

/** What a transport offers beyond what every one must. */
export interface TransportCapabilities {
  /** `peerCount()` counts connected peers (the memory network and a REST client have none to count). */
  peerCount: boolean;
  /** Addresses are keys, and `addressProof()` signs a LEZ account with them. */
  addressProof: boolean;
}

export interface TransportNetwork {
  /** A started party, connected to the network (its subscriptions may still be settling, see the suite's probes). */
  party(): Promise<LogosTransport>;
  /** Stops every party and whatever node carries them. */
  close(): Promise<void>;
}

export interface TransportImplementation {
  name: 'memory' | 'waku' | 'nwaku-rest' | 'waku-light';
  capabilities: TransportCapabilities;
  open(): Promise<TransportNetwork>;
}

/** Any content topic of the binding: they all share one shard, the one a node joins at start. */
const BINDING_TOPIC = '/logos-a2a/1/contract/json';

/** Stops what was started, last first, on close. */
class Started {
  private readonly stops: (() => Promise<void>)[] = [];
  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }
  async close(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop();
  }
}

/** A relay node in the mesh of the binding's shard, so that what it is given reaches the others. */
async function relayNode(started: Started, staticPeers: string[] = [], listen?: string[]): Promise<WakuTransport> {
  const node = await WakuTransport.create({ staticPeers, ...(listen ? { listen } : {}) });
  started.add(() => node.stop());
  if (staticPeers.length > 0) await eventually(() => node.meshPeerCount(BINDING_TOPIC) > 0 || undefined, 20_000);
  return node;
}

const memory: TransportImplementation = {
  name: 'memory',
  capabilities: { peerCount: false, addressProof: false },
  async open() {
    const network = new MemoryNetwork();
    const started = new Started();
    let parties = 0;
    return {
      async party() {
        const party = network.node(`party-${++parties}`);
        await party.start();
        started.add(() => party.stop());
        return party;
      },
      close: () => started.close(),
    };
  },
};

/** Relay parties around a hub node. */
const waku: TransportImplementation = {
  name: 'waku',
  capabilities: { peerCount: true, addressProof: true },
  async open() {
    const started = new Started();
    const hub = await relayNode(started);
    return {
      party: () => relayNode(started, hub.multiaddrs()),
      close: () => started.close(),
    };
  },
};

/**
 * REST clients, each of a relay node of its own around a hub: a poll drains a topic for every client of a node, so
 * two parties listening on one topic need two nodes.
 */
const nwakuRest: TransportImplementation = {
  name: 'nwaku-rest',
  capabilities: { peerCount: false, addressProof: true },
  async open() {
    const started = new Started();
    const hub = await relayNode(started);
    return {
      async party() {
        const node = await relayNode(started, hub.multiaddrs());
        const rest = await startNodeRestServer(node, { port: 0, host: '127.0.0.1' });
        started.add(() => rest.stop());
        const party = new NwakuRestTransport({ url: rest.url, pollIntervalMs: 20 });
        await party.start();
        started.add(() => party.stop());
        return party;
      },
      close: () => started.close(),
    };
  },
};

/** Light parties (LightPush and Filter) of one service node, over WebSocket as a browser's would be. */
const wakuLight: TransportImplementation = {
  name: 'waku-light',
  capabilities: { peerCount: true, addressProof: true },
  async open() {
    const started = new Started();
    const service = await relayNode(started, [], ['/ip4/127.0.0.1/tcp/0/ws']);
    return {
      async party() {
        const party = new WakuLightTransport({
          servicePeers: service.multiaddrs(),
          clusterId: service.clusterId,
          numShardsInCluster: service.numShardsInCluster,
        });
        await party.start();
        started.add(() => party.stop());
        await party.waitForService(20_000);
        return party;
      },
      close: () => started.close(),
    };
  },
};

export const TRANSPORT_IMPLEMENTATIONS: readonly TransportImplementation[] = [memory, waku, nwakuRest, wakuLight];
