/**
 * Peer exchange (RFC 34) on the `waku` node: a node that knows only one peer learns of others from it and relays
 * with them, and redials them when they drop; records of another cluster, other shards, no relay or a bad signature
 * are not dialled; a malformed answer does not stop the node; nothing is asked when it is off or the node has its
 * peers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Libp2p } from '@libp2p/interface';
import { proto_message } from '@waku/proto';
import { WakuTransport, type WakuTransportOptions } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/gateway.ts';
import {
  answerWith,
  secp256k1RelayNode,
  servePeerExchange,
  signedRecord,
  type RecordFields,
} from '../../support/peer-exchange-server.ts';

const TOPIC = '/logos-a2a/1/px-test/json';
const stops: (() => Promise<void>)[] = [];

async function node(options: WakuTransportOptions = {}): Promise<WakuTransport> {
  const transport = await WakuTransport.create({ peerWaitMs: 2_000, ...options });
  stops.push(() => transport.stop());
  return transport;
}

/** A fleet-like node with a signed record, relaying the test topic's shard; counts the connections it was given. */
async function recordedPeer(clusterId: number, fields: RecordFields = {}) {
  const peer = await secp256k1RelayNode(clusterId);
  stops.push(peer.stop);
  const connections = { count: 0 };
  peer.node.addEventListener('connection:open', () => (connections.count += 1));
  const record = await signedRecord(peer.node, peer.privateKey, fields);
  return { ...peer, record, connections };
}

afterAll(() => Promise.all(stops.map((stop) => stop())));

/** Generous: the machine running the tests may be busy. */
const soon = <T>(check: () => T | undefined) => eventually(check, 20_000);
const connected = (from: Libp2p, peerId: string) =>
  from.getConnections().some((c) => c.remotePeer.toString() === peerId && c.status === 'open');

