/**
 * Waku metadata (`/vac/waku/metadata/1.0.0`, RFC 66), both ways, as nwaku does it (waku_metadata/protocol.nim and
 * the peer manager's refreshPeerMetadata):
 *
 * - served: a peer's request (its cluster and shards) is answered with our cluster and the shards we relay;
 * - asked: on every new connection we send our own and read the peer's answer. A peer that reports another
 *   cluster, or none, or that does not answer, is hung up on: it is not part of this network, and relaying with it
 *   would mix networks.
 */
import type { Connection, IncomingStreamData, Libp2p } from '@libp2p/interface';
import { proto_metadata } from '@waku/proto';
import { exchange, writeFrame } from './length-prefixed.ts';

export const METADATA_CODEC = '/vac/waku/metadata/1.0.0';
/** nwaku's RpcResponseMaxBytes. */
const MAX_METADATA_BYTES = 1_024;
const METADATA_TIMEOUT_MS = 5_000;

export interface LocalMetadata {
  clusterId: number;
  shards: number[];
}

/** Why a peer was hung up on. */
export type ClusterRefusal =
  { kind: 'other-cluster'; clusterId: number } | { kind: 'no-cluster' } | { kind: 'no-answer'; reason: string };

export function serveMetadata(node: Libp2p, local: () => LocalMetadata): Promise<void> {
  return node.handle(
    METADATA_CODEC,
    ({ stream }: IncomingStreamData) => {
      const { clusterId, shards } = local();
      const response = proto_metadata.WakuMetadataResponse.encode({ clusterId, shards });
      // The request is read (and its content ignored, as nwaku does) before the answer goes out.
      void exchange(stream, undefined, MAX_METADATA_BYTES, METADATA_TIMEOUT_MS)
        .then(() => writeFrame(stream, response, METADATA_TIMEOUT_MS))
        .catch(() => stream.abort(new Error('metadata exchange failed')));
    },
    { runOnLimitedConnection: false },
  );
}

/**
 * Asks every newly connected peer for its metadata and hangs up on one of another cluster. Returns the function
 * that stops watching.
 */
export function guardCluster(
  node: Libp2p,
  local: () => LocalMetadata,
  onRefused: (peer: string, refusal: ClusterRefusal) => void,
): () => void {
  const onConnection = (event: CustomEvent<Connection>): void => {
    const connection = event.detail;
    void checkPeer(connection, local()).then((refusal) => {
      if (!refusal || connection.status !== 'open') return;
      onRefused(connection.remotePeer.toString(), refusal);
      void node.hangUp(connection.remotePeer).catch(() => undefined);
    });
  };
  node.addEventListener('connection:open', onConnection);
  return () => node.removeEventListener('connection:open', onConnection);
}

async function checkPeer(connection: Connection, local: LocalMetadata): Promise<ClusterRefusal | undefined> {
  let answer: Uint8Array | undefined;
  try {
    const stream = await connection.newStream(METADATA_CODEC, { signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
    const request = proto_metadata.WakuMetadataRequest.encode({ clusterId: local.clusterId, shards: local.shards });
    answer = await exchange(stream, request, MAX_METADATA_BYTES, METADATA_TIMEOUT_MS);
  } catch (error) {
    if (connection.status !== 'open') return undefined; // it went away by itself
    return { kind: 'no-answer', reason: (error as Error).message };
  }
  if (!answer) return { kind: 'no-answer', reason: 'the stream ended without an answer' };
  let clusterId: number | undefined;
  try {
    clusterId = proto_metadata.WakuMetadataResponse.decode(answer).clusterId;
  } catch {
    return { kind: 'no-answer', reason: 'the answer does not decode' };
  }
  if (clusterId === undefined) return { kind: 'no-cluster' };
  return clusterId === local.clusterId ? undefined : { kind: 'other-cluster', clusterId };
}

export function describeRefusal(refusal: ClusterRefusal): string {
  switch (refusal.kind) {
    case 'other-cluster':
      return `it is on cluster ${refusal.clusterId}`;
    case 'no-cluster':
      return 'it reported no cluster';
    case 'no-answer':
      return `it did not answer the metadata protocol (${refusal.reason})`;
  }
}
