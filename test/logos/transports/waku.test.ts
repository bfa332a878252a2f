/**
 * The `waku` transport on real js-waku relay nodes over TCP on 127.0.0.1, beyond what every transport does
 * (contract.test.ts): addresses and their compressed form, relaying through a middle node, what is dropped (foreign,
 * forged, unsigned, forwarded, replayed, oversized), static peers that go away and come back, and a stop that lets
 * the process exit. Attacks are built with the stock @waku/message-encryption primitives, as anyone on the network
 * could.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually as eventuallyWithin } from '../../support/eventually.ts';
import { encryptAsymmetric, preCipher } from '@waku/message-encryption/ecies';
import { encryptSymmetric } from '@waku/message-encryption/symmetric';
import { multiaddr } from '@multiformats/multiaddr';
import { proto_message, proto_metadata } from '@waku/proto';
import type { Delivery } from '../../../src/logos/transport.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  WakuTransport,
  canonicalWakuAddress,
  generateWakuPrivateKey,
  inboxTopic,
  parseWakuAddress,
  type WakuTransportOptions,
} from '../../../src/logos/transports/waku.ts';
import { sealDirect } from '../../../src/logos/transports/waku/payloads.ts';
import { wakuIdentity } from '../../../src/logos/transports/waku/identity.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const TOPIC = '/logos-a2a/1/task-4f7a2c1e-0b9d-4e55-8f21-6a3d2c1b0e9f/json';

const started: WakuTransport[] = [];

async function node(options: WakuTransportOptions = {}): Promise<WakuTransport> {
  const transport = await WakuTransport.create(options);
  started.push(transport);
  return transport;
}

async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((transport) => transport.stop()));
}

/** Waku meshes and deliveries take longer than most things a test waits for. */
const eventually = <T>(check: () => T | undefined) => eventuallyWithin(check, 8_000);

/** Until every node has a relay peer in the mesh of the binding's shard. */
function meshed(...nodes: WakuTransport[]): Promise<true> {
  return eventually(() => nodes.every((n) => n.meshPeerCount(TOPIC) > 0) || undefined);
}

interface Received {
  body: string;
  sender: string | undefined;
}

/** A 1:1 body as the transport requires it: JSON naming both parties. */
function dm(from: WakuTransport | string, to: WakuTransport | string, body: string): Uint8Array {
  const address = (party: WakuTransport | string) => (typeof party === 'string' ? party : party.address);
  return utf8(JSON.stringify({ from: address(from), to: address(to), body }));
}

function inbox(transport: WakuTransport): Received[] {
  const received: Received[] = [];
  transport.onDirect((payload, delivery: Delivery) =>
    received.push({ body: (JSON.parse(text(payload)) as { body: string }).body, sender: delivery.sender }),
  );
  return received;
}

/** A status-topic key: 32 bytes. */
const KEY = new Uint8Array(32).fill(7);

