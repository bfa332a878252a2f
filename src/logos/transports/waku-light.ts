/**
 * The `waku-light` transport: the party runs a stock `@waku/sdk` light node, which relays nothing and reaches the
 * network through service nodes: it sends with LightPush and receives with Filter. This is how an operator joins a
 * fleet without running a relay node (the fleets' nodes serve both protocols, and so does the `waku` transport).
 *
 * Addresses, inbox topics and payloads are those of the `waku` transport (same `waku/identity.ts` and
 * `waku/payloads.ts`), and what it receives goes through the same checks (`waku/receiver.ts`), so a light party and
 * a relay party talk to each other unchanged. What differs is delivery:
 * the service node confirms a push (its relay peers, or the recipient on it), and a message can be lost only if no
 * service node is reachable, which is logged.
 */
import type { Libp2p } from '@libp2p/interface';
import { tcp } from '@libp2p/tcp';
import { webSockets } from '@libp2p/websockets';
import { all as anyWebSocketAddress } from '@libp2p/websockets/filters';
import { proto_message } from '@waku/proto';
import {
  Protocols,
  createLightNode,
  type IDecodedMessage,
  type IDecoder,
  type IEncoder,
  type LightNode,
} from '@waku/sdk';
import { contentTopicToShardIndex } from '@waku/utils';
import { FLEET_MAX_MESSAGE_BYTES, payloadBytesPerMessage } from '../network-presets.ts';
import type { LogosTransport, PayloadHandler, TopicOptions, Unsubscribe } from '../transport.ts';
import { closeFilterPushStreams } from './waku/filter-push-streams.ts';
import { generateWakuPrivateKey, proveAddress, wakuIdentity, type WakuIdentity } from './waku/identity.ts';
import { directMessage, publicationMessage, type PartyMessage } from './waku/outgoing.ts';
import { PartyReceiver, deliver, topicKey, type TopicListener, type WakuDropCounters } from './waku/receiver.ts';
import { DEFAULT_REDIAL, StaticPeerDialer } from './waku/static-peers.ts';
import { withinMs } from '../../time-limit.ts';

export interface WakuLightTransportOptions {
  /** This party's identity: a 32-byte secp256k1 secret key. Generated when absent. */
  privateKey?: Uint8Array;
  /** Multiaddrs of the service nodes (LightPush and Filter), kept connected with backoff. */
  servicePeers: string[];
  clusterId: number;
  numShardsInCluster: number;
  /** Largest encoded WakuMessage sent. Default 150 KiB. */
  maxMessageBytes?: number;
  /** How long a send or a subscription waits for a service node. Default 10 s. */
  peerWaitMs?: number;
}

type WakuMessage = proto_message.WakuMessage;

export class WakuLightTransport implements LogosTransport {
  readonly address: string;
  readonly maxPayloadBytes: number;
  readonly maxMessageBytes: number;
  readonly inboxTopic: string;
  /** Sends no service node took (each is logged). */
  unsent = 0;

  readonly #identity: WakuIdentity;
  private readonly options: Omit<WakuLightTransportOptions, 'privateKey'>;
  private readonly peerWaitMs: number;
  private readonly receiver: PartyReceiver;
  private readonly directHandlers = new Set<PayloadHandler>();
  private readonly topicHandlers = new Map<string, Set<TopicListener>>();
  private light: LightNode | undefined;
  private dialer: StaticPeerDialer | undefined;
  private running = false;
  /** LightPush requests in flight, and the sends waiting for one of them to end (see `push`). */
  private pushing = 0;
  private readonly pushQueue: (() => void)[] = [];
  /** The Filter subscribe in flight; the next waits for it (see `listen`). */
  private subscribing: Promise<unknown> = Promise.resolve();

