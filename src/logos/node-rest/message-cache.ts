/**
 * What the REST face keeps for its clients between polls, as nwaku's relay message cache does: messages on the
 * content topics someone subscribed to, drained by each GET; a bounded number in all, the oldest (by timestamp)
 * evicted first when full; the same message twice is kept once.
 */
import type { RelayMessage } from './wire.ts';
import { bytesEqual } from '../../lez/bytes.ts';

export class RelayMessageCache {
  private readonly topics = new Set<string>();
  private messages: RelayMessage[] = [];
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('cache capacity must be a positive integer');
  }

  isSubscribed(contentTopic: string): boolean {
    return this.topics.has(contentTopic);
  }

  subscribe(contentTopic: string): void {
    this.topics.add(contentTopic);
  }

  /** Forgets the topic and what was cached for it. */
  unsubscribe(contentTopic: string): void {
    this.topics.delete(contentTopic);
    this.messages = this.messages.filter((message) => message.contentTopic !== contentTopic);
  }

  add(message: RelayMessage): void {
    if (!this.topics.has(message.contentTopic)) return;
    if (this.messages.some((cached) => sameMessage(cached, message))) return;
    if (this.messages.length >= this.capacity) {
      let oldest = 0;
      for (let i = 1; i < this.messages.length; i++) {
        if ((this.messages[i]!.timestamp ?? 0n) < (this.messages[oldest]!.timestamp ?? 0n)) oldest = i;
      }
      this.messages.splice(oldest, 1);
    }
    this.messages.push(message);
  }

  /** The topic's messages in arrival order, removed from the cache; undefined when nobody subscribed to it. */
  drain(contentTopic: string): RelayMessage[] | undefined {
    if (!this.topics.has(contentTopic)) return undefined;
    const drained = this.messages.filter((message) => message.contentTopic === contentTopic);
    if (drained.length > 0) this.messages = this.messages.filter((message) => message.contentTopic !== contentTopic);
    return drained;
  }
}

function sameMessage(a: RelayMessage, b: RelayMessage): boolean {
  return (
    a.contentTopic === b.contentTopic &&
    a.version === b.version &&
    a.timestamp === b.timestamp &&
    a.ephemeral === b.ephemeral &&
    bytesEqual(a.payload, b.payload) &&
    bytesEqual(a.meta ?? new Uint8Array(), b.meta ?? new Uint8Array())
  );
}
