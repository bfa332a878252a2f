/**
 * The party's side shared by the transports that carry its Waku messages themselves (waku.ts over its own relay
 * node, nwaku-rest.ts over a node's REST API): its identity, and what it sends, sealed by it (outgoing.ts) and
 * checked against the transport's limits before the subclass relays it.
 */
import type { PayloadHandler, TopicOptions, Unsubscribe } from '../../transport.ts';
import { generateWakuPrivateKey, proveAddress, wakuIdentity, type WakuIdentity } from './identity.ts';
import { directMessage, publicationMessage, type PartyMessage } from './outgoing.ts';
import { topicKey } from './receiver.ts';

export abstract class SealingTransport {
  /** `waku:04<128 hex>`: what others `send` to. */
  readonly address: string;
  /** The content topic 1:1 messages to this party travel on. */
  readonly inboxTopic: string;
  // The key lives only in a #private field, out of reach of inspection and logging.
  readonly #identity: WakuIdentity;
  protected readonly directHandlers = new Set<PayloadHandler>();
  /** Names the transport in errors: `waku transport`, `nwaku-rest transport`. */
  protected abstract readonly transportName: string;

  /** `privateKey`: the party's identity; a fresh one when absent. */
  protected constructor(privateKey: Uint8Array | undefined) {
    this.#identity = wakuIdentity(privateKey ?? generateWakuPrivateKey());
    this.address = this.#identity.address;
    this.inboxTopic = this.#identity.inboxTopic;
  }

  /** For the subclass's receiver, which opens what is sealed to this party. */
  protected get identity(): WakuIdentity {
    return this.#identity;
  }

  addressProof(accountId: string): string {
    return proveAddress(this.#identity.privateKey, accountId);
  }

  async send(address: string, payload: Uint8Array): Promise<void> {
    this.assertRunning();
    this.assertPayloadSize(payload);
    await this.relay(directMessage(this.#identity.privateKey, address, payload));
  }

  onDirect(handler: PayloadHandler): Unsubscribe {
    this.directHandlers.add(handler);
    return () => {
      this.directHandlers.delete(handler);
    };
  }

  async publish(topic: string, payload: Uint8Array, options: TopicOptions = {}): Promise<void> {
    this.assertRunning();
    this.assertPayloadSize(payload);
    this.assertTopic(topic);
    const key = options.key && topicKey(options.key, this.transportName);
    await this.relay(publicationMessage(this.#identity.privateKey, topic, payload, key));
  }

  protected abstract assertRunning(): void;
  protected abstract assertPayloadSize(payload: Uint8Array): void;
  /** Throws, naming the topic, for a content topic this transport cannot place on a shard. */
  protected abstract assertTopic(topic: string): void;
  protected abstract relay(message: PartyMessage): Promise<void>;
}

/** A numeric option of a transport, checked at construction: a bad one is a programming error and throws. */
export function checkedInteger(transport: string, value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${transport}: ${name} must be an integer ≥ ${min}`);
  return value;
}
