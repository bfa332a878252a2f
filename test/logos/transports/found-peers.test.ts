/**
 * The dialer of the peers that peer exchange found, on simulated time: however many answers list peers it cannot
 * reach, one retry is pending, and a peer listed again while its dial is under way keeps that dial's outcome.
 */
import type { Libp2p } from '@libp2p/interface';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { FoundPeerDialer } from '../../../src/logos/transports/waku/found-peers.ts';
import { DEFAULT_REDIAL } from '../../../src/logos/transports/waku/static-peers.ts';

const IDS = [
  '16Uiu2HAmPLe7Mzm8TsYUubgCAW1aJoeFScxrLj8ppHFivPo97bUZ',
  '16Uiu2HAkyzsTwu6a3vzVbW5dY4WrbHgP9FUqG6ta1ABvjHcWPRaA',
  '16Uiu2HAm4v86W3bmT1BiH6oSPzcsSr24iDQpSN5Qa992BCjjwgrD',
];
const record = (peerId: string) => ({ peerId, multiaddrs: [`/ip4/127.0.0.1/tcp/1/p2p/${peerId}`] });

/** A node none of whose dials succeeds, each failing after `failAfterMs`. */
function unreachableNetwork(failAfterMs: number) {
  const dials: string[] = [];
  const events = new EventTarget();
  const node = {
    peerId: { toString: () => 'self' },
    getPeers: () => [],
    getConnections: () => [],
    addEventListener: events.addEventListener.bind(events),
    removeEventListener: events.removeEventListener.bind(events),
    dial: async (addresses: { toString(): string }[]) => {
      dials.push(String(addresses[0]));
      await new Promise((resolve) => setTimeout(resolve, failAfterMs));
      throw new Error('unreachable');
    },
  };
  return { node: node as unknown as Libp2p, dials };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('keeps one retry pending however many answers list unreachable peers', async () => {
  const { node } = unreachableNetwork(0);
  const dialer = new FoundPeerDialer(node, 12, DEFAULT_REDIAL);
  dialer.start();
  // An answer every 300 ms for 8 s, each listing the same three peers.
  for (let tick = 0; tick < 27; tick++) {
    for (const id of IDS) dialer.add(record(id));
    await vi.advanceTimersByTimeAsync(300);
  }
  // Every dial has failed by now, so nothing is under way: what is pending is the one retry (it multiplied, one more
  // with each answer, to hundreds).
  expect(vi.getTimerCount()).toBe(1);
  dialer.stop();
  expect(vi.getTimerCount()).toBe(0);
});

it('counts the failure of a dial under way when an answer lists its peer again meanwhile', async () => {
  vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter
  const { node, dials } = unreachableNetwork(1_000);
  const dialer = new FoundPeerDialer(node, 12, DEFAULT_REDIAL);
  dialer.start();
  dialer.add(record(IDS[0]!)); // dial 1 at 0 s, refused at 1 s
  await vi.advanceTimersByTimeAsync(100);
  dialer.add(record(IDS[0]!)); // listed again while dial 1 waits
  await vi.advanceTimersByTimeAsync(3_150);
  dialer.stop();
  vi.restoreAllMocks();
  // Dial 2 at 1.5 s, refused at 2.5 s: its second failure in a row waits 1 s, so dial 3 is not due before 3.5 s. Had
  // the first failure been counted on an entry the answer replaced, dial 3 would have gone at 3 s.
  expect(dials).toHaveLength(2);
});
