/**
 * One contract for every `LogosTransport` (src/logos/transport.ts): the same checks run against the in-process
 * network, relay nodes, a node's REST API and light nodes of a service node, each on 127.0.0.1
 * (test/support/transport-networks.ts). What an implementation lacks by design is a declared capability, and the
 * suite checks that it is indeed absent. The files beside this one test what only one implementation does.
 *
 * Light and REST parties subscribe at their node asynchronously, so a test first probes each path it relies on
 * (plain probes, which the recorders ignore) until one gets through; negative checks wait for a later message on
 * the same path instead of sleeping.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Delivery, LogosTransport, TopicOptions, Unsubscribe } from '../../../src/logos/transport.ts';
import { sleep } from '../../../src/time-limit.ts';
import { verifyAddressProof } from '../../../src/logos/transports/waku/identity.ts';
import { eventually } from '../../support/eventually.ts';
import { TRANSPORT_IMPLEMENTATIONS, type TransportNetwork } from '../../support/transport-networks.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const KEY = new Uint8Array(32).fill(7);
const OTHER_KEY = new Uint8Array(32).fill(8);
/** Deliveries through a service node or a polled REST API on a loaded machine. */
const DELIVERY_MS = 20_000;

interface Received {
  body: string;
  sender: string | undefined;
}

/** A 1:1 payload as the binding writes it: JSON naming both parties (the Waku transports deliver nothing else). */
const dm = (from: LogosTransport, to: LogosTransport, body: string) =>
  utf8(JSON.stringify({ from: from.address, to: to.address, body }));

/** What a test reads of a payload: the body of a 1:1 message, the whole of a publication. */
type Reader = (payload: Uint8Array) => string;
const directBody: Reader = (payload) => (JSON.parse(text(payload)) as { body: string }).body;

/** Probes carry bodies of their own, which the tests' recorders leave out. */
const PROBE = 'probe ';
const isProbe = (body: string) => body.startsWith(PROBE);
let probes = 0;

