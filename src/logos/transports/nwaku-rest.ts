/**
 * The `nwaku-rest` transport: a party of the binding that reaches Logos Messaging through the REST API of someone
 * else's relay node (nwaku, logos-delivery, or our own node's REST face), for runtimes that cannot run a node of
 * their own, such as Cloudflare Workers. It uses `fetch` and Web APIs only.
 *
 * It puts on the network exactly what the `waku` transport does (same addresses, inbox topics and payloads, see
 * `waku/payloads.ts`), so parties on either transport talk to each other: 1:1 messages are WakuMessage version 1
 * on the recipient's inbox topic (signed, ECIES-encrypted to the recipient), keyed publications version 1 on their
 * content topic (signed, AES-256-GCM-encrypted under the topic key), plain publications version 0 (the bytes as
 * given), all through `POST /relay/v1/auto/messages` (the node picks the shard by autosharding). It subscribes with
 * `POST /relay/v1/auto/subscriptions` to its inbox and to every topic a handler listens on, and polls
 * `GET /relay/v1/auto/messages/{topic}`, which drains what the node cached since the last poll.
 *
 * Polling runs every `pollIntervalMs`, or only when `poll()` is called (interval 0: a Worker drives it from an
 * alarm). A node that forgot our subscriptions (it restarted: the poll gets 404) is subscribed again. A poll drains
 * the node's cache of a topic for all its clients, so two parties on one node must not listen on the same topic.
 *
 * Like the network, `send` and `publish` reject only for the caller's mistakes (not started, bad address or topic,
 * payload too large); a node that cannot be reached or refuses a message loses it, with a warning. What is received
 * is checked, dropped and counted by the code the `waku` transport uses (`waku/receiver.ts`): undecryptable,
 * unsigned, forged, for another recipient, or a repeat of a message already delivered.
 */
import { contentTopicToShardIndex } from '@waku/utils';
import { FLEET_MAX_MESSAGE_BYTES, payloadBytesPerMessage } from '../network-presets.ts';
import type { LogosTransport, PayloadHandler, TopicOptions, Unsubscribe } from '../transport.ts';
import {
  NWAKU_ROUTES,
  messagesPath,
  parseRelayMessages,
  relayMessageJson,
  type RelayMessage,
} from '../node-rest/wire.ts';
import { checkedInteger, SealingTransport } from './waku/sealing-transport.ts';
import { PartyReceiver, deliver, topicKey, type TopicListener, type WakuDropCounters } from './waku/receiver.ts';

export interface NwakuRestTransportOptions {
  /** The node's REST API, e.g. http://127.0.0.1:8645. */
  url: string;
  /** This party's identity: a 32-byte secp256k1 secret key. Generated when absent. */
  privateKey?: Uint8Array;
  /** How often subscribed topics are polled. Default 250 ms; 0: only when `poll()` is called. */
  pollIntervalMs?: number;
  /** Timeout of one request to the node. Default 10 s. */
  requestTimeoutMs?: number;
  /**
   * Largest payload accepted by `send`/`publish` and delivered to handlers. Default: what fits in one message of the
   * network presets' 150 KiB (nwaku's `maxMessageSize`), as the `waku` transport's: a node refuses a larger message,
   * and an agent cuts a result into chunks of this size.
   */
  maxPayloadBytes?: number;
  /** How many recent message hashes are remembered to drop repeats. Default 32768. */
  dedupeCapacity?: number;
  /** The fetch to use (a Worker's service binding, say). Default: the global fetch. */
  fetch?: typeof fetch;
}

/** Any shard count validates a content topic's form; the node does the real placement. */
const TOPIC_CHECK_SHARDS = 8;

type State = 'new' | 'running' | 'stopped';

