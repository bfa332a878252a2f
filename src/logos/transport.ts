/**
 * What the gateway and the agent runtime need from Logos Messaging, and nothing more: 1:1 delivery to an address,
 * and publish/subscribe on content topics. Implementations: `memory` (in-process), later `waku` and friends.
 *
 * Payloads are opaque bytes; encryption, signing and framing belong to the implementation.
 */
/** What the transport vouches for about a payload it delivers. */
export interface Delivery {
  /**
   * The address of the party that sent or published it, when the transport authenticates senders (memory: by
   * construction; waku: by the payload signature). Receivers must not act on payloads from the wrong sender.
   */
  sender: string | undefined;
}

export type PayloadHandler = (payload: Uint8Array, delivery: Delivery) => void;
export type Unsubscribe = () => void;

export interface LogosTransport {
  /** The address other parties use to `send` to this node. */
  readonly address: string;
  /**
   * True when nobody but the parties can read what is published (the in-process memory network). Replies on a
   * task's status topic are sealed only where publications can be observed (docs/binding.md §2.6).
   */
  readonly privatePublications: boolean;
  /** The largest payload one `send` or `publish` carries (Waku: what fits in one message of the network). */
  readonly maxPayloadBytes: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Deliver a payload to the node at `address` (fire and forget, like the network it models). */
  send(address: string, payload: Uint8Array): Promise<void>;
  /** Receive what is sent to this node's address. */
  onDirect(handler: PayloadHandler): Unsubscribe;
  publish(topic: string, payload: Uint8Array): Promise<void>;
  subscribe(topic: string, handler: PayloadHandler): Unsubscribe;
}
