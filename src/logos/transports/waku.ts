/**
 * The `waku` transport: an embedded Waku Relay node (js-waku building blocks on libp2p) that carries the binding
 * over Logos Messaging. What it puts on the wire and what it drops (addresses, stock payloads, autosharding, copies,
 * sizes, drop counters, delivery and peers) is specified in docs/binding.md §2.7; the parts are in `waku/`.
 *
 * Over 500 lines on purpose: what is left here is one node's life (start, joining the mesh, publishing, hearing,
 * stopping), whose steps share its state; everything that stands alone (payloads, receiving, peers) is in `waku/`.
 */
import type { GossipsubOpts } from '@chainsafe/libp2p-gossipsub';
import { TopicValidatorResult, type Message, type PeerId, type PeerInfo } from '@libp2p/interface';
import { proto_message } from '@waku/proto';
import { contentTopicToShardIndex, ensureValidContentTopic } from '@waku/utils';
import type { Libp2pOptions } from 'libp2p';
import {
  FLEET_MAX_MESSAGE_BYTES,
  MESSAGE_OVERHEAD_BYTES,
  NETWORK_PRESETS,
  payloadBytesPerMessage,
} from '../network-presets.ts';
import type { LogosTransport, PayloadHandler, TopicOptions, Unsubscribe } from '../transport.ts';
import { checkedSecretKey } from './waku/identity.ts';
import { FilterService } from './waku/filter-service.ts';
import { serveLightPush, type RelayAccess } from './waku/light-push-service.ts';
import { describeRefusal, guardCluster, serveMetadata } from './waku/metadata.ts';
import { nodePrivateKey } from './waku/node-key.ts';
import { RELAY_TOPIC_SCORE_PARAMS, createRelayLibp2p, stopRelayLibp2p, type WakuLibp2p } from './waku/node.ts';
import { PeerExchangeClient, type PeerExchangeCounters, type PeerExchangePolicy } from './waku/peer-exchange.ts';
import { checkedInteger, SealingTransport } from './waku/sealing-transport.ts';
import {
  ENVELOPE_OVERHEAD_BYTES,
  PartyReceiver,
  deliver,
  topicKey,
  type TopicListener,
  type WakuDropCounters,
} from './waku/receiver.ts';
import { ReplicaPeers, type ReplicaPeersOptions } from './waku/replica-peers.ts';
import { DEFAULT_REDIAL, StaticPeerDialer, type RedialPolicy } from './waku/static-peers.ts';

export {
  addressFromPublicKey,
  canonicalWakuAddress,
  generateWakuPrivateKey,
  inboxTopic,
  isWakuAddress,
  parseWakuAddress,
  verifyAddressProof,
} from './waku/identity.ts';
import { sleep } from '../../time-limit.ts';
export type { WakuDropCounters } from './waku/receiver.ts';

export type WakuMessage = proto_message.WakuMessage;

/** A WakuMessage to relay as it is (the nwaku REST API's publish). */
export interface OutgoingWakuMessage {
  payload: Uint8Array;
  contentTopic: string;
  /** 0 (plain) or 1 (encrypted). */
  version: number;
  /** Nanoseconds since the epoch; now when absent. */
  timestamp?: bigint;
  meta?: Uint8Array;
  ephemeral?: boolean;
}

/** Sees every WakuMessage on a shard the node relays, its own publications included (as nwaku's triggerSelf). */
export type RelayObserver = (message: WakuMessage, pubsubTopic: string) => void;

export const DEFAULT_CLUSTER_ID = NETWORK_PRESETS.local.clusterId;
export const DEFAULT_NUM_SHARDS_IN_CLUSTER = NETWORK_PRESETS.local.shards;
/**
 * A content topic of the binding. Autosharding places every /logos-a2a/1/… topic on the same shard, so this one
 * names the shard a node always relays, and whose mesh tells whether agents have joined.
 */
export const BINDING_SHARD_TOPIC = '/logos-a2a/1/binding/json';
/** What gossipsub throws for a publication it has already seen (asked to, rather than ignoring it). */
const DUPLICATE_PUBLISH = 'PublishError.Duplicate';
/** Content topic applications and versions whose shard is remembered (see `WakuTransport.shardOf`). */
const SHARD_CACHE_CAPACITY = 4096;
/** Longest application/version pair whose shard is kept (this project's are under 40 characters). */
const MAX_CACHED_SHARD_KEY = 256;

