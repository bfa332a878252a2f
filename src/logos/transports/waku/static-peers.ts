/**
 * Keeps the node connected to its configured peers: each is dialled at start, and again after a failed dial or a
 * lost connection, with exponential backoff (and jitter) between attempts, for as long as the node runs.
 *
 * A connection counts as a success only once it has stayed up for `stableMs`. A peer that accepts and then hangs
 * up at once (another cluster's node, whose metadata check refuses us; a node with no free slots) is a failure like
 * a refused dial, so its redials back off too instead of repeating twice a second.
 */
import type { Libp2p, PeerId } from '@libp2p/interface';
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr';

export interface RedialPolicy {
  /** Delay before the first retry after a failed dial or a lost connection; doubles with each further failure. */
  initialMs: number;
  /** Longest delay between attempts. */
  maxMs: number;
  /** How long a connection must stay up before the backoff starts again from `initialMs`. */
  stableMs: number;
}

/** 500 ms doubling up to 30 s; a connection that lasts 10 s resets it. */
export const DEFAULT_REDIAL: RedialPolicy = { initialMs: 500, maxMs: 30_000, stableMs: 10_000 };

/**
 * The wait before the next dial after `failures` failures in a row: `initialMs` doubling with each, at most `maxMs`,
 * with ±20 % jitter so that peers who lost each other at one moment do not all come back at one moment.
 */
export function redialDelay(policy: RedialPolicy, failures: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(0, failures - 1), 20));
  // Whole milliseconds: timers fire on whole milliseconds, and a caller comparing a clock with now + delay must not
  // find the timer early.
  return Math.ceil(base * (0.8 + Math.random() * 0.4));
}

interface StaticPeer {
  readonly address: Multiaddr;
  /** Learned from the first connection when the multiaddr has no /p2p/ part. */
  peerId: string | undefined;
  failures: number;
  /** When the current connection came up (performance.now()), while there is one. */
  connectedAt: number | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  dialing: boolean;
  /** No longer wanted (remove): not dialled again. */
  removed?: boolean;
}

export class StaticPeerDialer {
  private readonly peers: StaticPeer[];
  private readonly node: Libp2p;
  private readonly policy: RedialPolicy;
  private readonly abort = new AbortController();
  private stopped = false;

  private started = false;

  constructor(node: Libp2p, addresses: readonly string[], policy: RedialPolicy) {
    this.node = node;
    this.policy = policy;
    this.peers = addresses.map(newPeer);
  }

  start(): void {
    this.started = true;
    this.node.addEventListener('peer:connect', this.onConnect);
    this.node.addEventListener('peer:disconnect', this.onDisconnect);
    for (const peer of this.peers) void this.dial(peer);
  }

  /** Keeps `text` too (a replica that DNS now lists), dialling it at once once started. */
  add(text: string): void {
    if (this.peers.some((peer) => peer.address.toString() === text)) return;
    const peer = newPeer(text);
    this.peers.push(peer);
    if (this.started) void this.dial(peer);
  }

  /** Stops keeping `text` (a replica that DNS no longer lists); a connection it has is left to end by itself. */
  remove(text: string): void {
    const index = this.peers.findIndex((peer) => peer.address.toString() === text);
    if (index === -1) return;
    const [peer] = this.peers.splice(index, 1);
    peer!.removed = true;
    if (peer!.timer) clearTimeout(peer!.timer);
    peer!.timer = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.node.removeEventListener('peer:connect', this.onConnect);
    this.node.removeEventListener('peer:disconnect', this.onDisconnect);
    for (const peer of this.peers) {
      if (peer.timer) clearTimeout(peer.timer);
      peer.timer = undefined;
    }
  }

  /** A connection whichever side opened it: the peer may have dialled this node first. */
  private readonly onConnect = (event: CustomEvent<PeerId>): void => {
    const id = event.detail.toString();
    for (const peer of this.peers) if (peer.peerId === id) peer.connectedAt ??= performance.now();
  };

  private readonly onDisconnect = (event: CustomEvent<PeerId>): void => {
    const id = event.detail.toString();
    for (const peer of this.peers) {
      if (peer.peerId !== id) continue;
      // Counted even while a redial is pending or under way (the peer dialled in meanwhile): a stale connectedAt
      // would make the next quick hang-up look like a connection that lasted.
      this.lost(peer);
      if (!peer.dialing && !peer.timer) this.schedule(peer);
    }
  };

  /** The peer's connection ended: a success if it lasted, a failure if the peer hung up soon after accepting. */
  private lost(peer: StaticPeer): void {
    const lasted = peer.connectedAt !== undefined && performance.now() - peer.connectedAt >= this.policy.stableMs;
    peer.connectedAt = undefined;
    peer.failures = lasted ? 0 : peer.failures + 1;
  }

  private async dial(peer: StaticPeer): Promise<void> {
    if (this.stopped || peer.removed) return;
    peer.timer = undefined;
    peer.dialing = true;
    try {
      const connection = await this.node.dial(peer.address, { signal: this.abort.signal });
      peer.peerId = connection.remotePeer.toString();
      peer.connectedAt ??= performance.now();
    } catch {
      peer.failures += 1;
    } finally {
      peer.dialing = false;
    }
    // Also covers a connection that closed while the dial was settling (its disconnect was ignored meanwhile).
    if (!this.isConnected(peer)) {
      if (peer.connectedAt !== undefined) this.lost(peer);
      this.schedule(peer);
    }
  }

  private isConnected(peer: StaticPeer): boolean {
    if (peer.peerId === undefined) return false;
    return this.node.getConnections().some((c) => c.remotePeer.toString() === peer.peerId && c.status === 'open');
  }

  private schedule(peer: StaticPeer): void {
    if (this.stopped || peer.removed || peer.timer) return;
    const delay = redialDelay(this.policy, peer.failures);
    peer.timer = setTimeout(() => void this.dial(peer), delay);
    // A pending redial alone never keeps the process alive.
    peer.timer.unref?.();
  }
}

function newPeer(text: string): StaticPeer {
  const address = multiaddr(text);
  return {
    address,
    peerId: address.getPeerId() ?? undefined,
    failures: 0,
    connectedAt: undefined,
    timer: undefined,
    dialing: false,
  };
}