export class NwakuRestTransport extends SealingTransport implements LogosTransport {
  protected readonly transportName = 'nwaku-rest transport';
  /** Messages dropped, by reason (as the `waku` transport counts them). */
  readonly dropped: WakuDropCounters;

  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly pollIntervalMs: number;
  private readonly requestTimeoutMs: number;
  /** Largest payload `send`/`publish` take. */
  readonly maxPayloadBytes: number;
  private readonly receiver: PartyReceiver;
  private readonly topicHandlers = new Map<string, Set<TopicListener>>();
  /** Topics the node has confirmed we subscribe to. */
  private readonly subscribed = new Set<string>();
  private state: State = 'new';
  /** Subscription changes, in order; sends wait for it so a reply never comes before its topic is polled. */
  private subscriptions: Promise<void> = Promise.resolve();
  private polling: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: NwakuRestTransportOptions) {
    super(options.privateKey);
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new TypeError(`nwaku-rest transport: url must be an http(s) URL, got ${JSON.stringify(options.url)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`nwaku-rest transport: url must be an http(s) URL, got ${JSON.stringify(options.url)}`);
    }
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.pollIntervalMs = atLeast(options.pollIntervalMs ?? 250, 'pollIntervalMs', 0);
    this.requestTimeoutMs = atLeast(options.requestTimeoutMs ?? 10_000, 'requestTimeoutMs', 1);
    this.maxPayloadBytes = atLeast(
      options.maxPayloadBytes ?? payloadBytesPerMessage(FLEET_MAX_MESSAGE_BYTES),
      'maxPayloadBytes',
      1,
    );
    this.receiver = new PartyReceiver(
      this.identity,
      this.maxPayloadBytes,
      atLeast(options.dedupeCapacity ?? 32_768, 'dedupeCapacity', 1),
    );
    this.dropped = this.receiver.dropped;
  }

  /** The node's REST API this transport uses. */
  get url(): string {
    return this.baseUrl;
  }

  /** Subscribes to its inbox and the topics listened on; fails when the node cannot be reached or refuses. */
  async start(): Promise<void> {
    if (this.state === 'running') return;
    const topics = [this.inboxTopic, ...this.topicHandlers.keys()];
    const answer = await this.request('POST', NWAKU_ROUTES.subscriptions, JSON.stringify(topics));
    if (!answer.ok) throw new Error(`nwaku-rest transport: cannot subscribe at ${this.baseUrl}: ${answer.error}`);
    for (const topic of topics) this.subscribed.add(topic);
    this.state = 'running';
    if (this.pollIntervalMs > 0) this.schedulePoll();
  }

  /** Stops polling and tells the node to forget our subscriptions (best effort). */
  async stop(): Promise<void> {
    if (this.state !== 'running') {
      this.forgetHandlers();
      return;
    }
    this.state = 'stopped';
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling?.catch(() => undefined);
    await this.subscriptions;
    const topics = [...this.subscribed];
    this.subscribed.clear();
    this.forgetHandlers();
    this.receiver.clear();
    if (topics.length > 0) await this.request('DELETE', NWAKU_ROUTES.subscriptions, JSON.stringify(topics));
  }

  subscribe(topic: string, handler: PayloadHandler, options: TopicOptions = {}): Unsubscribe {
    assertContentTopic(topic);
    const listener: TopicListener = { handler, key: options.key && topicKey(options.key, this.transportName) };
    let listeners = this.topicHandlers.get(topic);
    if (!listeners) this.topicHandlers.set(topic, (listeners = new Set()));
    listeners.add(listener);
    if (this.state === 'running') this.changeSubscriptions('POST', topic);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.topicHandlers.get(topic) === listeners) {
        this.topicHandlers.delete(topic);
        if (this.state === 'running' && topic !== this.inboxTopic) this.changeSubscriptions('DELETE', topic);
      }
    };
  }

  /** Fetches and delivers what the node cached on every subscribed topic. */
  poll(): Promise<void> {
    if (this.state !== 'running') return Promise.resolve();
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  // ---- internals -------------------------------------------------------------------------------------------------

  private schedulePoll(): void {
    this.timer = setTimeout(() => {
      void this.poll().finally(() => {
        if (this.state === 'running') this.schedulePoll();
      });
    }, this.pollIntervalMs);
  }

  private async pollOnce(): Promise<void> {
    await this.subscriptions;
    const topics = [...this.subscribed];
    const answers = await Promise.all(topics.map((topic) => this.request('GET', messagesPath(topic))));
    const lost: string[] = [];
    answers.forEach((answer, i) => {
      const topic = topics[i]!;
      if (answer.ok) return this.receive(topic, answer.text);
      if (answer.status === 404) lost.push(topic);
      else this.warn(`polling ${topic} failed: ${answer.error}`);
    });
    if (lost.length > 0 && this.state === 'running') {
      // The node forgot us (it restarted): what it relayed meanwhile is gone, but from now on nothing is lost.
      const again = await this.request('POST', NWAKU_ROUTES.subscriptions, JSON.stringify(lost));
      if (!again.ok) this.warn(`subscribing again failed: ${again.error}`);
    }
  }

  private receive(topic: string, text: string): void {
    const parsed = parseRelayMessages(text);
    if (!parsed.ok) return this.warn(`the node answered a poll of ${topic} with something else: ${parsed.error}`);
    for (const message of parsed.value) {
      if (this.state !== 'running') return;
      if (message.contentTopic !== topic) continue;
      const received =
        topic === this.inboxTopic
          ? this.receiver.direct(message, this.directHandlers)
          : this.receiver.publication(message, [...(this.topicHandlers.get(topic) ?? [])]);
      if (received) deliver(received, this.label);
    }
  }

  private get label(): string {
    return `nwaku-rest transport ${this.address}`;
  }

  protected async relay(message: RelayMessage): Promise<void> {
    await this.subscriptions;
    const answer = await this.request('POST', NWAKU_ROUTES.messages, relayMessageJson(message));
    if (!answer.ok) this.warn(`a message on ${message.contentTopic} was lost: ${answer.error}`);
  }

  private changeSubscriptions(method: 'POST' | 'DELETE', topic: string): void {
    this.subscriptions = this.subscriptions.then(async () => {
      if (this.state !== 'running') return;
      const answer = await this.request(method, NWAKU_ROUTES.subscriptions, JSON.stringify([topic]));
      // A topic is polled even when its subscription failed: the poll's 404 subscribes it again.
      if (method === 'POST') this.subscribed.add(topic);
      else this.subscribed.delete(topic);
      if (!answer.ok)
        this.warn(`${method === 'POST' ? 'subscribing to' : 'unsubscribing from'} ${topic}: ${answer.error}`);
    });
  }

  private async request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: string,
  ): Promise<{ ok: true; text: string } | { ok: false; status: number | undefined; error: string }> {
    let response: Response;
    try {
      response = await this.fetch(`${this.baseUrl}${path}`, {
        method,
        ...(body !== undefined ? { body, headers: { 'Content-Type': 'application/json' } } : {}),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
    } catch (error) {
      return { ok: false, status: undefined, error: `cannot reach the node (${(error as Error).message})` };
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      return { ok: false, status: response.status, error: `the answer broke off (${(error as Error).message})` };
    }
    if (response.ok) return { ok: true, text };
    return { ok: false, status: response.status, error: `${response.status} ${text.slice(0, 200)}`.trim() };
  }

  private warn(message: string): void {
    if (this.state === 'running') console.warn(`nwaku-rest transport ${this.address}: ${message}`);
  }

  private forgetHandlers(): void {
    this.directHandlers.clear();
    this.topicHandlers.clear();
  }

  protected assertRunning(): void {
    if (this.state !== 'running') throw new Error(`nwaku-rest transport ${this.address} is not started`);
  }

  protected assertTopic(topic: string): void {
    assertContentTopic(topic);
  }

  protected assertPayloadSize(payload: Uint8Array): void {
    if (payload.length > this.maxPayloadBytes) {
      throw new RangeError(`nwaku-rest transport: payload of ${payload.length} bytes exceeds ${this.maxPayloadBytes}`);
    }
  }
}

function assertContentTopic(topic: string): void {
  // Throws, naming the topic, for anything autosharding cannot place.
  contentTopicToShardIndex(topic, TOPIC_CHECK_SHARDS);
}

/** The nwaku-rest transport's numeric options. */
const atLeast = (value: number, name: string, min: number) => checkedInteger('nwaku-rest transport', value, name, min);
