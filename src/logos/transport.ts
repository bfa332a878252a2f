/**
 * What the gateway and the agent runtime need from Logos Messaging, and nothing more: 1:1 delivery to an address,
 * and publish/subscribe on content topics, in the clear or under a topic key. Implementations: `memory`
 * (in-process), `waku` (a relay node), `nwaku-rest` (through a node's REST API) and `waku-light` (LightPush and
 * Filter through a service node); test/logos/transports/contract.test.ts holds each to this interface.
 *
 * Payloads are opaque bytes to the caller; encryption and signing belong to the implementation (docs/binding.md §2).
 * A 1:1 payload is a JSON object naming its two parties, `from` (the sender's address) and `to` (the recipient's):
 * the `waku` transport delivers it only to the party it names, and only when the sender signed it. One that names
 * neither (the seed's dialect, docs/bindings/seed.md §5) is delivered with its signer as sender.
 */
/** What the transport vouches for about a payload it delivers. */
export interface Delivery {
  /**
   * The address of the party that sent or published it, when the transport authenticates it: every 1:1 message and
   * keyed publication (memory: by construction; waku: by the payload signature). Undefined for plain publications,
   * which prove their origin themselves, if at all. Receivers must not act on payloads from the wrong sender.
   */
  sender: string | undefined;
}

/** How a topic is published and read. */
export interface TopicOptions {
  /**
   * The topic's 32-byte key. With a key, publications are encrypted under it and signed by the publisher, and only
   * those that decrypt with it are delivered; without one they travel in the clear, unsigned.
   */
  key?: Uint8Array;
}

export type PayloadHandler = (payload: Uint8Array, delivery: Delivery) => void;
export type Unsubscribe = () => void;

export interface LogosTransport {
  /** The address other parties use to `send` to this node. */
  readonly address: string;
  /** The largest payload one `send` or `publish` carries (Waku: what fits in one message of the network). */
  readonly maxPayloadBytes: number;
  /** Connected peers, for readiness and metrics; absent where there are none to count (the memory network). */
  peerCount?(): number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Deliver a payload to the node at `address` (fire and forget, like the network it models). */
  send(address: string, payload: Uint8Array): Promise<void>;
  /** Receive what is sent to this node's address. */
  onDirect(handler: PayloadHandler): Unsubscribe;
  publish(topic: string, payload: Uint8Array, options?: TopicOptions): Promise<void>;
  subscribe(topic: string, handler: PayloadHandler, options?: TopicOptions): Unsubscribe;
  /**
   * For transports whose addresses are keys: this node's signed statement that `accountId` (a LEZ account) speaks
   * for its address, which a card carries (`x-logos-address-proof`).
   */
  addressProof?(accountId: string): string;
}