describe.each(TRANSPORT_IMPLEMENTATIONS)('the $name transport', { timeout: 90_000 }, ({ name, capabilities, open }) => {
  let network: TransportNetwork;
  let a: LogosTransport;
  let b: LogosTransport;
  let c: LogosTransport;
  /** Handlers of the current test, removed after it. */
  const registered: Unsubscribe[] = [];
  let topics = 0;
  /** A topic of the binding's shard, as a task's status topic is. */
  const topic = () => `/logos-a2a/1/contract-${name}-${++topics}/json`;
  /** A topic of the discovery topic's shard, which a node joins only when a party subscribes to it. */
  const discoveryTopic = () => `/logos/1/contract-${name}-${++topics}/proto`;

  function record(register: (handler: (payload: Uint8Array, delivery: Delivery) => void) => Unsubscribe, read: Reader) {
    const received: Received[] = [];
    const unsubscribe = register((payload, { sender }) => {
      const body = read(payload);
      if (!isProbe(body)) received.push({ body, sender });
    });
    registered.push(unsubscribe);
    return { received, unsubscribe };
  }
  const inbox = (party: LogosTransport) => record((handler) => party.onDirect(handler), directBody);
  const listen = (party: LogosTransport, on: string, options?: TopicOptions) =>
    record((handler) => party.subscribe(on, handler, options), text);

  /** Sends a probe every quarter second until one is heard: the path the probes take is in place. */
  async function probeUntilHeard(probe: (body: string) => Promise<void>, heard: () => boolean): Promise<void> {
    await eventually(async () => {
      await probe(`${PROBE}${++probes}`);
      await sleep(250);
      return heard() || undefined;
    }, DELIVERY_MS);
  }

  /** Until a 1:1 message from one party reaches the other: the recipient's inbox is in place. */
  async function reachable(from: LogosTransport, to: LogosTransport): Promise<void> {
    let heard = false;
    const unsubscribe = to.onDirect((payload) => (heard ||= isProbe(directBody(payload))));
    try {
      await probeUntilHeard(
        (body) => from.send(to.address, dm(from, to, body)),
        () => heard,
      );
    } finally {
      unsubscribe();
    }
  }

  /**
   * Until a plain publication reaches the subscriber: its subscription to the topic is in place. The probe's
   * handler stays until the test ends, so the topic stays subscribed whatever the test unsubscribes.
   */
  async function listening(subscriber: LogosTransport, on: string, publisher: LogosTransport): Promise<void> {
    let heard = false;
    registered.push(subscriber.subscribe(on, (payload) => (heard ||= isProbe(text(payload)))));
    await probeUntilHeard(
      (body) => publisher.publish(on, utf8(body)),
      () => heard,
    );
  }

  beforeAll(async () => {
    network = await open();
    [a, b, c] = await Promise.all([network.party(), network.party(), network.party()]);
  }, 90_000);
  afterEach(() => {
    for (const unsubscribe of registered.splice(0)) unsubscribe();
  });
  afterAll(async () => {
    await network?.close();
  }, 30_000);

  it('delivers a 1:1 message to the party it is addressed to only, naming its sender', async () => {
    await Promise.all([reachable(a, b), reachable(a, c)]);
    const atB = inbox(b);
    const atC = inbox(c);
    // C's comes first: had B been handed it too, B would have had it before its own.
    await a.send(c.address, dm(a, c, 'for C'));
    await a.send(b.address, dm(a, b, 'for B'));
    await eventually(() => (atB.received.length > 0 && atC.received.length > 0) || undefined, DELIVERY_MS);
    expect(atB.received).toEqual([{ body: 'for B', sender: a.address }]);
    expect(atC.received).toEqual([{ body: 'for C', sender: a.address }]);

    await reachable(b, a);
    const atA = inbox(a);
    await b.send(a.address, dm(b, a, 'reply'));
    await eventually(() => atA.received.length > 0 || undefined, DELIVERY_MS);
    expect(atA.received).toEqual([{ body: 'reply', sender: b.address }]);
  });

  it('delivers a plain publication as given, to plain subscribers only, naming no sender', async () => {
    const on = discoveryTopic();
    await listening(b, on, a);
    const plain = listen(b, on);
    const keyed = listen(b, on, { key: KEY });
    await a.publish(on, utf8('{"card":"in the clear"}'));
    await eventually(() => plain.received.length > 0 || undefined, DELIVERY_MS);
    expect(plain.received).toEqual([{ body: '{"card":"in the clear"}', sender: undefined }]);
    // A keyed one after it reaches the keyed reader, which would have had the plain one first, had it been handed it.
    await a.publish(on, utf8('sealed'), { key: KEY });
    await eventually(() => keyed.received.length > 0 || undefined, DELIVERY_MS);
    expect(keyed.received).toEqual([{ body: 'sealed', sender: a.address }]);
    expect(plain.received).toHaveLength(1);
  });

  it('delivers a keyed publication only to holders of its key, signed by its publisher', async () => {
    const on = topic();
    await Promise.all([listening(b, on, a), listening(c, on, a)]);
    const withKey = listen(b, on, { key: KEY });
    const otherKey = listen(c, on, { key: OTHER_KEY });
    const noKey = listen(c, on);
    await a.publish(on, utf8('under the key'), { key: KEY });
    // Then one under C's key and one in the clear: once C has both, it would have had the first too, could it read it.
    await a.publish(on, utf8('under the other key'), { key: OTHER_KEY });
    await a.publish(on, utf8('in the clear'));
    await eventually(
      () => (withKey.received.length > 0 && otherKey.received.length > 0 && noKey.received.length > 0) || undefined,
      DELIVERY_MS,
    );
    expect(withKey.received).toEqual([{ body: 'under the key', sender: a.address }]);
    expect(otherKey.received).toEqual([{ body: 'under the other key', sender: a.address }]);
    expect(noKey.received).toEqual([{ body: 'in the clear', sender: undefined }]);
  });

  it('stops handing an unsubscribed handler anything, 1:1 or published, and keeps serving the others', async () => {
    const on = topic();
    await Promise.all([reachable(a, b), listening(b, on, a)]);
    const leaving = listen(b, on, { key: KEY });
    const staying = listen(b, on, { key: KEY });
    const leavingInbox = inbox(b);
    const stayingInbox = inbox(b);
    await a.publish(on, utf8('one'), { key: KEY });
    await a.send(b.address, dm(a, b, 'one'));
    await eventually(() => (leaving.received.length > 0 && leavingInbox.received.length > 0) || undefined, DELIVERY_MS);
    leaving.unsubscribe();
    leavingInbox.unsubscribe();
    await a.publish(on, utf8('two'), { key: KEY });
    await a.send(b.address, dm(a, b, 'two'));
    await eventually(
      () => (staying.received.length === 2 && stayingInbox.received.length === 2) || undefined,
      DELIVERY_MS,
    );
    expect(leaving.received.map((r) => r.body)).toEqual(['one']);
    expect(leavingInbox.received.map((r) => r.body)).toEqual(['one']);
    expect(staying.received.map((r) => r.body)).toEqual(['one', 'two']);
    expect(stayingInbox.received.map((r) => r.body)).toEqual(['one', 'two']);
  });

  it('carries a payload of maxPayloadBytes, 1:1 and keyed, and refuses one byte more with an error', async () => {
    const limit = a.maxPayloadBytes;
    expect(b.maxPayloadBytes).toBe(limit);
    const on = topic();
    await Promise.all([reachable(a, b), listening(b, on, a)]);
    const atB = inbox(b);
    const published = listen(b, on, { key: KEY });
    // A 1:1 payload is JSON naming both parties; the body fills it to the byte.
    const envelope = dm(a, b, '').length;
    const direct = dm(a, b, 'd'.repeat(limit - envelope));
    expect(direct.length).toBe(limit);
    await a.send(b.address, direct);
    await a.publish(on, new Uint8Array(limit).fill(0x70), { key: KEY });
    await eventually(() => (atB.received.length > 0 && published.received.length > 0) || undefined, DELIVERY_MS);
    expect(atB.received).toEqual([{ body: 'd'.repeat(limit - envelope), sender: a.address }]);
    expect(published.received).toEqual([{ body: 'p'.repeat(limit), sender: a.address }]);

    const over = new RegExp(`${limit}`);
    await expect(a.send(b.address, dm(a, b, 'd'.repeat(limit - envelope + 1)))).rejects.toThrow(over);
    await expect(a.publish(on, new Uint8Array(limit + 1), { key: KEY })).rejects.toThrow(over);
    await expect(a.publish(on, new Uint8Array(limit + 1))).rejects.toThrow(over);
  });

  it('keeps delivering to the other handlers, and later messages, when a handler throws', async () => {
    const on = topic();
    await Promise.all([reachable(a, b), listening(b, on, a)]);
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let thrown = 0;
      const boom = () => {
        thrown += 1;
        throw new Error('a broken receiver');
      };
      registered.push(b.onDirect(boom), b.subscribe(on, boom, { key: KEY }));
      const atB = inbox(b);
      const published = listen(b, on, { key: KEY });
      for (const n of [1, 2]) {
        await a.send(b.address, dm(a, b, `direct ${n}`));
        await a.publish(on, utf8(`published ${n}`), { key: KEY });
      }
      await eventually(() => (atB.received.length === 2 && published.received.length === 2) || undefined, DELIVERY_MS);
      // The interface promises no order: what matters is that both came.
      expect(atB.received.map((r) => r.body).sort()).toEqual(['direct 1', 'direct 2']);
      expect(published.received.map((r) => r.body).sort()).toEqual(['published 1', 'published 2']);
      // Probes may have hit it too; each of the test's four messages did.
      expect(thrown).toBeGreaterThanOrEqual(4);
    } finally {
      quiet.mockRestore();
    }
  });

  it('stops: refuses to send, forgets its handlers; starts again under the same address', async () => {
    const party = await network.party();
    const address = party.address;
    await reachable(a, party);
    const before = inbox(party);
    await a.send(party.address, dm(a, party, 'before'));
    await eventually(() => before.received.length > 0 || undefined, DELIVERY_MS);

    await party.stop();
    if (capabilities.peerCount) expect(party.peerCount!()).toBe(0);
    await expect(party.send(a.address, dm(party, a, 'stopped'))).rejects.toThrow(/not started/);
    await expect(party.publish(topic(), utf8('stopped'))).rejects.toThrow(/not started/);

    await party.start();
    expect(party.address).toBe(address);
    await reachable(a, party);
    const after = inbox(party);
    await a.send(party.address, dm(a, party, 'after'));
    await eventually(() => after.received.length > 0 || undefined, DELIVERY_MS);
    expect(after.received).toEqual([{ body: 'after', sender: a.address }]);
    expect(before.received.map((r) => r.body)).toEqual(['before']);
    // And it sends again, as itself.
    await reachable(party, a);
    const atA = inbox(a);
    await party.send(a.address, dm(party, a, 'back'));
    await eventually(() => atA.received.length > 0 || undefined, DELIVERY_MS);
    expect(atA.received).toEqual([{ body: 'back', sender: address }]);
  });

  it(
    capabilities.peerCount ? 'counts its connected peers' : 'declares no peerCount, having no peers of its own',
    async () => {
      if (!capabilities.peerCount) return expect(a.peerCount).toBeUndefined();
      expect(a.peerCount).toBeTypeOf('function');
      await eventually(() => a.peerCount!() >= 1 || undefined, DELIVERY_MS);
    },
  );

  it(
    capabilities.addressProof
      ? 'proves its address speaks for a LEZ account, verifiably and for that account only'
      : 'declares no addressProof, its addresses being no keys',
    () => {
      if (!capabilities.addressProof) return expect(a.addressProof).toBeUndefined();
      const account = 'BLgCcR4bNfGjMoJL9FkS1yeBHbyA6RQwGMnhcFBPjoS4';
      const proof = a.addressProof!(account);
      expect(verifyAddressProof(a.address, account, proof)).toBe(true);
      expect(verifyAddressProof(a.address, account.replace('B', 'C'), proof)).toBe(false);
      expect(verifyAddressProof(b.address, account, proof)).toBe(false);
    },
  );
});
