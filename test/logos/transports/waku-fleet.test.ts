/**
 * What joining a real fleet asks of the `waku` node: it hangs up on peers of another cluster (asking each new peer's
 * Waku metadata, as nwaku does), drops empty payloads, and refuses to send a message over the network's size limit.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { proto_message } from '@waku/proto';
import { WakuTransport, type WakuTransportOptions } from '../../../src/logos/transports/waku.ts';
import { stopChild } from '../../support/child-process.ts';
import { eventually } from '../../support/gateway.ts';

const TOPIC = '/logos-a2a/1/fleet-test/json';
const started: WakuTransport[] = [];

async function node(options: WakuTransportOptions = {}): Promise<WakuTransport> {
  const transport = await WakuTransport.create({ peerWaitMs: 2_000, ...options });
  started.push(transport);
  return transport;
}

afterAll(() => Promise.all(started.map((transport) => transport.stop())));

/** A 1:1 body as the wire wants it: a JSON object naming both parties; `size` pads it to that many bytes. */
function directBody(from: WakuTransport, to: WakuTransport, text: string, size?: number): Uint8Array {
  const body = (pad: string) =>
    new TextEncoder().encode(JSON.stringify({ from: from.address, to: to.address, text: pad }));
  return size === undefined ? body(text) : body(text.padEnd(text.length + size - body(text).length, 'a'));
}

/** Generous: the machine running the tests may be busy. */
const soon = <T>(check: () => T | undefined) => eventually(check, 20_000);

const connectedTo = (from: WakuTransport, to: WakuTransport) =>
  from.node!.getConnections().some((c) => c.remotePeer.toString() === to.peerId && c.status === 'open');

describe.concurrent('on a fleet', { timeout: 60_000 }, () => {
  it('hangs up on a peer of another cluster, whichever side dialled, and keeps one of its own', async () => {
    const ours = await node({ clusterId: 3 });
    const friend = await node({ clusterId: 3, staticPeers: ours.multiaddrs() });
    const stranger = await node({ clusterId: 1, staticPeers: ours.multiaddrs(), redial: { initialMs: 60_000 } });
    await soon(() => (ours.refusedPeers >= 1 && stranger.refusedPeers >= 1) || undefined);
    await soon(() => (!connectedTo(ours, stranger) ? true : undefined));
    expect(connectedTo(friend, ours)).toBe(true);
    // Dialled the other way, the stranger is refused as well.
    const before = ours.refusedPeers;
    await ours.node!.dial(stranger.node!.getMultiaddrs()[0]!).catch(() => undefined);
    await soon(() => (ours.refusedPeers > before && !connectedTo(ours, stranger) ? true : undefined));
    expect(friend.refusedPeers).toBe(0);
    await soon(() => (friend.meshPeerCount(TOPIC) > 0 ? true : undefined));
    const received: string[] = [];
    ours.onDirect((payload) => received.push((JSON.parse(new TextDecoder().decode(payload)) as { text: string }).text));
    await friend.send(ours.address, directBody(friend, ours, 'same cluster'));
    await soon(() => (received.length === 1 ? true : undefined));
    expect(received).toEqual(['same cluster']);
  });

  it('reads a stock @waku/sdk node’s metadata and refuses it as another cluster’s', async () => {
    // refusedPeers counts what our node's own metadata query found; the stock node hangs up as well, so that the
    // connection ends does not by itself show ours did (the test above does, between two of our nodes).
    const ours = await node({ clusterId: 2, listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
    const script = fileURLToPath(new URL('../../support/stock-light-node.mjs', import.meta.url));
    // A stock light node of cluster 1 dialling ours: it never gets the peer it waits for, and exits in time.
    const stranger = spawn(
      process.execPath,
      [script, JSON.stringify({ peer: ours.multiaddrs()[0], clusterId: 1, shards: 8, listen: [] })],
      { stdio: 'ignore' },
    );
    try {
      await soon(() => (ours.refusedPeers >= 1 ? true : undefined));
      await soon(() => (ours.node!.getConnections().length === 0 ? true : undefined));
    } finally {
      await stopChild(stranger);
    }
  });

  it('drops WakuMessages with an empty payload and does not relay them', async () => {
    const a = await node();
    const b = await node({ staticPeers: a.multiaddrs() });
    const c = await node({ staticPeers: b.multiaddrs() });
    await soon(() => (a.meshPeerCount(TOPIC) > 0 && c.meshPeerCount(TOPIC) > 0 ? true : undefined));
    const atC: string[] = [];
    c.subscribe(TOPIC, (payload) => atC.push(new TextDecoder().decode(payload)));
    const empty = proto_message.WakuMessage.encode({
      payload: new Uint8Array(0),
      contentTopic: TOPIC,
      version: 0,
      timestamp: BigInt(Date.now()) * 1_000_000n,
    });
    await a.node!.services.pubsub.publish(a.pubsubTopicFor(TOPIC), empty);
    await soon(() => (b.dropped.empty === 1 ? true : undefined));
    await a.publish(TOPIC, new TextEncoder().encode('not empty'));
    await soon(() => (atC.length === 1 ? true : undefined));
    expect(c.dropped.empty).toBe(0);
    await expect(a.publish(TOPIC, new Uint8Array(0))).rejects.toThrow(/empty/);
  });

  it('refuses to send a message over the network’s limit, naming it', async () => {
    const a = await node();
    expect(a.maxMessageBytes).toBe(150 * 1024);
    expect(a.maxPayloadBytes).toBeLessThan(a.maxMessageBytes);
    await expect(a.send(a.address, new Uint8Array(a.maxPayloadBytes + 1))).rejects.toThrow(
      new RegExp(`exceeds ${a.maxPayloadBytes}`),
    );
    // A payload within its own limit whose message would still be too large (a transport told to allow more).
    const loose = await node({ maxMessageBytes: 8_192, maxPayloadBytes: 100_000 });
    await expect(loose.publish(TOPIC, new Uint8Array(9_000).fill(1))).rejects.toThrow(
      /over the network's limit of 8192 bytes per message/,
    );
    const received: number[] = [];
    a.onDirect((payload) => received.push(payload.length));
    await a.send(a.address, directBody(a, a, '', a.maxPayloadBytes));
    await soon(() => (received.length === 1 ? true : undefined));
    expect(received).toEqual([a.maxPayloadBytes]);
  });
});