describe.concurrent('peer exchange', { timeout: 60_000 }, () => {
  it('finds a peer beyond its static peers through one that serves peer exchange, and relays with it', async () => {
    const entry = await node();
    const far = await recordedPeer(2, { clusterId: 2, shards: [0, 1, 2, 3, 4, 5, 6, 7], relay: true });
    const requests = await servePeerExchange(entry.node!, () => answerWith([far.record]));
    // Asked again soon should a dial fail on a busy machine (a fleet node is asked every minute).
    const a = await node({ staticPeers: entry.multiaddrs(), peerExchange: { intervalMs: 500 } });
    const shard = a.pubsubTopicFor(TOPIC);
    const heard: string[] = [];
    far.node.services.pubsub.subscribe(shard);
    far.node.services.pubsub.addEventListener('message', (event) => {
      const message = proto_message.WakuMessage.decode(event.detail.data);
      heard.push(new TextDecoder().decode(message.payload));
    });

    await soon(() => (connected(a.node!, far.node.peerId.toString()) ? true : undefined));
    expect(requests[0]).toBe(12);
    // The far node was reached directly: the entry node never connected to it.
    expect(connected(entry.node!, far.node.peerId.toString())).toBe(false);
    await soon(() => (far.node.services.pubsub.getMeshPeers(shard).length > 0 ? true : undefined));
    await a.publish(TOPIC, new TextEncoder().encode('through a peer found by exchange'));
    await soon(() => (heard.length === 1 ? true : undefined));
    expect(heard).toEqual(['through a peer found by exchange']);
    expect(a.refusedPeers).toBe(0);
  });

  it('dials no record of another cluster, other shards, no relay or a signature that does not verify', async () => {
    const entry = await node();
    // Without the light protocols the node relays one shard: the binding's, the test topic's.
    const probe = new WakuTransport({ serveLightClients: false });
    const ourShard = Number(probe.pubsubTopicFor(TOPIC).split('/').pop());
    const otherCluster = await recordedPeer(99, { clusterId: 99, shards: [ourShard] });
    const otherShards = await recordedPeer(2, { clusterId: 2, shards: [(ourShard + 1) % 8] });
    const noRelay = await recordedPeer(2, { clusterId: 2, shards: [ourShard], relay: false });
    const forged = await recordedPeer(2, { clusterId: 2, shards: [ourShard] });
    const forgedRecord = forged.record.slice();
    forgedRecord[10] = forgedRecord[10]! ^ 0xff; // inside the signature
    const good = await recordedPeer(2, { clusterId: 2, shards: [ourShard] });
    const refused = [otherCluster, otherShards, noRelay, forged];
    await servePeerExchange(entry.node!, () =>
      answerWith([otherCluster.record, otherShards.record, noRelay.record, forgedRecord, good.record]),
    );
    const a = await node({
      staticPeers: entry.multiaddrs(),
      peerExchange: { intervalMs: 500 },
      serveLightClients: false,
    });

    await soon(() => (connected(a.node!, good.node.peerId.toString()) ? true : undefined));
    await sleep(500); // dials of the records before it would have been under way by now
    expect(refused.map((peer) => peer.connections.count)).toEqual([0, 0, 0, 0]);
    const refusals = a.peerExchangeCounters!.refused;
    for (const reason of ['other-cluster', 'other-shards', 'not-relay', 'invalid'] as const) {
      expect(refusals[reason], reason).toBeGreaterThanOrEqual(1);
    }
    expect(a.refusedPeers).toBe(0);
  });

  it('survives a malformed answer and uses the next one', async () => {
    const entry = await node();
    const far = await recordedPeer(2);
    const requests = await servePeerExchange(entry.node!, (request) =>
      request === 1 ? new Uint8Array([0xff, 0xff, 0xff, 0x0f]) : answerWith([new Uint8Array([1, 2, 3]), far.record]),
    );
    const a = await node({ staticPeers: entry.multiaddrs(), peerExchange: { intervalMs: 300 } });

    await soon(() => (connected(a.node!, far.node.peerId.toString()) ? true : undefined));
    expect(requests.length).toBeGreaterThanOrEqual(2);
    // Only the first answer failed; the record that is not one was refused in every later answer.
    expect(a.peerExchangeCounters?.failedRequests).toBe(1);
    expect(a.peerExchangeCounters?.refused.invalid).toBeGreaterThanOrEqual(1);
    // Still relaying with its entry node.
    const atEntry: string[] = [];
    entry.subscribe(TOPIC, (payload) => atEntry.push(new TextDecoder().decode(payload)));
    await a.publish(TOPIC, new TextEncoder().encode('still here'));
    await soon(() => (atEntry.length === 1 ? true : undefined));
  });

  it('redials a found peer that drops, though no later answer lists it', async () => {
    const entry = await node();
    const far = await recordedPeer(2);
    const requests = await servePeerExchange(entry.node!, (request) => answerWith(request === 1 ? [far.record] : []));
    const a = await node({
      staticPeers: entry.multiaddrs(),
      peerExchange: { intervalMs: 300 },
      redial: { initialMs: 100 },
    });
    const farId = far.node.peerId.toString();
    // Both ends: the side dialled finishes its handshake last.
    await soon(() => (connected(a.node!, farId) && connected(far.node, a.peerId!) ? true : undefined));
    const before = far.connections.count;
    // The connection breaks, as when a network fails; the node dials the far one again.
    for (const connection of far.node.getConnections(a.node!.peerId)) connection.abort(new Error('dropped'));
    await soon(() => (far.connections.count > before && connected(a.node!, farId) ? true : undefined));
    expect(requests.length).toBeGreaterThanOrEqual(1);
  });

  it('asks nobody when it is off, or when it already has as many relay peers as it wants', async () => {
    const entry = await node();
    const far = await recordedPeer(2);
    const requests = await servePeerExchange(entry.node!, () => answerWith([far.record]));
    const off = await node({ staticPeers: entry.multiaddrs() });
    const full = await node({ staticPeers: entry.multiaddrs(), peerExchange: { maxPeers: 1, intervalMs: 200 } });

    await soon(() => (connected(off.node!, entry.peerId!) && connected(full.node!, entry.peerId!) ? true : undefined));
    await sleep(1_000);
    expect(requests).toEqual([]);
    expect(far.connections.count).toBe(0);
    expect(full.peerExchangeCounters?.requests).toBe(0);
  });

  it('does not ask a peer that dialled it: anyone can, and its records would choose whom the node dials', async () => {
    const a = await node({ peerExchange: { intervalMs: 200 } });
    const stranger = await node({ staticPeers: a.multiaddrs() });
    const far = await recordedPeer(2);
    const requests = await servePeerExchange(stranger.node!, () => answerWith([far.record]));
    await soon(() => (connected(a.node!, stranger.peerId!) ? true : undefined));
    await sleep(1_000);
    expect(requests).toEqual([]);
    expect(a.peerExchangeCounters?.requests).toBe(0);
    expect(far.connections.count).toBe(0);
  });
});