function listen(transport: WakuTransport, topic: string, key?: Uint8Array): Received[] {
  const received: Received[] = [];
  transport.subscribe(
    topic,
    (payload, delivery) => received.push({ body: text(payload), sender: delivery.sender }),
    key ? { key } : {},
  );
  return received;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Publishes raw bytes on a node's relay, as any peer on the network could. */
async function inject(from: WakuTransport, contentTopic: string, wire: Uint8Array): Promise<void> {
  await from.node!.services.pubsub.publish(from.pubsubTopicFor(contentTopic), wire);
}

function wakuMessage(fields: {
  payload: Uint8Array;
  contentTopic: string;
  version: number;
  timestamp?: bigint;
}): Uint8Array {
  return proto_message.WakuMessage.encode({ timestamp: BigInt(Date.now()) * 1_000_000n, ...fields });
}

/** Records every WakuMessage a node relays on a content topic. */
function tap(transport: WakuTransport, contentTopic: string): Uint8Array[] {
  const wires: Uint8Array[] = [];
  transport.node!.services.pubsub.addEventListener('message', (event) => {
    try {
      if (proto_message.WakuMessage.decode(event.detail.data).contentTopic === contentTopic)
        wires.push(event.detail.data);
    } catch {
      // not a WakuMessage
    }
  });
  return wires;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

afterAll(stopAll);

// The suites share no nodes, so they run concurrently; within 'two nodes A–B' the tests share A, B and their
// inboxes, so they run one after another.
describe.concurrent('identity', () => {
  it('addresses are waku:<uncompressed public key>, compressed accepted; inbox topics derive from the key', () => {
    const key = generateWakuPrivateKey();
    const transport = new WakuTransport({ privateKey: key });
    expect(transport.address).toMatch(/^waku:04[0-9a-f]{128}$/);
    expect(new WakuTransport({ privateKey: key }).address).toBe(transport.address);
    expect(transport.inboxTopic).toMatch(/^\/logos-a2a\/1\/inbox-[0-9a-f]{16}\/proto$/);
    expect(inboxTopic(transport.address)).toBe(transport.inboxTopic);
    expect(inboxTopic(transport.address.toUpperCase().replace('WAKU:', 'waku:'))).toBe(transport.inboxTopic);
    // The compressed form names the same party: same key, same inbox, same canonical address.
    const compressedAddress = `waku:${Buffer.from(secp256k1.getPublicKey(key, true)).toString('hex')}`;
    expect(canonicalWakuAddress(compressedAddress)).toBe(transport.address);
    expect(inboxTopic(compressedAddress)).toBe(transport.inboxTopic);
    // Autosharding: every binding topic lands on the shard of /logos-a2a/1 (cluster 2, 8 shards by default).
    expect(transport.pubsubTopicFor(transport.inboxTopic)).toBe(transport.pubsubTopicFor(TOPIC));
    expect(transport.pubsubTopicFor(TOPIC)).toMatch(/^\/waku\/2\/rs\/2\/[0-7]$/);
    expect(() => parseWakuAddress('agent:echo')).toThrow(/not a waku address/);
    expect(() => parseWakuAddress(`waku:02${'ff'.repeat(32)}`)).toThrow(/not a secp256k1 public key/);
    expect(() => new WakuTransport({ privateKey: new Uint8Array(32) })).toThrow(/privateKey/);
    expect(() => new WakuTransport({ nodeKey: new Uint8Array(31) })).toThrow(/nodeKey/);
    expect(() => new WakuTransport({ relayShards: [8] })).toThrow(/relay shard 8/);
  });

  it('refuses to send before start, to a bad address, on a bad topic, or over the size limit', async () => {
    const transport = new WakuTransport({ maxPayloadBytes: 16 });
    await expect(transport.send(transport.address, utf8('x'))).rejects.toThrow(/not started/);
    await transport.start();
    started.push(transport);
    await expect(transport.send('agent:echo', utf8('x'))).rejects.toThrow(/not a waku address/);
    await expect(transport.publish('not-a-content-topic', utf8('x'))).rejects.toThrow(
      /Content topic format is invalid/,
    );
    expect(() => transport.subscribe('/too/short', () => undefined)).toThrow();
    await expect(transport.send(transport.address, new Uint8Array(17))).rejects.toThrow(RangeError);
    await expect(transport.publish(TOPIC, new Uint8Array(17))).rejects.toThrow(RangeError);
    await expect(transport.publish(TOPIC, utf8('x'), { key: new Uint8Array(16) })).rejects.toThrow(/32 bytes/);
    expect(() => transport.subscribe(TOPIC, () => undefined, { key: new Uint8Array(31) })).toThrow(/32 bytes/);
  });
});

describe.concurrent('a node alone', () => {
  it('hears its own publications once, even when the gossipsub overrides ask for emitSelf', async () => {
    const alone = await node({ gossipsub: { emitSelf: true } });
    const heard = listen(alone, TOPIC);
    // What gossipsub itself hands the node's relay listeners (the filter service among them): with emitSelf, the
    // node's own message too, a second copy beside the one the transport hands its readers.
    const relayed = tap(alone, TOPIC);
    await alone.publish(TOPIC, utf8('to myself'));
    await eventually(() => heard.length === 1 || undefined);
    await sleep(200);
    expect(heard.map((received) => received.body)).toEqual(['to myself']);
    expect(relayed).toHaveLength(0);
  });
});

describe.concurrent('two nodes A–B', () => {
  let a: WakuTransport;
  let b: WakuTransport;
  let attacker: WakuTransport;
  let atB: Received[];
  let atA: Received[];

  beforeAll(async () => {
    // B forgets gossipsub message ids quickly, so a replay of the exact same bytes reaches the transport's own check.
    b = await node({ maxMessageBytes: 16_384, maxPayloadBytes: 4_096, gossipsub: { seenTTL: 300 } });
    a = await node({ staticPeers: b.multiaddrs() });
    attacker = await node({ staticPeers: b.multiaddrs(), gossipsub: { seenTTL: 300 } });
    atB = inbox(b);
    atA = inbox(a);
    await meshed(a, b, attacker);
  });
  afterEach(() => {
    atA.length = 0;
    atB.length = 0;
  });

  it.sequential('a node can send to itself, and be named by its compressed key', async () => {
    const compressed = `waku:${Buffer.from(secp256k1.getPublicKey(a.privateKey, true)).toString('hex')}`;
    await a.send(compressed, dm(compressed, compressed, 'note to self'));
    await eventually(() => atA.length === 1 || undefined);
    expect(atA).toEqual([{ body: 'note to self', sender: a.address }]);
  });

  it.sequential('a burst of 1:1 messages sent at once arrives whole and in order', async () => {
    const bodies = Array.from({ length: 24 }, (_, i) => `burst ${i}`);
    await Promise.all(bodies.map((body) => a.send(b.address, dm(a, b, body))));
    await eventually(() => atB.length === bodies.length || undefined);
    expect(atB).toEqual(bodies.map((body) => ({ body, sender: a.address })));
  });

  it.sequential('a keyed publication reaches its publisher too, and a re-publication is a new message', async () => {
    const atSubscriber = listen(a, TOPIC, KEY);
    const atPublisher = listen(b, TOPIC, KEY);
    await sleep(50);
    await b.publish(TOPIC, utf8('working'), { key: KEY });
    await b.publish(TOPIC, utf8('working'), { key: KEY }); // the same bytes again: a new message, not a replay
    await eventually(() => atSubscriber.length === 2 || undefined);
    expect(atSubscriber).toEqual([
      { body: 'working', sender: b.address },
      { body: 'working', sender: b.address },
    ]);
    await eventually(() => atPublisher.length === 2 || undefined);
    expect(atPublisher[0]).toEqual({ body: 'working', sender: b.address });
  });

  it.sequential('a keyed publication signed by another key is delivered with the real signer as sender', async () => {
    const atA2 = listen(a, TOPIC, KEY);
    await attacker.publish(TOPIC, utf8('{"type":"task_result","state":"completed"}'), { key: KEY });
    await eventually(() => atA2.length === 1 || undefined);
    expect(atA2[0]!.sender).toBe(attacker.address);
    expect(atA2[0]!.sender).not.toBe(b.address);
  });

  it.sequential('on a keyed topic, drops what is unsigned, under another key, or in the clear', async () => {
    const topic = '/logos-a2a/1/task-keyed-drops/json';
    const atA2 = listen(a, topic, KEY);
    await sleep(50);
    const before = { ...a.dropped };
    // Encrypted under the key but not signed, as a stock encoder without sigPrivKey makes it.
    const unsigned = await encryptSymmetric(await preCipher(utf8('anonymous')), KEY);
    await inject(attacker, topic, wakuMessage({ payload: unsigned, contentTopic: topic, version: 1 }));
    // Signed, under another key.
    const elsewhere = await encryptSymmetric(await preCipher(utf8('other'), attacker.privateKey), new Uint8Array(32));
    await inject(attacker, topic, wakuMessage({ payload: elsewhere, contentTopic: topic, version: 1 }));
    // A bare payload, version 0.
    await inject(
      attacker,
      topic,
      wakuMessage({ payload: utf8('{"type":"task_result"}'), contentTopic: topic, version: 0 }),
    );
    await eventually(() => a.dropped.unsigned === before.unsigned + 2 || undefined);
    await eventually(() => a.dropped.undecryptable === before.undecryptable + 1 || undefined);
    expect(atA2).toEqual([]);
  });

  it.sequential(
    'drops 1:1 messages unsigned, not for this key, forwarded, from another signer or not JSON',
    async () => {
      const before = { ...b.dropped };
      const bKey = parseWakuAddress(b.address);
      const injectToB = (payload: Uint8Array) =>
        inject(attacker, b.inboxTopic, wakuMessage({ payload, contentTopic: b.inboxTopic, version: 1 }));
      // Encrypted to B but not signed.
      await injectToB(await encryptAsymmetric(await preCipher(dm(attacker, b, 'anonymous')), bKey));
      // On B's inbox topic but encrypted to A.
      await injectToB(await sealDirect(attacker.privateKey, parseWakuAddress(a.address), dm(attacker, a, 'for A')));
      // Signed by A for the attacker, then re-encrypted by the attacker to B ("surreptitious forwarding").
      const signedForAttacker = await preCipher(dm(a, attacker, 'for the attacker'), a.privateKey);
      await injectToB(await encryptAsymmetric(signedForAttacker, bKey));
      // Signed by the attacker, claiming to come from A.
      await injectToB(await sealDirect(attacker.privateKey, bKey, dm(a, b, 'I am A')));
      // Signed and addressed, but not a JSON object naming both parties.
      await injectToB(await sealDirect(attacker.privateKey, bKey, utf8('plain text')));
      await eventually(() => b.dropped.unsigned === before.unsigned + 1 || undefined);
      await eventually(() => b.dropped.undecryptable === before.undecryptable + 1 || undefined);
      await eventually(() => b.dropped.wrongRecipient === before.wrongRecipient + 1 || undefined);
      await eventually(() => b.dropped.badSignature === before.badSignature + 1 || undefined);
      await eventually(() => b.dropped.malformed === before.malformed + 1 || undefined);
      expect(atB).toEqual([]);
    },
  );

  it.sequential(
    'drops a replayed 1:1 message: re-encoded at once, and the same bytes after the relay forgot them',
    async () => {
      const wires = tap(attacker, b.inboxTopic);
      await a.send(b.address, dm(a, b, 'pay 5 LEZ'));
      await eventually(() => (atB.length === 1 && wires.length === 1) || undefined);
      const original = wires[0]!;
      const before = b.dropped.duplicate;

      // Same message, new timestamp: a new gossipsub message id, the same ciphertext.
      const decoded = proto_message.WakuMessage.decode(original);
      await inject(
        attacker,
        b.inboxTopic,
        proto_message.WakuMessage.encode({ ...decoded, timestamp: (decoded.timestamp ?? 0n) + 1n }),
      );
      await eventually(() => b.dropped.duplicate === before + 1 || undefined);

      // The very same bytes, once gossipsub's seen-cache (300 ms here, 2 min by default) has let them go: sent again
      // until a copy gets past the caches (the attacker's own refuses to publish them until then) to B's transport.
      const deadline = Date.now() + 8_000;
      while (b.dropped.duplicate < before + 2) {
        if (Date.now() > deadline) throw new Error('the replayed bytes never reached B');
        await inject(attacker, b.inboxTopic, original).catch(() => undefined);
        await sleep(100);
      }
      expect(b.dropped.duplicate).toBe(before + 2);
      expect(atB).toEqual([{ body: 'pay 5 LEZ', sender: a.address }]);
    },
  );

  it.sequential('drops a replayed publication', async () => {
    const topic = '/logos-a2a/1/task-replay/json';
    const atB2 = listen(b, topic, KEY);
    const wires = tap(attacker, topic);
    await sleep(50);
    await a.publish(topic, utf8('completed'), { key: KEY });
    await eventually(() => (atB2.length === 1 && wires.length === 1) || undefined);
    const before = b.dropped.duplicate;
    const decoded = proto_message.WakuMessage.decode(wires[0]!);
    await inject(
      attacker,
      topic,
      proto_message.WakuMessage.encode({ ...decoded, timestamp: (decoded.timestamp ?? 0n) + 7n }),
    );
    await eventually(() => b.dropped.duplicate === before + 1 || undefined);
    expect(atB2).toEqual([{ body: 'completed', sender: a.address }]);
  });

  it.sequential('drops messages over the receiver’s size limit', async () => {
    const before = b.dropped.oversized;
    // B takes payloads of at most 4 KiB in messages of at most 16 KiB; A's limit is the default 150 KiB message.
    await a.send(b.address, dm(a, b, 'a'.repeat(6_000)));
    await eventually(() => b.dropped.oversized === before + 1 || undefined);
    // Far over the limit: refused already by B's relay validation (and neither forwarded nor penalised).
    await a.send(b.address, dm(a, b, 'a'.repeat(20_000)));
    await eventually(() => b.dropped.oversized === before + 2 || undefined);
    await a.send(b.address, dm(a, b, 'small'));
    await eventually(() => atB.length === 1 || undefined);
    expect(atB).toEqual([{ body: 'small', sender: a.address }]);
  });

  it.sequential('measures the one-way latency of a 1:1 message (median of 50)', async () => {
    let arrived: ((at: number) => void) | undefined;
    const stopListening = b.onDirect(() => arrived?.(performance.now()));
    const samples: number[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        const arrival = new Promise<number>((resolve) => (arrived = resolve));
        const sentAt = performance.now();
        await a.send(b.address, dm(a, b, `ping ${i}`));
        samples.push((await arrival) - sentAt);
      }
    } finally {
      stopListening();
    }
    samples.sort((x, y) => x - y);
    const median = (samples[24]! + samples[25]!) / 2;
    console.log(
      `waku 1:1 one-way latency on loopback (send() called → handler runs): median ${median.toFixed(1)} ms, ` +
        `min ${samples[0]!.toFixed(1)} ms, p90 ${samples[44]!.toFixed(1)} ms, max ${samples[49]!.toFixed(1)} ms`,
    );
    expect(atB.map((r) => r.body)).toEqual(Array.from({ length: 50 }, (_, i) => `ping ${i}`));
    // A sanity bound, not a benchmark (bench/waku-overhead.ts measures): a median of seconds would mean a stall.
    expect(median).toBeLessThan(1_000);
  });
});

describe.concurrent('three nodes in a line A–B–C, B only relays', () => {
  let a: WakuTransport;
  let b: WakuTransport;
  let c: WakuTransport;

  beforeAll(async () => {
    b = await node();
    a = await node({ staticPeers: b.multiaddrs() });
    c = await node({ staticPeers: b.multiaddrs() });
    await meshed(a, b, c);
    expect(a.peerCount()).toBe(1);
    expect(c.peerCount()).toBe(1);
  });

  it('carries 1:1 messages and publications across the middle node, and only to their recipient', async () => {
    const atA = inbox(a);
    const atB = inbox(b);
    const atC = inbox(c);
    const atCTopic = listen(c, TOPIC, KEY);

    await a.send(c.address, dm(a, c, 'to C'));
    await eventually(() => atC.length === 1 || undefined);
    expect(atC).toEqual([{ body: 'to C', sender: a.address }]);

    await c.send(a.address, dm(c, a, 'to A'));
    await eventually(() => atA.length === 1 || undefined);
    expect(atA).toEqual([{ body: 'to A', sender: c.address }]);

    await a.publish(TOPIC, utf8('status'), { key: KEY });
    await eventually(() => atCTopic.length === 1 || undefined);
    expect(atCTopic).toEqual([{ body: 'status', sender: a.address }]);

    // The largest payload one message takes on the network crosses the relay too.
    const large = 'z'.repeat(a.maxPayloadBytes - 400);
    await a.send(c.address, dm(a, c, large));
    await eventually(() => atC.length === 2 || undefined);
    expect(atC[1]!.body).toBe(large);

    // B relayed all of it and was handed none of it: nothing was addressed to B, nothing failed to decrypt.
    await sleep(100);
    expect(atB).toEqual([]);
    expect(b.dropped.undecryptable).toBe(0);
    expect(atA).toHaveLength(1);
    expect(atC).toHaveLength(2);
  });
});

describe.concurrent('network', () => {
  it('answers the Waku metadata protocol with its cluster and shards, as nwaku requires of a relay peer', async () => {
    // A relay node that serves no light clients relays only the shards it joined.
    const b = await node({ relayShards: [5], serveLightClients: false });
    const a = await node();
    const stream = await a.node!.dialProtocol(multiaddr(b.multiaddrs()[0]!), '/vac/waku/metadata/1.0.0');
    const request = proto_metadata.WakuMetadataRequest.encode({ clusterId: 2, shards: [] });
    const chunks: Uint8Array[] = [];
    await Promise.all([
      stream.sink([new Uint8Array([request.length, ...request])]),
      (async () => {
        for await (const chunk of stream.source) chunks.push(chunk.subarray());
      })(),
    ]);
    const response = Buffer.concat(chunks);
    expect(response[0]).toBe(response.length - 1);
    const metadata = proto_metadata.WakuMetadataResponse.decode(response.subarray(1));
    const bindingShard = Number(b.pubsubTopicFor(TOPIC).split('/').pop());
    expect(metadata.clusterId).toBe(2);
    expect([...metadata.shards].sort()).toEqual([bindingShard, 5].sort());
  });

  it('speaks over WebSocket, on another cluster and shard count when configured', async () => {
    const network = { clusterId: 3, numShardsInCluster: 4 };
    const b = await node({ ...network, listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
    expect(b.multiaddrs()[0]).toMatch(/\/ws\/p2p\//);
    const a = await node({ ...network, staticPeers: b.multiaddrs() });
    expect(a.pubsubTopicFor(TOPIC)).toMatch(/^\/waku\/2\/rs\/3\/[0-3]$/);
    const atB = inbox(b);
    await a.send(b.address, dm(a, b, 'over ws'));
    await eventually(() => atB.length === 1 || undefined);
    expect(atB).toEqual([{ body: 'over ws', sender: a.address }]);
  });
});

describe.concurrent('static peers', () => {
  it('re-dials a peer that was down at start, and one that stops and restarts on the same port', async () => {
    const port = await freePort();
    const bOptions: WakuTransportOptions = {
      privateKey: generateWakuPrivateKey(),
      nodeKey: generateWakuPrivateKey(),
      listen: [`/ip4/127.0.0.1/tcp/${port}`],
    };
    // The peer id follows from the node key, so the multiaddr can name it before B exists.
    const probe = await WakuTransport.create({ ...bOptions });
    const bAddress = probe.multiaddrs()[0]!;
    await probe.stop();
    expect(bAddress).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/${port}/p2p/`));

    const a = await node({ staticPeers: [bAddress], redial: { initialMs: 100, maxMs: 400 } });
    await sleep(300); // A's first dials fail
    expect(a.peerCount()).toBe(0);

    let b = await node(bOptions);
    let atB = inbox(b);
    await meshed(a, b);
    await a.send(b.address, dm(a, b, 'first'));
    await eventually(() => atB.length === 1 || undefined);

    await b.stop();
    await eventually(() => a.peerCount() === 0 || undefined);
    await sleep(500); // a few failed redials while B is away
    const restartedAt = Date.now();
    b = await node(bOptions);
    atB = inbox(b);
    await meshed(a, b);
    const reconnectMs = Date.now() - restartedAt;
    await a.send(b.address, dm(a, b, 'again'));
    await eventually(() => atB.length === 1 || undefined);
    expect(atB).toEqual([{ body: 'again', sender: a.address }]);
    console.log(`waku static peer: back in the mesh ${reconnectMs} ms after the restart`);
  });

  it('does not hang offline: an unreachable peer delays a send by at most peerWaitMs', async () => {
    const port = await freePort();
    const a = await node({ staticPeers: [`/ip4/127.0.0.1/tcp/${port}`], peerWaitMs: 300 });
    const other = wakuIdentity(generateWakuPrivateKey()).address;
    const sentAt = Date.now();
    await a.send(other, utf8('into the void'));
    await a.publish(TOPIC, utf8('nobody listens'));
    const elapsed = Date.now() - sentAt;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
    const stoppedAt = Date.now();
    await a.stop();
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
  });

  it('a stop during the wait for a peer ends the pending send at once', async () => {
    const port = await freePort();
    const a = await node({ staticPeers: [`/ip4/127.0.0.1/tcp/${port}`], peerWaitMs: 10_000 });
    const pending = a.send(a.address, utf8('never sent'));
    await sleep(100);
    const stoppedAt = Date.now();
    await a.stop();
    await pending;
    // Well under the 10 s peer wait: the stop ended it (a loaded machine may take a moment).
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
  });
});

describe.concurrent('stop', () => {
  it('is quick, and leaves nothing that keeps the process alive', async () => {
    const module = new URL('../../../src/logos/transports/waku.ts', import.meta.url).href;
    const script = `
      import { WakuTransport } from ${JSON.stringify(module)};
      const b = await WakuTransport.create();
      const a = await WakuTransport.create({ staticPeers: b.multiaddrs() });
      const got = new Promise((resolve) => b.onDirect(resolve));
      await a.send(b.address, new TextEncoder().encode(JSON.stringify({ from: a.address, to: b.address })));
      await got;
      const t = performance.now();
      await Promise.all([a.stop(), b.stop()]);
      console.log(JSON.stringify({ stopMs: performance.now() - t, stoppedAt: Date.now() }));
    `;
    const { stdout, exitedAt } = await new Promise<{ stdout: string; exitedAt: number }>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out, exitedAt: Date.now() }),
      );
    });
    const { stopMs, stoppedAt } = JSON.parse(stdout.trim().split('\n').pop()!) as { stopMs: number; stoppedAt: number };
    // A bound, not a speed measurement: stop() must not wait on timers (it takes ~10 ms; a loaded CI is slower).
    expect(stopMs).toBeLessThan(3_000);
    // The process ended by itself (no process.exit) right after stop().
    expect(exitedAt - stoppedAt).toBeLessThan(3_000);
  });
});
