/**
 * Waku Peer Exchange (`/vac/waku/peer-exchange/2.0.0-alpha1`, RFC 34), the client side: finds relay peers beyond the
 * configured ones by asking connected peers that serve the protocol (the fleets' nodes do) for records of others.
 *
 * - **Who is asked**: a peer whose identify lists the protocol, as soon as it is identified, then again every
 *   `intervalMs`; only while the node has room for more relay peers, and one request at a time per peer.
 * - **The exchange**: one length-prefixed PeerExchangeRPC each way; the request asks for `maxPeers` records, the
 *   answer's `response` lists ENRs. nwaku also sends a status (field 10) that is not read here: an answer without a
 *   `response` (nwaku's refusals: bad request, too many requests, unavailable), one that does not decode or that
 *   does not come within `ANSWER_TIMEOUT_MS` is a failed request, and the peer is asked again at the next interval.
 * - **Who is dialled**: the peers of the records that pass `readPeerRecord`, while relay peers plus dials under way
 *   stay under `maxPeers`. A failed dial keeps that peer from being tried again for a backoff that doubles with each
 *   failure; a peer that dropped is dialled again when a later answer lists it and there is room.
 */
import type { IdentifyResult, Libp2p, PeerId } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { proto_peer_exchange } from '@waku/proto';
import { exchange } from './length-prefixed.ts';
import { RELAY_CODEC } from './node.ts';
import { MAX_RECORD_BYTES, readPeerRecord, type PeerRecord, type RecordRefusal } from './peer-records.ts';

export const PEER_EXCHANGE_CODEC = '/vac/waku/peer-exchange/2.0.0-alpha1';
/** How long a peer has to answer once the stream is open. */
const ANSWER_TIMEOUT_MS = 10_000;
/** Peers whose failed dials are remembered; past it the oldest are forgotten (records come from the network). */
const MAX_REMEMBERED_FAILURES = 1_024;

export interface PeerExchangePolicy {
  /** Relay peers beyond which no more are looked for. */
  maxPeers: number;
  /** How often a peer that serves peer exchange is asked again while there is room. */
  intervalMs: number;
  /** Backoff of a peer whose dial failed: `initialMs` doubling up to `maxMs`. */
  retry: { initialMs: number; maxMs: number };
}

export interface PeerExchangeNode {
  clusterId: number;
  /** The shards the node relays now. */
  shards(): number[];
}

/** What peer exchange did, for diagnostics and tests. */
export interface PeerExchangeCounters {
  requests: number;
  /** Requests without a usable answer (see the module comment). */
  failedRequests: number;
  /** Peers dialled from records, successfully or not. */
  dials: number;
  /** Records not used, by reason. */
  refused: Record<RecordRefusal, number>;
}

interface Failure {
  count: number;
  retryAt: number;
}

export class PeerExchangeClient {
  readonly counters: PeerExchangeCounters = {
    requests: 0,
    failedRequests: 0,
    dials: 0,
    refused: { invalid: 0, 'other-cluster': 0, 'other-shards': 0, 'not-relay': 0, 'no-address': 0 },
  };
  private readonly abort = new AbortController();
  /** Connected peers that serve peer exchange, with when each was last asked. */
  private readonly servers = new Map<string, { peerId: PeerId; askedAt: number; asking: boolean }>();
  /** Connected peers identified as not relaying (light clients of this node): they do not count against `maxPeers`. */
  private readonly notRelaying = new Set<string>();
  private readonly dialing = new Set<string>();
  private readonly failures = new Map<string, Failure>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly node: Libp2p;
  private readonly local: PeerExchangeNode;
  private readonly policy: PeerExchangePolicy;

  constructor(node: Libp2p, local: PeerExchangeNode, policy: PeerExchangePolicy) {
    this.node = node;
    this.local = local;
    this.policy = policy;
  }

  start(): void {
    this.node.addEventListener('peer:identify', this.onIdentify);
    this.node.addEventListener('peer:disconnect', this.onDisconnect);
    this.timer = setInterval(() => {
      for (const id of this.servers.keys()) void this.ask(id);
    }, this.policy.intervalMs);
    // Asking never keeps the process alive by itself.
    this.timer.unref?.();
  }

  stop(): void {
    this.abort.abort();
    clearInterval(this.timer);
    this.node.removeEventListener('peer:identify', this.onIdentify);
    this.node.removeEventListener('peer:disconnect', this.onDisconnect);
    this.servers.clear();
    this.notRelaying.clear();
  }

