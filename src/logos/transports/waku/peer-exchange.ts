/**
 * Waku Peer Exchange (`/vac/waku/peer-exchange/2.0.0-alpha1`, RFC 34), the client side: finds relay peers beyond the
 * configured ones by asking connected peers that serve the protocol (the fleets' nodes do) for records of others.
 *
 * - **Who is asked**: a peer this node dialled (its static peers, the network's entry nodes, peers found before)
 *   whose identify lists the protocol, as soon as it is identified, then again every `intervalMs`; only while the
 *   node has room for more relay peers, and one request at a time per peer. A peer that dialled this node is not
 *   asked: anyone can, and its records would choose whom this node dials.
 * - **The exchange**: one length-prefixed PeerExchangeRPC each way; the request asks for `maxPeers` records, the
 *   answer's `response` lists ENRs. nwaku also sends a status (field 10) that is not read here: an answer without a
 *   `response` (nwaku's refusals: bad request, too many requests, unavailable), one that does not decode or that
 *   does not come within `ANSWER_TIMEOUT_MS` is a failed request, and the peer is asked again at the next interval.
 * - **Who is dialled**: the peers of the records that pass `readPeerRecord`, at their public addresses only (a
 *   record costs nothing to make, and one naming 127.0.0.1:5432 would have the node connect to its own database),
 *   unless the answering peer is itself at a private address (a fleet of one's own network, or a test); kept
 *   connected up to `maxPeers` relay peers, and redialled with backoff when they fail or drop (`found-peers.ts`).
 */
import type { IdentifyResult, Libp2p, PeerId } from '@libp2p/interface';
import { proto_peer_exchange } from '@waku/proto';
import { exchange } from './length-prefixed.ts';
import { FoundPeerDialer } from './found-peers.ts';
import { dialableAddresses, MAX_RECORD_BYTES, readPeerRecord, type RecordRefusal } from './peer-records.ts';
import type { RedialPolicy } from './static-peers.ts';

export const PEER_EXCHANGE_CODEC = '/vac/waku/peer-exchange/2.0.0-alpha1';
/** How long a peer has to answer once the stream is open. */
const ANSWER_TIMEOUT_MS = 10_000;

export interface PeerExchangePolicy {
  /** Relay peers beyond which no more are looked for. */
  maxPeers: number;
  /** How often a peer that serves peer exchange is asked again while there is room. */
  intervalMs: number;
  /** Backoff of a found peer whose dial failed or that dropped (see `found-peers.ts`). */
  retry: RedialPolicy;
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

export class PeerExchangeClient {
  private readonly counts = {
    requests: 0,
    failedRequests: 0,
    refused: { invalid: 0, 'other-cluster': 0, 'other-shards': 0, 'not-relay': 0, 'no-address': 0 },
  };
  private readonly abort = new AbortController();
  /** Connected peers that serve peer exchange, with when each was last asked. */
  private readonly servers = new Map<string, { peerId: PeerId; askedAt: number; asking: boolean }>();
  private readonly found: FoundPeerDialer;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly node: Libp2p;
  private readonly local: PeerExchangeNode;
  private readonly policy: PeerExchangePolicy;

  constructor(node: Libp2p, local: PeerExchangeNode, policy: PeerExchangePolicy) {
    this.node = node;
    this.local = local;
    this.policy = policy;
    this.found = new FoundPeerDialer(node, policy.maxPeers, policy.retry);
  }

  get counters(): PeerExchangeCounters {
    return { ...this.counts, refused: { ...this.counts.refused }, dials: this.found.dials };
  }

  start(): void {
    this.found.start();
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
    this.found.stop();
    this.node.removeEventListener('peer:identify', this.onIdentify);
    this.node.removeEventListener('peer:disconnect', this.onDisconnect);
    this.servers.clear();
  }

  private readonly onIdentify = (event: CustomEvent<IdentifyResult>): void => {
    const { peerId, protocols, connection } = event.detail;
    if (!protocols.includes(PEER_EXCHANGE_CODEC) || connection.direction !== 'outbound') return;
    const id = peerId.toString();
    if (!this.servers.has(id)) this.servers.set(id, { peerId, askedAt: 0, asking: false });
    void this.ask(id);
  };

  private readonly onDisconnect = (event: CustomEvent<PeerId>): void => {
    this.servers.delete(event.detail.toString());
  };

  private async ask(id: string): Promise<void> {
    const server = this.servers.get(id);
    const now = Date.now();
    if (!server || server.asking || this.abort.signal.aborted || this.found.room() <= 0) return;
    // Half the interval: the timer's ticks fall a little short of it, and an identify push asks again no sooner.
    if (now - server.askedAt < this.policy.intervalMs / 2) return;
    server.asking = true;
    server.askedAt = now;
    this.counts.requests += 1;
    let records: Uint8Array[];
    // Where the answer comes from decides which addresses its records may send this node to.
    const answeredFrom = this.node.getConnections(server.peerId)[0]?.remoteAddr.toOptions().host;
    try {
      records = await this.request(server.peerId);
    } catch {
      if (!this.abort.signal.aborted) this.counts.failedRequests += 1;
      return;
    } finally {
      server.asking = false;
    }
    await this.consider(records, answeredFrom);
  }

  /** One exchange: the ENRs of the answer, at most as many as were asked for. */
  private async request(peerId: PeerId): Promise<Uint8Array[]> {
    const wanted = this.policy.maxPeers;
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(ANSWER_TIMEOUT_MS)]);
    const stream = await this.node.dialProtocol(peerId, PEER_EXCHANGE_CODEC, { signal });
    const request = proto_peer_exchange.PeerExchangeRPC.encode({ query: { numPeers: BigInt(wanted) } });
    let answer: Uint8Array | undefined;
    try {
      // Room for the records asked for, each with its field tags and lengths.
      answer = await exchange(stream, request, wanted * (MAX_RECORD_BYTES + 8) + 64, ANSWER_TIMEOUT_MS);
    } finally {
      // One exchange per stream: whatever the peer does next, the stream ends here, or it would stay open (and
      // count against the connection's streams) until the peer closed it.
      stream.abort(new Error('peer exchange done'));
    }
    if (!answer) throw new Error('the stream ended without an answer');
    const { response } = proto_peer_exchange.PeerExchangeRPC.decode(answer);
    if (!response) throw new Error('the answer has no response');
    return response.peerInfos.flatMap((info) => (info.enr ? [info.enr] : [])).slice(0, wanted);
  }

  private async consider(records: Uint8Array[], answeredFrom: string | undefined): Promise<void> {
    const local = { clusterId: this.local.clusterId, shards: this.local.shards() };
    for (const bytes of records) {
      const record = await readPeerRecord(bytes, local);
      if (this.abort.signal.aborted) return;
      if ('refused' in record) {
        this.counts.refused[record.refused] += 1;
        continue;
      }
      const reachable = dialableAddresses(record.multiaddrs, answeredFrom);
      if (reachable.length === 0) this.counts.refused['no-address'] += 1;
      else this.found.add({ ...record, multiaddrs: reachable });
    }
  }
}
