/**
 * Keeps the node connected to the relay peers that peer exchange found, without exceeding a number of relay peers.
 *
 * - **The cap**: peers are dialled while relay peers plus dials under way are under `maxPeers`. A peer identified
 *   without relay (a light client of this node) does not count; one not identified yet does, so the node errs on
 *   the side of fewer dials.
 * - **Backoff**, as for static peers (`RedialPolicy`): a failed dial, or a connection that drops before it has lasted
 *   `stableMs`, counts as a failure: the peer is dialled again after `initialMs` doubling with each failure up to
 *   `maxMs`, and forgotten after `MAX_FAILURES` in a row (a later answer that lists it brings it back). A peer that
 *   drops after a stable connection is redialled after `initialMs`. One that the metadata guard hangs up on (another
 *   cluster, though its record did not say so) fails that way until forgotten.
 * - **Memory**: the `MAX_FOUND` most recently listed peers; the most recent are dialled first.
 */
import type { IdentifyResult, Libp2p, PeerId } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { RELAY_CODEC } from './node.ts';
import type { PeerRecord } from './peer-records.ts';
import { redialDelay, type RedialPolicy } from './static-peers.ts';

/** Found peers remembered (records come from the network). */
const MAX_FOUND = 64;
/** Failures in a row after which a found peer is forgotten. */
const MAX_FAILURES = 5;

interface FoundPeer {
  record: PeerRecord;
  failures: number;
  retryAt: number;
  connectedAt: number | undefined;
}

export class FoundPeerDialer {
  /** Dials started, successful or not. */
  dials = 0;
  private readonly found = new Map<string, FoundPeer>();
  private readonly dialing = new Set<string>();
  /** Connected peers identified as not relaying. */
  private readonly notRelaying = new Set<string>();
  /** The one pending retry, and when it is due (performance.now()). */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDue = Infinity;
  private readonly abort = new AbortController();
  private readonly node: Libp2p;
  private readonly maxPeers: number;
  private readonly retry: RedialPolicy;

  constructor(node: Libp2p, maxPeers: number, retry: RedialPolicy) {
    this.node = node;
    this.maxPeers = maxPeers;
    this.retry = retry;
  }

  start(): void {
    this.node.addEventListener('peer:identify', this.onIdentify);
    this.node.addEventListener('peer:disconnect', this.onDisconnect);
  }

  stop(): void {
    this.abort.abort();
    this.node.removeEventListener('peer:identify', this.onIdentify);
    this.node.removeEventListener('peer:disconnect', this.onDisconnect);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** How many more peers may be dialled. */
  room(): number {
    const relayPeers = this.node.getPeers().filter((peer) => !this.notRelaying.has(peer.toString())).length;
    return this.maxPeers - relayPeers - this.dialing.size;
  }

  /** A peer listed by an answer: remembered (as the most recent), and dialled if there is room. */
  add(record: PeerRecord): void {
    if (record.peerId === this.node.peerId.toString()) return;
    const known = this.found.get(record.peerId);
    // Updated in place: a dial under way holds this very object, and its outcome must count.
    if (known) known.record = record;
    this.found.delete(record.peerId);
    this.found.set(record.peerId, known ?? { record, failures: 0, retryAt: 0, connectedAt: undefined });
    if (this.found.size > MAX_FOUND) this.found.delete(this.found.keys().next().value!);
    this.dialSome();
  }

  private dialSome(): void {
    if (this.abort.signal.aborted) return;
    const now = performance.now();
    let soonest = Infinity;
    for (const [id, peer] of [...this.found].reverse()) {
      if (this.room() <= 0) return;
      if (this.dialing.has(id) || this.isConnected(id)) continue;
      if (peer.retryAt <= now) void this.dial(id, peer);
      else soonest = Math.min(soonest, peer.retryAt - now);
    }
    // The next backoff to end: its peer is tried then, not when the next answer comes round.
    if (soonest !== Infinity) this.later(soonest);
  }

  private isConnected(id: string): boolean {
    return this.node.getConnections().some((c) => c.remotePeer.toString() === id && c.status === 'open');
  }

  private async dial(id: string, peer: FoundPeer): Promise<void> {
    this.dialing.add(id);
    this.dials += 1;
    try {
      await this.node.dial(
        peer.record.multiaddrs.map((address) => multiaddr(address)),
        { signal: this.abort.signal },
      );
      peer.connectedAt = performance.now();
    } catch {
      this.failed(id, peer);
    } finally {
      this.dialing.delete(id);
    }
  }

  private failed(id: string, peer: FoundPeer): void {
    peer.failures += 1;
    if (peer.failures >= MAX_FAILURES) {
      this.found.delete(id);
      return;
    }
    const delay = redialDelay(this.retry, peer.failures);
    peer.retryAt = performance.now() + delay;
    this.later(delay);
  }

  /**
   * Tries again in `delayMs`, on one timer: a later call moves it only earlier, so however many events ask for a
   * retry, one is pending (a pending retry never keeps the process alive).
   */
  private later(delayMs: number): void {
    if (this.abort.signal.aborted) return;
    const due = performance.now() + delayMs;
    if (this.timer !== undefined && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Infinity;
      this.dialSome();
    }, Math.ceil(delayMs));
    this.timer.unref?.();
  }

  private readonly onIdentify = (event: CustomEvent<IdentifyResult>): void => {
    const id = event.detail.peerId.toString();
    if (event.detail.protocols.includes(RELAY_CODEC)) this.notRelaying.delete(id);
    else this.notRelaying.add(id);
  };

  private readonly onDisconnect = (event: CustomEvent<PeerId>): void => {
    const id = event.detail.toString();
    this.notRelaying.delete(id);
    const peer = this.found.get(id);
    if (!peer || peer.connectedAt === undefined || this.dialing.has(id)) {
      // Room for another found peer, perhaps.
      this.later(0);
      return;
    }
    const lasted = performance.now() - peer.connectedAt;
    peer.connectedAt = undefined;
    if (lasted >= this.retry.stableMs) {
      peer.failures = 0;
      peer.retryAt = performance.now() + this.retry.initialMs;
      this.later(this.retry.initialMs);
    } else {
      this.failed(id, peer);
    }
  };
}
