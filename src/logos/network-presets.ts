/**
 * The Waku networks a node can join by name, with the values of logos-delivery's presets (`--preset`, in
 * `waku/factory/networks_config.nim`): the cluster, the number of autosharding shards, the largest WakuMessage the
 * fleet relays, and the entry nodes it is reached through.
 *
 * - `logos.dev`: the Logos development fleet, cluster 3 (it was cluster 2 until logos-delivery moved it).
 * - `logos.test`: the Logos test fleet, cluster 2.
 * - `local`: no fleet, only the peers configured; the limits of the fleets, so that what works locally also fits on
 *   them.
 */

export const NETWORK_NAMES = ['logos.dev', 'logos.test', 'local'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

export function isNetworkName(name: string): name is NetworkName {
  return (NETWORK_NAMES as readonly string[]).includes(name);
}

export interface NetworkPreset {
  readonly clusterId: number;
  /** Autosharding: shards in the cluster. */
  readonly shards: number;
  /** Largest encoded WakuMessage relayed (nwaku's `maxMessageSize`; its default, 150 KiB, for all three). */
  readonly maxMessageBytes: number;
  /** Multiaddrs of the fleet's nodes, dialled at start. */
  readonly entryNodes: readonly string[];
  /**
   * Whether a node asks its peers for more by default (peer exchange, RFC 34): the fleets' nodes serve it; `local`
   * means only the peers configured.
   */
  readonly peerExchange: boolean;
}

/** nwaku's DefaultMaxWakuMessageSize, "150KiB". */
export const FLEET_MAX_MESSAGE_BYTES = 150 * 1024;

/**
 * Room a party leaves in every message for the payload's encryption and signature and the WakuMessage's other fields
 * (content topic, timestamp, meta…): 5 KiB, whichever transport carries it.
 */
export const MESSAGE_OVERHEAD_BYTES = 5 * 1024;

/** The largest payload a party hands its transport so that the message carrying it stays within `maxMessageBytes`. */
export function payloadBytesPerMessage(maxMessageBytes: number): number {
  return maxMessageBytes - MESSAGE_OVERHEAD_BYTES;
}

export const NETWORK_PRESETS: Readonly<Record<NetworkName, NetworkPreset>> = {
  'logos.dev': {
    clusterId: 3,
    shards: 8,
    maxMessageBytes: FLEET_MAX_MESSAGE_BYTES,
    peerExchange: true,
    entryNodes: [
      '/dns4/delivery-01.do-ams3.logos.dev.status.im/tcp/30303/p2p/16Uiu2HAmTUbnxLGT9JvV6mu9oPyDjqHK4Phs1VDJNUgESgNSkuby',
      '/dns4/delivery-02.do-ams3.logos.dev.status.im/tcp/30303/p2p/16Uiu2HAmMK7PYygBtKUQ8EHp7EfaD3bCEsJrkFooK8RQ2PVpJprH',
      '/dns4/delivery-01.gc-us-central1-a.logos.dev.status.im/tcp/30303/p2p/16Uiu2HAm4S1JYkuzDKLKQvwgAhZKs9otxXqt8SCGtB4hoJP1S397',
      '/dns4/delivery-02.gc-us-central1-a.logos.dev.status.im/tcp/30303/p2p/16Uiu2HAm8Y9kgBNtjxvCnf1X6gnZJW5EGE4UwwCL3CCm55TwqBiH',
      '/dns4/delivery-01.ac-cn-hongkong-c.logos.dev.status.im/tcp/30303/p2p/16Uiu2HAm8YokiNun9BkeA1ZRmhLbtNUvcwRr64F69tYj9fkGyuEP',
      '/dns4/delivery-02.ac-cn-hongkong-c.logos.dev.status.im/tcp/30303/p2p/16Uiu2HAkvwhGHKNry6LACrB8TmEFoCJKEX29XR5dDUzk3UT3UNSE',
    ],
  },
  'logos.test': {
    clusterId: 2,
    shards: 8,
    maxMessageBytes: FLEET_MAX_MESSAGE_BYTES,
    peerExchange: true,
    entryNodes: [
      '/dns4/node-01.do-ams3.logos.test.status.im/tcp/30303/p2p/16Uiu2HAmQ9X2xDfPG3uL77V9piYDhjq14JhKCtcmNYsTMKNqrKCj',
      '/dns4/node-02.do-ams3.logos.test.status.im/tcp/30303/p2p/16Uiu2HAmB8NYprrfQrgWVzsJtYWkfjsXbmJEGNMG6othXsQ53BwG',
      '/dns4/node-01.gc-us-central1-a.logos.test.status.im/tcp/30303/p2p/16Uiu2HAmF8WtwGPmeGHgYAX2277jHgy5cW9F7zsB8EqUjBZQAZQ3',
      '/dns4/node-02.gc-us-central1-a.logos.test.status.im/tcp/30303/p2p/16Uiu2HAmUuXhUW9bdJpzN1kfDziFiUZo4bszTk66cvr7uuyCHXR7',
      '/dns4/node-01.ac-cn-hongkong-c.logos.test.status.im/tcp/30303/p2p/16Uiu2HAmL3oU95jh1BZHozn3uNhx8HEneirgr8M1jEAapzXGDqRF',
      '/dns4/node-02.ac-cn-hongkong-c.logos.test.status.im/tcp/30303/p2p/16Uiu2HAm28CoBZjpyxsanC8tQpbvZ7bZJnVYuB1EgFzb571qpWsV',
    ],
  },
  local: { clusterId: 2, shards: 8, maxMessageBytes: FLEET_MAX_MESSAGE_BYTES, entryNodes: [], peerExchange: false },
};

/**
 * The networks the peer bindings' agents run on (docs/bindings/), by the binding's name, for the gateway's
 * `networks` setting. Each binding's topics all land on one shard of its cluster.
 *
 * - `logos-agent`: nwaku started with `--cluster-id=2` (logos-delivery's LogosDev values from before it moved to
 *   cluster 3): cluster 2, 8 shards; shard 4. No fleet: the agents' own nodes, given as bootstrap peers.
 * - `pilot`: the same cluster 2 (pilot's own nwaku, started the same way); shard 7.
 * - `lp-0008`: `logos.dev` as its agents pin it, cluster 3; shard 6.
 */
export const PEER_NETWORK_NAMES = ['logos-agent', 'pilot', 'lp-0008'] as const;
export type PeerNetworkName = (typeof PEER_NETWORK_NAMES)[number];

const OWN_NODES_CLUSTER_2: NetworkPreset = {
  clusterId: 2,
  shards: 8,
  maxMessageBytes: FLEET_MAX_MESSAGE_BYTES,
  entryNodes: [],
  peerExchange: false,
};

export const PEER_NETWORK_PRESETS: Readonly<Record<PeerNetworkName, NetworkPreset>> = {
  'logos-agent': OWN_NODES_CLUSTER_2,
  pilot: OWN_NODES_CLUSTER_2,
  'lp-0008': NETWORK_PRESETS['logos.dev'],
};

/** Every preset a network of the `networks` setting may name: the fleets' and the peer bindings'. */
export const ANY_NETWORK_NAMES = [...NETWORK_NAMES, ...PEER_NETWORK_NAMES] as const;
export type AnyNetworkName = (typeof ANY_NETWORK_NAMES)[number];

export function isAnyNetworkName(name: string): name is AnyNetworkName {
  return (ANY_NETWORK_NAMES as readonly string[]).includes(name);
}

export function anyNetworkPreset(name: AnyNetworkName): NetworkPreset {
  return isNetworkName(name) ? NETWORK_PRESETS[name] : PEER_NETWORK_PRESETS[name];
}

export function isPeerNetworkName(name: string): name is PeerNetworkName {
  return (PEER_NETWORK_NAMES as readonly string[]).includes(name);
}
