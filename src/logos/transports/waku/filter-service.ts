/**
 * The service side of Waku Filter v2 (RFC 12), for light nodes that receive through this node instead of relaying:
 * `/vac/waku/filter-subscribe/2.0.0-beta1` takes subscriptions (pubsub topic + content topics), and every message
 * this node relays or publishes that matches one is pushed to the subscriber on `/vac/waku/filter-push/2.0.0-beta1`.
 * js-waku has no service side; this follows nwaku's (waku_filter_v2/protocol.nim, subscriptions.nim): its status
 * codes and limits (100 content topics per request, 1000 per peer, 100 subscribers), and a subscription lapses
 * after 5 minutes without a ping or a new subscription. A subscriber that disconnects loses its subscriptions
 * (nwaku keeps them until the peer leaves its peer store; a js-waku client subscribes again when it reconnects).
 */
import type { IncomingStreamData, Libp2p, Message, PeerId } from '@libp2p/interface';
import { proto_filter_v2, proto_message } from '@waku/proto';
import { awaitPeerClose, exchange, writeFrame } from './length-prefixed.ts';
import type { RelayAccess } from './light-push-service.ts';

export const FILTER_SUBSCRIBE_CODEC = '/vac/waku/filter-subscribe/2.0.0-beta1';
export const FILTER_PUSH_CODEC = '/vac/waku/filter-push/2.0.0-beta1';

const MAX_CONTENT_TOPICS_PER_REQUEST = 100;
const MAX_CRITERIA_PER_PEER = 1_000;
const MAX_SUBSCRIBERS = 100;
const SUBSCRIPTION_TTL_MS = 5 * 60_000;
/** nwaku's DefaultMaxSubscribeSize. */
const MAX_REQUEST_BYTES = 10 * 1024;
const TIMEOUT_MS = 10_000;
const PUSH_TIMEOUT_MS = 20_000;
/**
 * How long a push stream waits for the subscriber to close its side. A stock js-waku light node never does (see
 * filter-push-streams.ts), so past this the stream is reset; anything that closes does so within a round trip.
 */
const PUSH_CLOSE_GRACE_MS = 1_000;
/**
 * Push streams open at once to one subscriber: libp2p's default outbound limit per protocol and connection, under
 * js-waku's inbound one (FilterCore's 100). Past either, a push is reset and its message lost, so the rest wait.
 */
const MAX_PUSHES_IN_FLIGHT = 64;
/** Pushes waiting for a stream, per subscriber; past this a subscriber that cannot keep up misses messages. */
const MAX_BACKLOG = 4_096;

const Status = { OK: 200, BAD_REQUEST: 400, NOT_FOUND: 404, SERVICE_UNAVAILABLE: 503 } as const;
const Type = proto_filter_v2.FilterSubscribeRequest.FilterSubscribeType;

interface Subscriber {
  readonly peer: PeerId;
  /** `pubsubTopic \n contentTopic` */
  criteria: Set<string>;
  expiresAt: number;
  /** Push streams open to it, and the pushes waiting for one to end. */
  pushing: number;
  readonly backlog: Uint8Array[];
}

type Result = { status: number; description?: string };

export class FilterService {
  private readonly subscribers = new Map<string, Subscriber>();
  private readonly node: Libp2p;
  private readonly relay: RelayAccess;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(node: Libp2p, relay: RelayAccess) {
    this.node = node;
    this.relay = relay;
  }

  async start(): Promise<void> {
    await this.node.handle(FILTER_SUBSCRIBE_CODEC, this.onRequest, { runOnLimitedConnection: false });
    this.node.addEventListener('peer:disconnect', this.onDisconnect);
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref?.();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.node.removeEventListener('peer:disconnect', this.onDisconnect);
    this.subscribers.clear();
  }

  /** Subscribers a message on this shard and content topic is pushed to. */
  subscribersOf(pubsubTopic: string, contentTopic: string): number {
    const key = `${pubsubTopic}\n${contentTopic}`;
    let count = 0;
    for (const subscriber of this.subscribers.values()) if (subscriber.criteria.has(key)) count += 1;
    return count;
  }

  /** Pushes a relayed (or own) message to its subscribers. Called for every message on a joined shard. */
  readonly onRelayed = (event: CustomEvent<Message>): void => {
    if (this.subscribers.size === 0) return;
    const { topic, data } = event.detail;
    let message: proto_message.WakuMessage;
    try {
      message = proto_message.WakuMessage.decode(data);
    } catch {
      return;
    }
    const key = `${topic}\n${message.contentTopic}`;
    const now = Date.now();
    let push: Uint8Array | undefined;
    for (const subscriber of this.subscribers.values()) {
      if (subscriber.expiresAt <= now || !subscriber.criteria.has(key)) continue;
      push ??= proto_filter_v2.MessagePush.encode({ wakuMessage: message, pubsubTopic: topic });
      if (subscriber.pushing < MAX_PUSHES_IN_FLIGHT) this.pushTo(subscriber, push);
      else if (subscriber.backlog.length < MAX_BACKLOG) subscriber.backlog.push(push);
    }
  };

