/**
 * The other side of peer exchange, for tests: js-waku has no server and the tests run no nwaku. A node can serve
 * `/vac/waku/peer-exchange/2.0.0-alpha1` with whatever answer a test scripts, and a relay node with a secp256k1 key
 * (ours are Ed25519, which no ENR can carry) stands for a fleet node whose signed record (EIP-778) is handed out.
 */
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { IncomingStreamData, Libp2p, PrivateKey } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { ENR, EnrCreator } from '@waku/enr';
import { proto_peer_exchange } from '@waku/proto';
import { encodeRelayShard } from '@waku/utils';
import { readFrame, writeFrame } from '../../src/logos/transports/waku/length-prefixed.ts';
import { serveMetadata } from '../../src/logos/transports/waku/metadata.ts';
import { createRelayLibp2p, stopRelayLibp2p, type WakuLibp2p } from '../../src/logos/transports/waku/node.ts';
import { PEER_EXCHANGE_CODEC } from '../../src/logos/transports/waku/peer-exchange.ts';

/** Serves peer exchange: each request is answered with the bytes `answer` gives for it. Returns the requests seen. */
export async function servePeerExchange(node: Libp2p, answer: (request: number) => Uint8Array): Promise<number[]> {
  const requested: number[] = [];
  await node.handle(PEER_EXCHANGE_CODEC, ({ stream }: IncomingStreamData) => {
    void readFrame(stream.source, 1_024)
      .then((frame) => {
        const numPeers = Number(proto_peer_exchange.PeerExchangeRPC.decode(frame!).query?.numPeers ?? 0n);
        requested.push(numPeers);
        return writeFrame(stream, answer(requested.length), 5_000);
      })
      .catch(() => stream.abort(new Error('peer exchange test server failed')));
  });
  return requested;
}

/** A well-formed answer listing these records. */
export function answerWith(records: Uint8Array[]): Uint8Array {
  return proto_peer_exchange.PeerExchangeRPC.encode({ response: { peerInfos: records.map((enr) => ({ enr })) } });
}

/** A relay node with a secp256k1 key on 127.0.0.1, answering Waku metadata for its cluster. */
export async function secp256k1RelayNode(
  clusterId: number,
): Promise<{ node: WakuLibp2p; privateKey: PrivateKey; stop(): Promise<void> }> {
  const privateKey = (await generateKeyPair('secp256k1')) as unknown as PrivateKey;
  const node = await createRelayLibp2p({
    privateKey,
    listen: ['/ip4/127.0.0.1/tcp/0'],
    userAgent: 'peer-exchange-test',
    dialTimeoutMs: 5_000,
  });
  await serveMetadata(node, () => ({ clusterId, shards: [] }));
  await node.start();
  return { node, privateKey, stop: () => stopRelayLibp2p(node) };
}

export interface RecordFields {
  clusterId?: number;
  shards?: number[];
  relay?: boolean;
}

/** The node's signed record: its TCP address, and its cluster, shards and relay capability when given. */
export async function signedRecord(
  node: Libp2p,
  privateKey: PrivateKey,
  fields: RecordFields = {},
): Promise<Uint8Array> {
  const enr = EnrCreator.fromPublicKey(privateKey.publicKey.raw);
  const address = node.getMultiaddrs()[0]!.decapsulateCode(421); // without /p2p/: the record's key names the peer
  enr.setLocationMultiaddr(multiaddr(address.toString()));
  if (fields.clusterId !== undefined) {
    enr.set('rs', encodeRelayShard({ clusterId: fields.clusterId, shards: fields.shards ?? [] }));
  }
  if (fields.relay !== undefined) {
    enr.waku2 = { relay: fields.relay, store: false, filter: false, lightPush: false };
  }
  return encodeRecord(enr, privateKey.raw);
}

/** EIP-778: rlp([signature, seq, k, v, …]) with the keys sorted, signed over rlp([seq, k, v, …]). */
async function encodeRecord(enr: ENR, secretKey: Uint8Array): Promise<Uint8Array> {
  const content = [
    new Uint8Array([Number(enr.seq)]),
    ...[...enr.keys()].sort().flatMap((key) => [new TextEncoder().encode(key), enr.get(key)!]),
  ];
  const signature = await enr.sign(rlpList(content), secretKey);
  return rlpList([signature, ...content]);
}

function rlpList(items: Uint8Array[]): Uint8Array {
  const payload = concat(items.map(rlpBytes));
  return concat([rlpLength(payload.length, 0xc0), payload]);
}

function rlpBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return concat([rlpLength(bytes.length, 0x80), bytes]);
}

function rlpLength(length: number, offset: number): Uint8Array {
  if (length <= 55) return new Uint8Array([offset + length]);
  const digits: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) digits.unshift(rest % 256);
  return new Uint8Array([offset + 55 + digits.length, ...digits]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}
