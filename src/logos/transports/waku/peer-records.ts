/**
 * The ENRs (EIP-778 records, with Waku's fields of RFC 31) that peer exchange hands out, read and judged: which of
 * them name a relay peer this node can use.
 *
 * A record is read only when its signature verifies under its own key (identity scheme `v4`: secp256k1, which also
 * gives the peer id): the peer id it names is then the one that signed it, though anyone can make a key and sign a
 * record, so this says nothing of whether the peer is honest (hence `dialableAddresses` below). It is then kept when what it says agrees with this node: the same cluster when it names one (`rs`/`rsv`), a shard in
 * common when it lists shards, relay among its capabilities when it lists them (`waku2`), and an address this node
 * can dial. A record that says nothing of cluster or shards is kept: the metadata guard asks the peer itself once
 * connected (metadata.ts).
 */

import { isIP } from 'node:net';
import { multiaddr } from '@multiformats/multiaddr';
import { AddressPolicy } from '../../../address-policy.ts';

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

const PUBLIC = new AddressPolicy();
const PRIVATE_TOO = new AddressPolicy({ allowPrivate: true });

/**
 * The addresses of a record this node may dial, given the host of the peer whose answer listed it: by name (DNS),
 * or at an IP address that is public. A record costs nothing to make, and one naming 127.0.0.1:5432 would have the
 * node connect to its own database. Only when the answering peer is itself at a non-public address (a fleet of
 * one's own network, or a test on one machine) are non-public addresses dialled too.
 */
export function dialableAddresses(addresses: readonly string[], answeredFrom: string | undefined): string[] {
  const policy =
    answeredFrom !== undefined && isIP(answeredFrom) !== 0 && PUBLIC.refusal(answeredFrom) !== undefined
      ? PRIVATE_TOO
      : PUBLIC;
  return addresses.filter((address) => {
    const { host } = multiaddr(address).toOptions();
    return isIP(host) === 0 || policy.refusal(host) === undefined;
  });
}
