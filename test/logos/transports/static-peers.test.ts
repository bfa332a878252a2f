/**
 * The static-peer dialer's backoff, on simulated time: a fake libp2p node whose peer accepts every dial and, unless
 * told otherwise, hangs up at once (as a node of another cluster does after its metadata check).
 */
import type { Libp2p } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { DEFAULT_REDIAL, StaticPeerDialer } from '../../../src/logos/transports/waku/static-peers.ts';

const PEER = '12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo';
const ADDRESS = `/ip4/127.0.0.1/tcp/60001/p2p/${PEER}`;

/** A node whose one peer accepts each dial and stays connected for `stayMs` (0: hangs up in the same turn). */
function fakeNode(stayMs: number) {
  const events = new EventTarget();
  let open = false;
  const dials: number[] = [];
  const remotePeer = peerIdFromString(PEER);
  const node = {
    addEventListener: events.addEventListener.bind(events),
    removeEventListener: events.removeEventListener.bind(events),
    getConnections: () => (open ? [{ remotePeer, status: 'open' }] : []),
    dial: async () => {
      dials.push(Date.now());
      open = true;
      events.dispatchEvent(new CustomEvent('peer:connect', { detail: remotePeer }));
      setTimeout(() => {
        open = false;
        events.dispatchEvent(new CustomEvent('peer:disconnect', { detail: remotePeer }));
      }, stayMs);
      return { remotePeer };
    },
  };
  return { node: node as unknown as Libp2p, dials, events, remotePeer };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('backs off from a peer that accepts and hangs up at once, as from one that refuses', async () => {
  const { node, dials } = fakeNode(0);
  const dialer = new StaticPeerDialer(node, [ADDRESS], DEFAULT_REDIAL);
  dialer.start();
  await vi.advanceTimersByTimeAsync(60_000);
  dialer.stop();
  // Doubling from 500 ms (±20 % jitter): about 0.5, 1, 2, 4, 8, 16, 30 s apart. Resetting at each accepted dial
  // would redial every half second, some 120 times a minute.
  expect(dials.length).toBeGreaterThanOrEqual(6);
  expect(dials.length).toBeLessThanOrEqual(9);
  const gaps = dials.slice(1).map((at, i) => at - dials[i]!);
  for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThan(gaps[i - 1]!);
});

it('starts again from the shortest delay after a connection that lasted', async () => {
  const { node, dials } = fakeNode(DEFAULT_REDIAL.stableMs + 1_000);
  const dialer = new StaticPeerDialer(node, [ADDRESS], DEFAULT_REDIAL);
  dialer.start();
  await vi.advanceTimersByTimeAsync(4 * (DEFAULT_REDIAL.stableMs + 1_000 + DEFAULT_REDIAL.initialMs * 1.2));
  dialer.stop();
  // Each connection lasted 11 s and the next dial followed within 0.6 s of its end, every time.
  expect(dials.length).toBeGreaterThanOrEqual(4);
  for (let i = 1; i < dials.length; i++) {
    expect(dials[i]! - dials[i - 1]!).toBeLessThanOrEqual(
      DEFAULT_REDIAL.stableMs + 1_000 + DEFAULT_REDIAL.initialMs * 1.2,
    );
  }
});

it('counts a connection the peer opened while a redial was pending, so a quick hang-up after it still backs off', async () => {
  vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter: dials at 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 61.5 s
  const { node, dials, events, remotePeer } = fakeNode(0);
  const dialer = new StaticPeerDialer(node, [ADDRESS], DEFAULT_REDIAL);
  dialer.start();
  await vi.advanceTimersByTimeAsync(32_000);
  // While the next redial waits (30 s), the peer dials in and drops again: a connection begun long before it.
  events.dispatchEvent(new CustomEvent('peer:connect', { detail: remotePeer }));
  events.dispatchEvent(new CustomEvent('peer:disconnect', { detail: remotePeer }));
  const before = dials.length;
  await vi.advanceTimersByTimeAsync(40_000);
  dialer.stop();
  vi.restoreAllMocks();
  // The redial at 61.5 s and no other: not the reset to half a second that a stale start of that connection causes.
  expect(dials.length - before).toBe(1);
});