  /** Sends one push, then the next waiting one in its place. */
  private pushTo(subscriber: Subscriber, push: Uint8Array): void {
    subscriber.pushing += 1;
    void this.push(subscriber.peer, push).finally(() => {
      subscriber.pushing -= 1;
      const next = subscriber.backlog.shift();
      if (next) this.pushTo(subscriber, next);
    });
  }

  private async push(peer: PeerId, push: Uint8Array): Promise<void> {
    try {
      const stream = await this.node.dialProtocol(peer, FILTER_PUSH_CODEC, {
        signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
      });
      await writeFrame(stream, push, PUSH_TIMEOUT_MS);
      // A stream left half-open counts against both ends' stream limits until the connection closes: past 64 every
      // later push to this subscriber would fail, and its message be lost.
      await awaitPeerClose(stream, PUSH_CLOSE_GRACE_MS);
    } catch {
      // A subscriber that cannot be reached misses the message, as with nwaku; its subscription lapses in time.
    }
  }

  private readonly onDisconnect = (event: CustomEvent<PeerId>): void => {
    this.subscribers.delete(event.detail.toString());
  };

  private sweep(): void {
    const now = Date.now();
    for (const [id, subscriber] of this.subscribers) if (subscriber.expiresAt <= now) this.subscribers.delete(id);
  }

  private readonly onRequest = ({ stream, connection }: IncomingStreamData): void => {
    void (async () => {
      const bytes = await exchange(stream, undefined, MAX_REQUEST_BYTES, TIMEOUT_MS);
      if (!bytes) return stream.abort(new Error('no request'));
      let request: proto_filter_v2.FilterSubscribeRequest;
      try {
        request = proto_filter_v2.FilterSubscribeRequest.decode(bytes);
      } catch {
        // nwaku closes the stream without an answer.
        return stream.abort(new Error('undecodable filter request'));
      }
      const result = this.handle(connection.remotePeer, request);
      const response = proto_filter_v2.FilterSubscribeResponse.encode({
        requestId: request.requestId,
        statusCode: result.status,
        ...(result.description ? { statusDesc: result.description } : {}),
      });
      await writeFrame(stream, response, TIMEOUT_MS);
    })().catch((error: unknown) => stream.abort(error as Error));
  };

  private handle(peer: PeerId, request: proto_filter_v2.FilterSubscribeRequest): Result {
    const id = peer.toString();
    const existing = this.subscribers.get(id);
    switch (request.filterSubscribeType) {
      case Type.SUBSCRIBER_PING:
        if (!existing) return { status: Status.NOT_FOUND, description: 'peer has no subscriptions' };
        existing.expiresAt = Date.now() + SUBSCRIPTION_TTL_MS;
        return { status: Status.OK };
      case Type.SUBSCRIBE: {
        const criteria = this.criteriaOf(request);
        if ('status' in criteria) return criteria;
        if (!existing && this.subscribers.size >= MAX_SUBSCRIBERS) {
          return {
            status: Status.SERVICE_UNAVAILABLE,
            description: 'node has reached maximum number of subscriptions',
          };
        }
        const merged = new Set([...(existing?.criteria ?? []), ...criteria.keys]);
        if (merged.size > MAX_CRITERIA_PER_PEER) {
          return {
            status: Status.SERVICE_UNAVAILABLE,
            description: 'peer has reached maximum number of filter criteria',
          };
        }
        if (!this.relay.join(criteria.pubsubTopic)) {
          return { status: Status.BAD_REQUEST, description: `${criteria.pubsubTopic} is not a shard of this node` };
        }
        const expiresAt = Date.now() + SUBSCRIPTION_TTL_MS;
        if (existing) Object.assign(existing, { criteria: merged, expiresAt });
        else this.subscribers.set(id, { peer, criteria: merged, expiresAt, pushing: 0, backlog: [] });
        return { status: Status.OK };
      }
      case Type.UNSUBSCRIBE: {
        const criteria = this.criteriaOf(request);
        if ('status' in criteria) return criteria;
        if (!existing || !criteria.keys.some((key) => existing.criteria.has(key))) {
          return { status: Status.NOT_FOUND, description: 'peer has no subscriptions' };
        }
        for (const key of criteria.keys) existing.criteria.delete(key);
        if (existing.criteria.size === 0) this.subscribers.delete(id);
        return { status: Status.OK };
      }
      case Type.UNSUBSCRIBE_ALL:
        if (!existing) return { status: Status.NOT_FOUND, description: 'peer has no subscriptions' };
        this.subscribers.delete(id);
        return { status: Status.OK };
      default:
        return { status: Status.BAD_REQUEST, description: 'unknown request type' };
    }
  }

  private criteriaOf(
    request: proto_filter_v2.FilterSubscribeRequest,
  ): Result | { pubsubTopic: string; keys: string[] } {
    const { pubsubTopic, contentTopics } = request;
    if (!pubsubTopic || contentTopics.length === 0) {
      return { status: Status.BAD_REQUEST, description: 'pubsubTopic and contentTopics must be specified' };
    }
    if (contentTopics.length > MAX_CONTENT_TOPICS_PER_REQUEST) {
      return {
        status: Status.BAD_REQUEST,
        description: `exceeds maximum content topics: ${MAX_CONTENT_TOPICS_PER_REQUEST}`,
      };
    }
    return { pubsubTopic, keys: contentTopics.map((topic) => `${pubsubTopic}\n${topic}`) };
  }
}
