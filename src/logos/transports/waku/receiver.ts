/**
 * What a party does with a WakuMessage that reaches it, whichever way it came (its own relay node, or a node's REST
 * API, or Filter from a service node): the checks of `payloads.ts`, repeats dropped, every drop counted by reason, and delivery of a private copy to
 * each handler. Shared by the `waku`, `nwaku-rest` and `waku-light`
 * transports so all accept and refuse exactly the same.
 */
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Delivery, PayloadHandler } from '../../transport.ts';
import type { WakuIdentity } from './identity.ts';
import { openDirect, openKeyed, type DropReason } from './payloads.ts';
import { SeenSet } from '../../seen-set.ts';
import { digestHex } from './message-digest.ts';
import { bytesEqual } from '../../../lez/bytes.ts';

/** Room for Waku payload encryption (flags, size, padding to 256, signature, ECIES or AES-GCM). */
export const ENVELOPE_OVERHEAD_BYTES = 1024;

/** Messages dropped, by reason; `empty`: WakuMessages with no payload (js-waku refuses them too). */
export type WakuDropCounters = Record<DropReason | 'empty', number>;

/** The fields of a received WakuMessage the checks look at. */
export interface ReceivedWakuMessage {
  payload: Uint8Array;
  contentTopic: string;
  version?: number;
  /** Nanoseconds since the epoch, as the sender stamped it. */
  timestamp?: bigint;
}

/** A subscriber of a topic, with the topic key it reads under (none: plain publications). */
export interface TopicListener {
  readonly handler: PayloadHandler;
  readonly key: Uint8Array | undefined;
}

/** A message that passed the checks: what to deliver, to whom. */
export interface Received {
  body: Uint8Array;
  delivery: Delivery;
  handlers: Iterable<PayloadHandler>;
}

export class PartyReceiver {
  readonly dropped: WakuDropCounters = {
    malformed: 0,
    empty: 0,
    oversized: 0,
    duplicate: 0,
    undecryptable: 0,
    unsigned: 0,
    badSignature: 0,
    wrongRecipient: 0,
  };
  private readonly seen: SeenSet;
  // Kept in a #private field, out of reach of inspection and logging, as the transports keep it.
  readonly #identity: WakuIdentity;
  private readonly maxPayloadBytes: number;

  constructor(identity: WakuIdentity, maxPayloadBytes: number, dedupeCapacity: number) {
    this.#identity = identity;
    this.maxPayloadBytes = maxPayloadBytes;
    this.seen = new SeenSet(dedupeCapacity);
  }

  /** A 1:1 message on this party's inbox topic, for `handlers`: decrypted and checked, or dropped (undefined). */
  direct(message: ReceivedWakuMessage, handlers: Iterable<PayloadHandler>): Received | undefined {
    const payload = message.payload;
    if (message.version !== 1) return this.drop('malformed');
    if (payload.length > this.maxPayloadBytes + ENVELOPE_OVERHEAD_BYTES) return this.drop('oversized');
    const key = 'd' + seenKeyOf(message);
    if (this.seen.has(key)) return this.drop('duplicate');
    const opened = openDirect(this.#identity.privateKey, this.#identity.address, payload);
    if (!opened.ok) return this.drop(opened.reason);
    if (opened.body.length > this.maxPayloadBytes) return this.drop('oversized');
    this.seen.add(key);
    return { body: opened.body, delivery: { sender: opened.sender }, handlers };
  }

  /**
   * A publication on a topic this party listens on: plain ones go to the listeners without a key, keyed ones to
   * those whose key opens them; dropped (undefined) when nobody can take it.
   */
  publication(message: ReceivedWakuMessage, listeners: readonly TopicListener[]): Received | undefined {
    const payload = message.payload;
    const version = message.version ?? 0;
    if (version !== 0 && version !== 1) return this.drop('malformed');
    if (payload.length > this.maxPayloadBytes + (version === 1 ? ENVELOPE_OVERHEAD_BYTES : 0)) {
      return this.drop('oversized');
    }
    const seenKey = 'p' + seenKeyOf(message);
    if (this.seen.has(seenKey)) return this.drop('duplicate');
    if (version === 0) {
      const plain = listeners.filter((listener) => !listener.key);
      if (plain.length === 0) return this.drop('unsigned');
      this.seen.add(seenKey);
      return { body: payload, delivery: { sender: undefined }, handlers: plain.map((listener) => listener.handler) };
    }
    // Each distinct key the subscribers hold is tried once; a message reaches those whose key opens it.
    let reason: DropReason = 'undecryptable';
    for (const key of distinctKeys(listeners)) {
      const opened = openKeyed(key, payload);
      if (!opened.ok) {
        if (opened.reason !== 'undecryptable') reason = opened.reason;
        continue;
      }
      if (opened.body.length > this.maxPayloadBytes) return this.drop('oversized');
      this.seen.add(seenKey);
      const readers = listeners.filter((listener) => listener.key && bytesEqual(listener.key, key));
      return {
        body: opened.body,
        delivery: { sender: opened.sender },
        handlers: readers.map((listener) => listener.handler),
      };
    }
    return this.drop(reason);
  }

  drop(reason: DropReason | 'empty'): undefined {
    this.dropped[reason] += 1;
    return undefined;
  }

  /** Forgets what was seen (at stop). */
  clear(): void {
    this.seen.clear();
  }
}

/**
 * The key a message is remembered by. An encrypted one (version 1) ends in bytes that are new at every send and that
 * its scheme authenticates (ECIES: the MAC over a random IV; AES-GCM: the tag and the random IV), so its topic and
 * those last bytes are enough, without hashing the whole payload again after gossipsub's message id: a forgery that
 * copies them fails to open and is never remembered (a key is added only once its message opened), and a copy
 * re-stamped with a new time is a replay, dropped. A plain publication (version 0) proves nothing of its origin and
 * may repeat its bytes on purpose (a seed agent's unchanged `working` keeps its task alive), so all of it counts,
 * its time too, as in Waku's message hash: only the copies of one message are dropped.
 */
function seenKeyOf(message: ReceivedWakuMessage): string {
  if ((message.version ?? 0) !== 0) {
    return `${message.contentTopic}\n${bytesToHex(message.payload.subarray(-AUTHENTICATED_TAIL_BYTES))}`;
  }
  const timestamp = new Uint8Array(8);
  new DataView(timestamp.buffer).setBigUint64(0, BigInt.asUintN(64, message.timestamp ?? 0n), false);
  return digestHex(utf8ToBytes(message.contentTopic), message.payload, timestamp);
}

/** The MAC of an ECIES payload; AES-GCM's tag and IV and the last bytes of its ciphertext. */
const AUTHENTICATED_TAIL_BYTES = 32;

/** Hands each handler its own copy, so nobody can alter what another party received; a handler that throws is logged. */
export function deliver(received: Received, label: string): void {
  for (const handler of [...received.handlers]) {
    try {
      handler(received.body.slice(), { ...received.delivery });
    } catch (error) {
      console.error(`${label}: a receiver threw`, error);
    }
  }
}

/** A copy of a topic key, checked: the stock symmetric scheme takes 32 bytes. */
export function topicKey(key: Uint8Array, label: string): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new TypeError(`${label}: a topic key is 32 bytes`);
  return Uint8Array.from(key); // a Buffer's slice would be a view
}

function distinctKeys(listeners: readonly TopicListener[]): Uint8Array[] {
  const keys: Uint8Array[] = [];
  for (const { key } of listeners) if (key && !keys.some((known) => bytesEqual(known, key))) keys.push(key);
  return keys;
}