export interface WakuTransportOptions {
  /** This party's identity: a 32-byte secp256k1 secret key. Generated when absent (see `privateKey`). */
  privateKey?: Uint8Array;
  /**
   * The seed (32 bytes) of the Ed25519 libp2p key that fixes the node's peer id, so peers can list it as
   * `/…/p2p/<peer id>` across restarts. Random per start when absent. Deliberately separate from `privateKey`,
   * so the network identity of a host does not reveal which party it carries.
   */
  nodeKey?: Uint8Array;
  /** Multiaddrs to listen on (TCP and/or WebSocket, e.g. `/ip4/0.0.0.0/tcp/60000/ws`). Default `/ip4/127.0.0.1/tcp/0`. */
  listen?: string[];
  /** Multiaddrs of relay peers to stay connected to (with or without `/p2p/<peer id>`). */
  staticPeers?: string[];
  /**
   * Other replicas of this gateway, found by DNS: every address `host` resolves to (a Kubernetes headless Service)
   * runs a relay node on `port`, dialled and kept so that the replicas form one mesh; `host` is resolved again every
   * `everyMs` (default 15 s). See replica-peers.ts.
   */
  replicaPeers?: Omit<ReplicaPeersOptions, 'everyMs'> & { everyMs?: number };
  /** DNS discovery from EIP-1459 ENR trees (`enrtree://…`). Off unless given; needs the internet. */
  bootstrap?: { enrTrees: string[]; maxPeers?: number };
  /** Waku cluster. Default 2, the `local` preset's (logos.test is 2 as well, logos.dev 3). */
  clusterId?: number;
  /** Autosharding: number of shards in the cluster. Default 8. */
  numShardsInCluster?: number;
  /** Further shards to relay from the start, besides the binding's. */
  relayShards?: number[];
  /**
   * Largest encoded WakuMessage sent or relayed (nwaku's `maxMessageSize`). Default 150 KiB, the limit of the Logos
   * fleets: a larger message would be dropped by their nodes.
   */
  maxMessageBytes?: number;
  /**
   * Largest payload accepted by `send`/`publish` and delivered to handlers. Default: what fits in one message of
   * `maxMessageBytes` with room for encryption and the WakuMessage's other fields.
   */
  maxPayloadBytes?: number;
  /** How long a send or publish waits for a mesh peer on its shard when peers are configured. Default 5000 ms. */
  peerWaitMs?: number;
  /** Timeout of one dial. Default 5000 ms. */
  dialTimeoutMs?: number;
  /** Backoff of static-peer redials, and of peers found by peer exchange. Default `DEFAULT_REDIAL`. */
  redial?: Partial<RedialPolicy>;
  /**
   * Peer exchange (RFC 34): connected peers that serve it (the fleets' nodes) are asked for more relay peers, which
   * are dialled while the node has fewer than `maxPeers` relay peers (default 12: a full gossipsub mesh beyond the
   * six entry nodes of a fleet); each such peer is asked again every `intervalMs` (default 60 s) while there is
   * room. `true` takes the defaults. Off unless given.
   */
  peerExchange?: boolean | Partial<Omit<PeerExchangePolicy, 'retry'>>;
  /** How many recent message hashes are remembered to drop replays. Default 32768. */
  dedupeCapacity?: number;
  /** Overrides of the gossipsub parameters (tests, tuning). */
  gossipsub?: Partial<GossipsubOpts>;
  /**
   * Serve the light protocols (LightPush v3 and v2, Filter v2), so light nodes (js-waku's, browsers) can send and
   * receive through this node. Such a node relays every shard of its cluster. Default true.
   */
  serveLightClients?: boolean;
  /** Agent version announced over identify. Default `logos-a2a`. */
  userAgent?: string;
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class WakuTransport extends SealingTransport implements LogosTransport {
  protected readonly transportName = 'waku transport';
  readonly clusterId: number;
  readonly numShardsInCluster: number;

  /** Messages dropped, by reason (see the module comment). */
  get dropped(): WakuDropCounters {
    return this.receiver.dropped;
  }
  readonly #nodeKey: Uint8Array | undefined;
  private readonly options: Omit<WakuTransportOptions, 'privateKey' | 'nodeKey'>;
  /** Largest payload `send`/`publish` take: a body the binding wants to send in one message must fit. */
  readonly maxPayloadBytes: number;
  readonly maxMessageBytes: number;
  /** Peers hung up on because they are not on this node's cluster (see `waku/metadata.ts`). */
  refusedPeers = 0;
  private readonly peerWaitMs: number;
  private readonly peerExchangePolicy: Omit<PeerExchangePolicy, 'retry'> | undefined;
  private readonly receiver: PartyReceiver;
  private readonly topicHandlers = new Map<string, Set<TopicListener>>();
  private readonly joined = new Set<string>();
  private readonly relayObservers = new Set<RelayObserver>();
  private readonly validated = new WeakMap<Message, WakuMessage>();
  /**
   * The pubsub topic of each content topic application and version seen lately: autosharding hashes only those two
   * fields, so every task's status topic (a new content topic each) is placed without a hash. Topics come from the
   * network too, so the cache is emptied whenever it fills.
   */
  private readonly shardOf = new Map<string, string>();

  private state: State = 'new';
  private transition: Promise<void> | undefined;
  private libp2p: WakuLibp2p | undefined;
  private dialer: StaticPeerDialer | undefined;
  private peerExchange: PeerExchangeClient | undefined;
  private replicaPeers: ReplicaPeers | undefined;
  private stopGuard: (() => void) | undefined;
  private filter: FilterService | undefined;

  /** Creates and starts a transport. */
  static async create(options: WakuTransportOptions = {}): Promise<WakuTransport> {
    const transport = new WakuTransport(options);
    await transport.start();
    return transport;
  }

  constructor(options: WakuTransportOptions = {}) {
    const { privateKey, nodeKey, ...settings } = options;
    // Keys live only in #private fields, out of reach of inspection and logging.
    super(privateKey);
    this.options = settings;
    this.#nodeKey = nodeKey === undefined ? undefined : checkedSecretKey(nodeKey, 'nodeKey');
    this.clusterId = integerAtLeast(options.clusterId ?? DEFAULT_CLUSTER_ID, 'clusterId', 0);
    this.numShardsInCluster = integerAtLeast(
      options.numShardsInCluster ?? DEFAULT_NUM_SHARDS_IN_CLUSTER,
      'numShardsInCluster',
      1,
    );
    this.maxMessageBytes = integerAtLeast(
      options.maxMessageBytes ?? FLEET_MAX_MESSAGE_BYTES,
      'maxMessageBytes',
      MESSAGE_OVERHEAD_BYTES + 1,
    );
    this.maxPayloadBytes = integerAtLeast(
      options.maxPayloadBytes ?? payloadBytesPerMessage(this.maxMessageBytes),
      'maxPayloadBytes',
      1,
    );
    this.peerWaitMs = integerAtLeast(options.peerWaitMs ?? 5_000, 'peerWaitMs', 0);
    const peerExchange = options.peerExchange === true ? {} : options.peerExchange || undefined;
    this.peerExchangePolicy = peerExchange && {
      maxPeers: integerAtLeast(peerExchange.maxPeers ?? 12, 'peerExchange.maxPeers', 1),
      intervalMs: integerAtLeast(peerExchange.intervalMs ?? 60_000, 'peerExchange.intervalMs', 1),
    };
    this.receiver = new PartyReceiver(
      this.identity,
      this.maxPayloadBytes,
      integerAtLeast(options.dedupeCapacity ?? 32_768, 'dedupeCapacity', 1),
    );
    for (const shard of options.relayShards ?? []) {
      if (!Number.isInteger(shard) || shard < 0 || shard >= this.numShardsInCluster) {
        throw new RangeError(`waku transport: relay shard ${shard} is not in 0..${this.numShardsInCluster - 1}`);
      }
    }
  }

  /** The secp256k1 secret key of this party (to persist a generated identity). */
  get privateKey(): Uint8Array {
    return this.identity.privateKey.slice();
  }

  /** The underlying libp2p node while running (diagnostics, tests). */
  get node(): WakuLibp2p | undefined {
    return this.libp2p;
  }

  /** The libp2p peer id while running. */
  get peerId(): string | undefined {
    return this.libp2p?.peerId.toString();
  }

  /** The addresses others can dial (each ends in `/p2p/<peer id>`); empty unless running. */
  multiaddrs(): string[] {
    return this.libp2p?.getMultiaddrs().map(String) ?? [];
  }

  /** The pubsub topic (shard) a content topic is routed on. Throws for a content topic autosharding rejects. */
  pubsubTopicFor(contentTopic: string): string {
    // Validates the topic as autosharding does (throws the same errors); its fields cannot contain a slash.
    const { application, version } = ensureValidContentTopic(contentTopic);
    const shardKey = `${application}/${version}`;
    let pubsubTopic = this.shardOf.get(shardKey);
    if (pubsubTopic === undefined) {
      pubsubTopic = `/waku/2/rs/${this.clusterId}/${contentTopicToShardIndex(contentTopic, this.numShardsInCluster)}`;
      // Only names of a sensible length are kept: a light client may send topics of any length, each a new key.
      if (shardKey.length <= MAX_CACHED_SHARD_KEY) {
        if (this.shardOf.size >= SHARD_CACHE_CAPACITY) this.shardOf.clear();
        this.shardOf.set(shardKey, pubsubTopic);
      }
    }
    return pubsubTopic;
  }

  /** Relay peers in the mesh of a content topic's shard. */
  meshPeerCount(contentTopic: string): number {
    return this.libp2p?.services.pubsub.getMeshPeers(this.pubsubTopicFor(contentTopic)).length ?? 0;
  }

  /** What peer exchange did while running (undefined when it is off or the node is stopped). */
  get peerExchangeCounters(): PeerExchangeCounters | undefined {
    return this.peerExchange?.counters;
  }

  /** Connected libp2p peers. */
  peerCount(): number {
    return this.libp2p?.getPeers().length ?? 0;
  }

  async start(): Promise<void> {
    if (this.state === 'running') return;
    if (this.transition) {
      await this.transition;
      return this.start();
    }
    this.state = 'starting';
    this.transition = this.doStart().finally(() => {
      this.transition = undefined;
    });
    await this.transition;
  }

  async stop(): Promise<void> {
    if (this.transition) await this.transition.catch(() => undefined);
    if (this.state !== 'running') {
      this.forgetHandlers();
      return;
    }
    this.state = 'stopping';
    this.transition = this.doStop().finally(() => {
      this.transition = undefined;
    });
    await this.transition;
  }

  subscribe(topic: string, handler: PayloadHandler, options: TopicOptions = {}): Unsubscribe {
    const pubsubTopic = this.pubsubTopicFor(topic);
    const listener: TopicListener = { handler, key: options.key && topicKey(options.key, this.transportName) };
    let listeners = this.topicHandlers.get(topic);
    if (!listeners) this.topicHandlers.set(topic, (listeners = new Set()));
    listeners.add(listener);
    if (this.state === 'running') this.join(pubsubTopic);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.topicHandlers.get(topic) === listeners) this.topicHandlers.delete(topic);
    };
  }

  /**
   * Relays a WakuMessage unchanged, on the shard autosharding gives its content topic (joined if need be). For
   * nodes that serve others, such as the nwaku REST API; parties of the binding use `send` and `publish`.
   */
  async relayMessage(message: OutgoingWakuMessage): Promise<void> {
    this.assertRunning();
    this.pubsubTopicFor(message.contentTopic);
    if (message.payload.length > this.maxPayloadBytes + ENVELOPE_OVERHEAD_BYTES) {
      throw new RangeError(
        `waku transport: payload of ${message.payload.length} bytes exceeds ${this.maxPayloadBytes + ENVELOPE_OVERHEAD_BYTES}`,
      );
    }
    await this.relay(message);
  }

  /** Joins the shard of a content topic, so its messages reach relay observers. */
  relayContentTopic(contentTopic: string): void {
    this.assertRunning();
    this.join(this.pubsubTopicFor(contentTopic));
  }

  /** Observes the raw WakuMessages on the shards this node relays (see `RelayObserver`). */
  onRelayMessage(observer: RelayObserver): Unsubscribe {
    this.relayObservers.add(observer);
    return () => {
      this.relayObservers.delete(observer);
    };
  }

  // ---- lifecycle -------------------------------------------------------------------------------------------------

  private async doStart(): Promise<void> {
    try {
      const options = this.options;
      const privateKey = await nodePrivateKey(this.#nodeKey);
      const peerDiscovery: NonNullable<Libp2pOptions['peerDiscovery']> = [];
      if (options.bootstrap && options.bootstrap.enrTrees.length > 0) {
        // js-waku's discovery is some 150 modules: loaded only by a node that bootstraps from DNS.
        const { wakuDnsDiscovery } = await import('@waku/discovery');
        peerDiscovery.push(wakuDnsDiscovery(options.bootstrap.enrTrees) as unknown as (typeof peerDiscovery)[number]);
      }
      const node = await createRelayLibp2p({
        privateKey,
        listen: options.listen ?? ['/ip4/127.0.0.1/tcp/0'],
        gossipsub: options.gossipsub,
        peerDiscovery,
        userAgent: options.userAgent ?? 'logos-a2a',
        dialTimeoutMs: options.dialTimeoutMs ?? 5_000,
      });
      this.libp2p = node;
      node.services.pubsub.addEventListener('message', this.onMessage);
      if (peerDiscovery.length > 0) node.addEventListener('peer:discovery', this.onDiscovery);
      const metadata = () => ({ clusterId: this.clusterId, shards: this.joinedShards() });
      await serveMetadata(node, metadata);
      this.stopGuard = guardCluster(node, metadata, (peer, refusal) => {
        this.refusedPeers += 1;
        console.warn(`waku transport ${this.address}: hung up on peer ${peer}: ${describeRefusal(refusal)}`);
      });
      await node.start();
      if (options.serveLightClients ?? true) await this.serveLightClients(node);
      this.join(this.pubsubTopicFor(BINDING_SHARD_TOPIC));
      for (const shard of options.relayShards ?? []) this.join(`/waku/2/rs/${this.clusterId}/${shard}`);
      for (const topic of this.topicHandlers.keys()) this.join(this.pubsubTopicFor(topic));
      const redial = { ...DEFAULT_REDIAL, ...options.redial };
      if (this.peerExchangePolicy) {
        // Started before the first dial, so that the static peers' identify is heard.
        this.peerExchange = new PeerExchangeClient(
          node,
          { clusterId: this.clusterId, shards: () => this.joinedShards() },
          { ...this.peerExchangePolicy, retry: redial },
        );
        this.peerExchange.start();
      }
      this.dialer = new StaticPeerDialer(node, options.staticPeers ?? [], redial);
      this.dialer.start();
      if (options.replicaPeers) {
        this.replicaPeers = new ReplicaPeers(this.dialer, { everyMs: 15_000, ...options.replicaPeers });
        this.replicaPeers.start();
      }
      this.state = 'running';
    } catch (error) {
      this.state = 'stopped';
      const node = this.libp2p;
      this.libp2p = undefined;
      this.joined.clear();
      try {
        if (node) await stopRelayLibp2p(node);
      } catch {
        // the start error is the one worth reporting
      }
      throw error;
    }
  }

  private async doStop(): Promise<void> {
    const node = this.libp2p;
    this.replicaPeers?.stop();
    this.replicaPeers = undefined;
    this.dialer?.stop();
    this.dialer = undefined;
    this.peerExchange?.stop();
    this.peerExchange = undefined;
    this.stopGuard?.();
    this.stopGuard = undefined;
    if (this.filter) node?.services.pubsub.removeEventListener('message', this.filter.onRelayed);
    this.filter?.stop();
    this.filter = undefined;
    this.forgetHandlers();
    if (node) {
      node.services.pubsub.removeEventListener('message', this.onMessage);
      node.removeEventListener('peer:discovery', this.onDiscovery);
      // Tell the mesh we are leaving before the connections go.
      for (const topic of this.joined) {
        try {
          node.services.pubsub.unsubscribe(topic);
        } catch {
          // stopping anyway
        }
      }
      await stopRelayLibp2p(node);
    }
    this.libp2p = undefined;
    this.joined.clear();
    this.receiver.clear();
    this.state = 'stopped';
  }

  private forgetHandlers(): void {
    this.directHandlers.clear();
    this.topicHandlers.clear();
    this.relayObservers.clear();
  }

  private join(pubsubTopic: string): void {
    const pubsub = this.libp2p?.services.pubsub;
    if (!pubsub || this.joined.has(pubsubTopic)) return;
    this.joined.add(pubsubTopic);
    pubsub.topicValidators.set(pubsubTopic, this.validate);
    pubsub.score.params.topics[pubsubTopic] = { ...RELAY_TOPIC_SCORE_PARAMS };
    pubsub.subscribe(pubsubTopic);
  }

  /** The light protocols' view of this relay node (see `waku/light-push-service.ts`). */
  private async serveLightClients(node: WakuLibp2p): Promise<void> {
    const relay: RelayAccess = {
      maxMessageBytes: this.maxMessageBytes,
      pubsubTopicFor: (contentTopic) => this.pubsubTopicFor(contentTopic),
      join: (pubsubTopic) => {
        const shard = pubsubTopic.match(/^\/waku\/2\/rs\/(\d+)\/(\d+)$/);
        if (!shard || Number(shard[1]) !== this.clusterId || Number(shard[2]) >= this.numShardsInCluster) return false;
        this.join(pubsubTopic);
        return true;
      },
      publish: async (pubsubTopic, wire, contentTopic) => {
        const relayPeers = await this.publishAndHear(node, pubsubTopic, wire, contentTopic);
        // This node and its filter subscribers are recipients too: a light node may talk to a party right here.
        const here = contentTopic === this.inboxTopic || this.topicHandlers.has(contentTopic) ? 1 : 0;
        return relayPeers + here + (this.filter?.subscribersOf(pubsubTopic, contentTopic) ?? 0);
      },
    };
    // A light node only uses a service node that relays the shard it needs (js-waku reads the shards from the
    // metadata answer), so a service node relays them all, as the fleets' nodes do.
    for (let shard = 0; shard < this.numShardsInCluster; shard++) this.join(`/waku/2/rs/${this.clusterId}/${shard}`);
    await serveLightPush(node, relay);
    this.filter = new FilterService(node, relay);
    await this.filter.start();
    node.services.pubsub.addEventListener('message', this.filter.onRelayed);
  }

  private joinedShards(): number[] {
    const prefix = `/waku/2/rs/${this.clusterId}/`;
    return [...this.joined]
      .filter((topic) => topic.startsWith(prefix))
      .map((topic) => Number(topic.slice(prefix.length)));
  }

  private readonly onDiscovery = (event: CustomEvent<PeerInfo>): void => {
    const node = this.libp2p;
    const maxPeers = this.options.bootstrap?.maxPeers ?? 6;
    if (!node || this.state !== 'running' || node.getPeers().length >= maxPeers) return;
    void node.dial(event.detail.id).catch(() => undefined);
  };

  // ---- outbound --------------------------------------------------------------------------------------------------

  protected async relay(message: OutgoingWakuMessage): Promise<void> {
    const pubsubTopic = this.pubsubTopicFor(message.contentTopic);
    const wire = proto_message.WakuMessage.encode({
      ...message,
      timestamp: message.timestamp ?? BigInt(Date.now()) * 1_000_000n,
    });
    if (wire.length > this.maxMessageBytes) {
      throw new RangeError(
        `waku transport: the message is ${wire.length} bytes, over the network's limit of ${this.maxMessageBytes} bytes per message`,
      );
    }
    this.join(pubsubTopic);
    await this.waitForMesh(pubsubTopic);
    const node = this.libp2p;
    if (!node || this.state !== 'running') return; // stopped meanwhile: the message is simply not sent
    try {
      await this.publishAndHear(node, pubsubTopic, wire, message.contentTopic);
    } catch (error) {
      // Fire and forget: a publish the network could not take is a lost message, as on any relay.
      if (this.state === 'running') console.warn(`waku transport ${this.address}: publish failed`, error);
    }
  }

  /**
   * Publishes on a joined shard, then hands the message to this node's own readers (its parties, relay observers and
   * filter subscribers) as nwaku's triggerSelf does; a repeat of a message already seen is neither sent nor read
   * again. Resolves with the number of relay peers it was sent to.
   */
  private async publishAndHear(
    node: WakuLibp2p,
    pubsubTopic: string,
    wire: Uint8Array,
    contentTopic: string,
  ): Promise<number> {
    let recipients: PeerId[];
    try {
      ({ recipients } = await node.services.pubsub.publish(pubsubTopic, wire, { ignoreDuplicatePublishError: false }));
    } catch (error) {
      if (error instanceof Error && error.message === DUPLICATE_PUBLISH) return 0;
      throw error;
    }
    const message: Message = { type: 'unsigned', topic: pubsubTopic, data: wire };
    // Decoded only when something here reads it: most of what a party sends is for others.
    const readHere =
      this.relayObservers.size > 0 || contentTopic === this.inboxTopic || this.topicHandlers.has(contentTopic);
    if (readHere) this.hear(message);
    this.filter?.onRelayed(new CustomEvent('message', { detail: message }));
    return recipients.length;
  }

  private async waitForMesh(pubsubTopic: string): Promise<void> {
    const pubsub = this.libp2p?.services.pubsub;
    if (!pubsub || pubsub.getMeshPeers(pubsubTopic).length > 0) return;
    const expectsPeers =
      (this.options.staticPeers?.length ?? 0) > 0 || (this.options.bootstrap?.enrTrees.length ?? 0) > 0;
    if (!expectsPeers || this.peerWaitMs === 0) return;
    const deadline = Date.now() + this.peerWaitMs;
    while (Date.now() < deadline && this.state === 'running' && pubsub.getMeshPeers(pubsubTopic).length === 0) {
      await sleep(Math.min(25, Math.max(1, deadline - Date.now())));
    }
  }

  // ---- inbound ---------------------------------------------------------------------------------------------------

  /** Relay validation: only WakuMessages within our size limit are delivered and forwarded. */
  private readonly validate = (_peer: PeerId, message: Message): TopicValidatorResult => {
    if (message.data.length > this.maxMessageBytes) {
      this.receiver.drop('oversized');
      // Ignore rather than reject: too large for this node is not proof of a misbehaving peer.
      return TopicValidatorResult.Ignore;
    }
    const decoded = decodeWakuMessage(message.data);
    if (!decoded) {
      this.receiver.drop('malformed');
      return TopicValidatorResult.Reject;
    }
    if (decoded.payload.length === 0) {
      this.receiver.drop('empty');
      return TopicValidatorResult.Reject;
    }
    this.validated.set(message, decoded);
    return TopicValidatorResult.Accept;
  };

  /** A message relayed by a peer (this node's own are heard from `publishAndHear`). */
  private readonly onMessage = (event: CustomEvent<Message>): void => {
    this.hear(event.detail);
  };

  private hear(message: Message): void {
    if (this.state !== 'running' || !this.joined.has(message.topic)) return;
    // Our own publications skip validation, so they are decoded here.
    const decoded = this.validated.get(message) ?? decodeWakuMessage(message.data);
    if (!decoded) return;
    for (const observer of [...this.relayObservers]) {
      try {
        observer(decoded, message.topic);
      } catch (error) {
        console.error(`waku transport ${this.address}: a relay observer threw`, error);
      }
    }
    const contentTopic = decoded.contentTopic;
    const direct = contentTopic === this.inboxTopic;
    if (!direct && !this.topicHandlers.has(contentTopic)) return; // relayed for others
    if (message.topic !== this.pubsubTopicFor(contentTopic)) return; // not where autosharding puts it
    const received = direct
      ? this.receiver.direct(decoded, this.directHandlers)
      : this.receiver.publication(decoded, [...(this.topicHandlers.get(contentTopic) ?? [])]);
    if (received) deliver(received, this.label);
  }

  private get label(): string {
    return `waku transport ${this.address}`;
  }

  // ---- checks ----------------------------------------------------------------------------------------------------

  protected assertRunning(): void {
    if (this.state !== 'running') throw new Error(`waku transport ${this.address} is not started`);
  }

  protected assertTopic(topic: string): void {
    this.pubsubTopicFor(topic);
  }

  protected assertPayloadSize(payload: Uint8Array): void {
    if (payload.length === 0) throw new RangeError('waku transport: the payload is empty');
    if (payload.length > this.maxPayloadBytes) {
      throw new RangeError(`waku transport: payload of ${payload.length} bytes exceeds ${this.maxPayloadBytes}`);
    }
  }
}

function decodeWakuMessage(data: Uint8Array): WakuMessage | undefined {
  try {
    const message = proto_message.WakuMessage.decode(data);
    return message.contentTopic ? message : undefined;
  } catch {
    return undefined;
  }
}

/** The waku transport's numeric options. */
const integerAtLeast = (value: number, name: string, min: number) => checkedInteger('waku transport', value, name, min);