  private readonly onIdentify = (event: CustomEvent<IdentifyResult>): void => {
    const { peerId, protocols } = event.detail;
    const id = peerId.toString();
    if (protocols.includes(RELAY_CODEC)) this.notRelaying.delete(id);
    else this.notRelaying.add(id);
    if (!protocols.includes(PEER_EXCHANGE_CODEC)) return;
    if (!this.servers.has(id)) this.servers.set(id, { peerId, askedAt: 0, asking: false });
    void this.ask(id);
  };

  private readonly onDisconnect = (event: CustomEvent<PeerId>): void => {
    this.servers.delete(event.detail.toString());
    this.notRelaying.delete(event.detail.toString());
  };

  /**
   * How many more peers may be dialled. A peer not yet identified counts as a relay peer, and one being dialled may
   * count twice for a moment: the node errs on the side of fewer dials.
   */
  private room(): number {
    const relayPeers = this.node.getPeers().filter((peer) => !this.notRelaying.has(peer.toString())).length;
    return this.policy.maxPeers - relayPeers - this.dialing.size;
  }

  private async ask(id: string): Promise<void> {
    const server = this.servers.get(id);
    const now = Date.now();
    if (!server || server.asking || this.abort.signal.aborted || this.room() <= 0) return;
    // Half the interval: the timer's ticks fall a little short of it, and an identify push asks again no sooner.
    if (now - server.askedAt < this.policy.intervalMs / 2) return;
    server.asking = true;
    server.askedAt = now;
    this.counters.requests += 1;
    let records: Uint8Array[];
    try {
      records = await this.request(server.peerId);
    } catch {
      if (!this.abort.signal.aborted) this.counters.failedRequests += 1;
      return;
    } finally {
      server.asking = false;
    }
    await this.consider(records);
  }

  /** One exchange: the ENRs of the answer, at most as many as were asked for. */
  private async request(peerId: PeerId): Promise<Uint8Array[]> {
    const wanted = this.policy.maxPeers;
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(ANSWER_TIMEOUT_MS)]);
    const stream = await this.node.dialProtocol(peerId, PEER_EXCHANGE_CODEC, { signal });
    const request = proto_peer_exchange.PeerExchangeRPC.encode({ query: { numPeers: BigInt(wanted) } });
    // Room for the records asked for, each with its field tags and lengths.
    const answer = await exchange(stream, request, wanted * (MAX_RECORD_BYTES + 8) + 64, ANSWER_TIMEOUT_MS);
    if (!answer) throw new Error('the stream ended without an answer');
    const { response } = proto_peer_exchange.PeerExchangeRPC.decode(answer);
    if (!response) throw new Error('the answer has no response');
    return response.peerInfos.flatMap((info) => (info.enr ? [info.enr] : [])).slice(0, wanted);
  }

  private async consider(records: Uint8Array[]): Promise<void> {
    const local = { clusterId: this.local.clusterId, shards: this.local.shards() };
    for (const bytes of records) {
      const record = await readPeerRecord(bytes, local);
      if (this.abort.signal.aborted) return;
      if ('refused' in record) {
        this.counters.refused[record.refused] += 1;
        continue;
      }
      if (this.room() <= 0) return;
      if (this.isNew(record.peerId)) void this.dial(record);
    }
  }

  private isNew(id: string): boolean {
    if (id === this.node.peerId.toString() || this.dialing.has(id)) return false;
    if (this.node.getConnections().some((c) => c.remotePeer.toString() === id && c.status === 'open')) return false;
    return (this.failures.get(id)?.retryAt ?? 0) <= Date.now();
  }

  private async dial(record: PeerRecord): Promise<void> {
    this.dialing.add(record.peerId);
    this.counters.dials += 1;
    try {
      await this.node.dial(
        record.multiaddrs.map((address) => multiaddr(address)),
        { signal: this.abort.signal },
      );
      this.failures.delete(record.peerId);
    } catch {
      this.failed(record.peerId);
    } finally {
      this.dialing.delete(record.peerId);
    }
  }

  private failed(id: string): void {
    const count = (this.failures.get(id)?.count ?? 0) + 1;
    const { initialMs, maxMs } = this.policy.retry;
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(count - 1, 20));
    this.failures.delete(id); // re-inserted last: the map's order is the order of failures
    this.failures.set(id, { count, retryAt: Date.now() + delay });
    if (this.failures.size > MAX_REMEMBERED_FAILURES) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }
}
