/**
 * The ENRs (EIP-778 records, with Waku's fields of RFC 31) that peer exchange hands out, read and judged: which of
 * them name a relay peer this node can use.
 *
 * A record is read only when its signature verifies under its own key (identity scheme `v4`: secp256k1, which also
 * gives the peer id), so a peer that answers cannot make this node dial an address in someone else's name. It is
 * then kept when what it says agrees with this node: the same cluster when it names one (`rs`/`rsv`), a shard in
 * common when it lists shards, relay among its capabilities when it lists them (`waku2`), and an address this node
 * can dial. A record that says nothing of cluster or shards is kept: the metadata guard asks the peer itself once
 * connected (metadata.ts).
 */

/** A record that passed every check: a peer to dial. */
export interface PeerRecord {
  peerId: string;
  /** Its addresses over TCP (plain or WebSocket), each ending in `/p2p/<peer id>`. */
  multiaddrs: string[];
}

/** Why a record was not kept. */
export type RecordRefusal = 'invalid' | 'other-cluster' | 'other-shards' | 'not-relay' | 'no-address';

export interface LocalNetwork {
  clusterId: number;
  /** The shards this node relays. */
  shards: readonly number[];
}

/** EIP-778's limit on an encoded record. */
export const MAX_RECORD_BYTES = 300;

// js-waku's ENR package (RLP, signature check, Waku's fields) is loaded when the first record arrives: a node whose
// peers serve no peer exchange (every local setup) never loads it.
let enrPackage: Promise<typeof import('@waku/enr')> | undefined;

export async function readPeerRecord(
  bytes: Uint8Array,
  local: LocalNetwork,
): Promise<PeerRecord | { refused: RecordRefusal }> {
  if (bytes.length > MAX_RECORD_BYTES) return { refused: 'invalid' };
  const { EnrDecoder } = await (enrPackage ??= import('@waku/enr'));
  let enr: Awaited<ReturnType<typeof EnrDecoder.fromRLP>>;
  let peerId: string;
  let multiaddrs: string[];
  let shardInfo: { clusterId: number; shards: number[] } | undefined;
  let relay: boolean | undefined;
  try {
    // Throws unless the record decodes and its signature verifies.
    enr = await EnrDecoder.fromRLP(bytes);
    const info = enr.peerInfo;
    if (!info) return { refused: 'invalid' };
    peerId = info.id.toString();
    multiaddrs = info.multiaddrs.map(String);
    shardInfo = enr.shardInfo;
    relay = enr.waku2?.relay;
  } catch {
    return { refused: 'invalid' };
  }
  if (shardInfo && shardInfo.clusterId !== local.clusterId) return { refused: 'other-cluster' };
  if (shardInfo && shardInfo.shards.length > 0 && !shardInfo.shards.some((shard) => local.shards.includes(shard))) {
    return { refused: 'other-shards' };
  }
  if (relay === false) return { refused: 'not-relay' };
  // The node speaks TCP and WebSocket, both over TCP; a record's UDP port is discv5's, not libp2p's.
  const dialable = multiaddrs.filter((address) => address.includes('/tcp/') && !address.includes('/udp/'));
  if (dialable.length === 0) return { refused: 'no-address' };
  return { peerId, multiaddrs: dialable };
}