  constructor(options: WakuLightTransportOptions) {
    const { privateKey, ...settings } = options;
    this.options = settings;
    this.#identity = wakuIdentity(privateKey ?? generateWakuPrivateKey());
    this.address = this.#identity.address;
    this.inboxTopic = this.#identity.inboxTopic;
    this.maxMessageBytes = options.maxMessageBytes ?? FLEET_MAX_MESSAGE_BYTES;
    this.maxPayloadBytes = payloadBytesPerMessage(this.maxMessageBytes);
    this.peerWaitMs = options.peerWaitMs ?? 10_000;
    this.receiver = new PartyReceiver(this.#identity, this.maxPayloadBytes, 32_768);
  }

  /** Messages dropped, by reason (as the `waku` transport counts them). */
  get dropped(): WakuDropCounters {
    return this.receiver.dropped;
  }

  /** Its addresses are keys as the `waku` transport's, so an agent's card carries the same proof. */
  addressProof(accountId: string): string {
    return proveAddress(this.#identity.privateKey, accountId);
  }

  /** The light node's libp2p node while running (diagnostics, tests). */
  get node(): Libp2p | undefined {
    return this.light?.libp2p;
  }

  /** Connected service nodes. */
  peerCount(): number {
    return this.light?.libp2p.getPeers().length ?? 0;
  }

  /** Resolves once a service node offers both protocols, or rejects after `timeoutMs`. */
  async waitForService(timeoutMs = this.peerWaitMs): Promise<void> {
    if (!this.light) throw new Error(`waku-light transport ${this.address} is not started`);
    await this.light.waitForPeers([Protocols.LightPush, Protocols.Filter], timeoutMs);
  }

  async start(): Promise<void> {
    if (this.running) return;
    const { clusterId, numShardsInCluster } = this.options;
    const light = await createLightNode({
      networkConfig: { clusterId, numShardsInCluster },
      // Service nodes are reached over TCP or (insecure, local) WebSocket as well as wss.
      libp2p: { transports: [tcp(), webSockets({ filter: anyWebSocketAddress })], hideWebSocketInfo: true },
      discovery: { dns: false, peerExchange: false, peerCache: false },
    });
    await light.start();
    await closeFilterPushStreams(light.libp2p);
    this.light = light;
    this.running = true;
    this.dialer = new StaticPeerDialer(light.libp2p, this.options.servicePeers, DEFAULT_REDIAL);
    this.dialer.start();
    this.listen(this.inboxTopic);
    for (const topic of this.topicHandlers.keys()) this.listen(topic);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.dialer?.stop();
    this.dialer = undefined;
    this.directHandlers.clear();
    this.topicHandlers.clear();
    this.receiver.clear();
    // Queued sends go on to find the transport stopped.
    for (const resume of this.pushQueue.splice(0)) resume();
    const light = this.light;
    this.light = undefined;
    // The Filter subscriptions' keep-alive timers outlive the node's stop and would keep the process running.
    light?.filter.unsubscribeAll();
    await light?.stop();
  }

  async send(address: string, payload: Uint8Array): Promise<void> {
    this.assertSendable(payload);
    await this.push(directMessage(this.#identity.privateKey, address, payload));
  }

  onDirect(handler: PayloadHandler): Unsubscribe {
    this.directHandlers.add(handler);
    return () => void this.directHandlers.delete(handler);
  }

  async publish(topic: string, payload: Uint8Array, options: TopicOptions = {}): Promise<void> {
    this.assertSendable(payload);
    this.shardOf(topic);
    const key = options.key && topicKey(options.key, 'waku-light transport');
    await this.push(publicationMessage(this.#identity.privateKey, topic, payload, key));
  }

  subscribe(topic: string, handler: PayloadHandler, options: TopicOptions = {}): Unsubscribe {
    this.shardOf(topic);
    const listener: TopicListener = { handler, key: options.key && topicKey(options.key, 'waku-light transport') };
    let listeners = this.topicHandlers.get(topic);
    if (!listeners) {
      this.topicHandlers.set(topic, (listeners = new Set()));
      if (this.running) this.listen(topic);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.topicHandlers.get(topic) === listeners) this.topicHandlers.delete(topic);
    };
  }

  // ---- outbound --------------------------------------------------------------------------------------------------

  private async push({ contentTopic, payload, version }: PartyMessage): Promise<void> {
    const light = this.light!;
    const encoder = versionedEncoder(light.createEncoder({ contentTopic }), version);
    const wire = proto_message.WakuMessage.encode((await encoder.toProtoObj({ payload }))!);
    if (wire.length > this.maxMessageBytes) {
      throw new RangeError(
        `waku-light transport: the message is ${wire.length} bytes, over the network's limit of ${this.maxMessageBytes} bytes per message`,
      );
    }
    await light.waitForPeers([Protocols.LightPush], this.peerWaitMs).catch(() => undefined);
    // Each request takes a stream of its own, and libp2p opens at most 64 per protocol and connection (and a
    // service node on libp2p's defaults takes 32): past that a send fails with "No stream available" and
    // the message is lost. Sends beyond MAX_PUSHES_IN_FLIGHT wait for a slot instead.
    if (this.pushing < MAX_PUSHES_IN_FLIGHT) this.pushing += 1;
    else await new Promise<void>((resolve) => this.pushQueue.push(resolve)); // the slot is handed over on release
    let result: Awaited<ReturnType<LightNode['lightPush']['send']>>;
    try {
      if (!this.running) return;
      result = await light.lightPush.send(encoder, { payload }, { autoRetry: true, maxAttempts: 3 });
    } finally {
      const next = this.pushQueue.shift();
      if (next) next();
      else this.pushing -= 1;
    }
    if (result.successes.length === 0) {
      this.unsent += 1;
      const reasons = result.failures.map((failure) => failure.error).join(', ');
      console.warn(`waku-light transport ${this.address}: no service node took a message (${reasons})`);
    }
  }

  // ---- inbound ---------------------------------------------------------------------------------------------------

  /** Subscribes through Filter, retrying with backoff until a service node takes it or the transport stops. */
  private listen(contentTopic: string): void {
    const light = this.light!;
    const decoder = rawDecoder(light.createDecoder({ contentTopic }));
    const subscribe = () =>
      this.running && this.light === light
        ? light.filter.subscribe(decoder, (message) => this.receive(message as unknown as WakuMessage))
        : Promise.resolve(true);
    const attempt = async (delayMs: number): Promise<void> => {
      if (!this.running || this.light !== light) return;
      await light.waitForPeers([Protocols.Filter], this.peerWaitMs).catch(() => undefined);
      // One at a time: @waku/sdk records a shard's subscription only once its first subscribe is answered, so two in
      // flight on one shard make two, and the one it forgets is never stopped (its timers keep the process alive).
      // Each within a time limit: the sdk waits on a service node's answer without one, and one node that never
      // answers would otherwise hold every later subscription back. Past it, the attempt counts as failed.
      const bounded = () => withinMs(subscribe(), SUBSCRIBE_TIMEOUT_MS);
      const subscribed = await (this.subscribing = this.subscribing.then(bounded).catch(() => false));
      if (!subscribed && this.running) {
        setTimeout(() => void attempt(Math.min(delayMs * 2, DEFAULT_REDIAL.maxMs)), delayMs).unref?.();
      }
    };
    void attempt(DEFAULT_REDIAL.initialMs);
  }

  private receive(message: WakuMessage): void {
    if (!this.running) return;
    if (message.payload.length === 0) return void this.receiver.drop('empty');
    const received =
      message.contentTopic === this.inboxTopic
        ? this.receiver.direct(message, this.directHandlers)
        : this.receiver.publication(message, [...(this.topicHandlers.get(message.contentTopic) ?? [])]);
    if (received) deliver(received, `waku-light transport ${this.address}`);
  }

  // ---- checks ----------------------------------------------------------------------------------------------------

  private assertSendable(payload: Uint8Array): void {
    if (!this.running) throw new Error(`waku-light transport ${this.address} is not started`);
    if (payload.length === 0) throw new RangeError('waku-light transport: the payload is empty');
    if (payload.length > this.maxPayloadBytes) {
      throw new RangeError(`waku-light transport: payload of ${payload.length} bytes exceeds ${this.maxPayloadBytes}`);
    }
  }

  private shardOf(contentTopic: string): number {
    return contentTopicToShardIndex(contentTopic, this.options.numShardsInCluster);
  }
}

/**
 * LightPush requests one transport keeps in flight: under libp2p's default of 32 inbound streams per protocol and
 * connection that a service node may keep, with room for the stream `@waku/sdk` opens ahead of each request.
 */
const MAX_PUSHES_IN_FLIGHT = 24;

/** How long one Filter subscribe may wait for a service node's answer. */
const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** The stock encoder, writing our WakuMessage version (1 for payload-encrypted 1:1 messages). */
function versionedEncoder(stock: IEncoder, version: number): IEncoder {
  return Object.create(stock, {
    toProtoObj: {
      value: async (message: Parameters<IEncoder['toProtoObj']>[0]) => ({
        ...(await stock.toProtoObj(message))!,
        version,
      }),
    },
  }) as IEncoder;
}

/** The stock decoder, handing over the WakuMessage as received (the stock one drops versions other than 0). */
function rawDecoder(stock: IDecoder<IDecodedMessage>): IDecoder<IDecodedMessage> {
  return Object.create(stock, {
    fromProtoObj: { value: async (_pubsubTopic: string, proto: WakuMessage) => proto },
  }) as IDecoder<IDecodedMessage>;
}
