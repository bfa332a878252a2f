/**
 * What a party does with a WakuMessage that reaches it, whichever way it came (its own relay node, or a node's REST
 * API): the checks of `frames.ts`, repeats dropped, every drop counted by reason, and delivery of a private copy to
 * each handler. Shared by the `waku` and `nwaku-rest` transports so both accept and refuse exactly the same.
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { Delivery, PayloadHandler } from '../../transport.ts';
import { PUBLICATION_HEADER_BYTES, openDirect, openPublication, type DropReason } from './frames.ts';
import type { WakuIdentity } from './identity.ts';
import { SeenSet, digestHex } from './seen-set.ts';

/** Room for Waku payload encryption (flags, size, padding to 256, signature, ECIES) and our frames. */
export const ENVELOPE_OVERHEAD_BYTES = 1024;

export type WakuDropCounters = Record<DropReason, number>;

/** The fields of a received WakuMessage the checks look at. */
export interface ReceivedWakuMessage {
  payload: Uint8Array;
  contentTopic: string;
  version?: number;
}

export type Received = { body: Uint8Array; sender: string } | undefined;

export class PartyReceiver {
  readonly dropped: WakuDropCounters = {
    malformed: 0,
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

  /** A 1:1 message on this party's inbox topic: decrypted and checked, or dropped (undefined). */
  async direct(message: ReceivedWakuMessage): Promise<Received> {
    const payload = message.payload;
    if (message.version !== 1) return this.drop('malformed');
    if (payload.length > this.maxPayloadBytes + ENVELOPE_OVERHEAD_BYTES) return this.drop('oversized');
    const key = 'd' + digestHex(utf8ToBytes(message.contentTopic), payload);
    if (this.seen.has(key)) return this.drop('duplicate');
    const opened = await openDirect(this.#identity.privateKey, this.#identity.publicKey, payload);
    if (!opened.ok) return this.drop(opened.reason);
    if (opened.body.length > this.maxPayloadBytes) return this.drop('oversized');
    // Checked again: the same message may have been opened meanwhile.
    if (this.seen.has(key)) return this.drop('duplicate');
    this.seen.add(key);
    return { body: opened.body, sender: opened.sender };
  }

  /** A publication on a topic this party listens on: its frame checked, or dropped (undefined). */
  publication(message: ReceivedWakuMessage): Received {
    const payload = message.payload;
    if ((message.version ?? 0) !== 0) return this.drop('malformed');
    if (payload.length > this.maxPayloadBytes + PUBLICATION_HEADER_BYTES) return this.drop('oversized');
    const key = 'p' + digestHex(utf8ToBytes(message.contentTopic), payload);
    if (this.seen.has(key)) return this.drop('duplicate');
    const opened = openPublication(message.contentTopic, payload);
    if (!opened.ok) return this.drop(opened.reason);
    this.seen.add(key);
    return { body: opened.body, sender: opened.sender };
  }

  drop(reason: DropReason): undefined {
    this.dropped[reason] += 1;
    return undefined;
  }

  /** Forgets what was seen (at stop). */
  clear(): void {
    this.seen.clear();
  }
}

/** Hands each handler its own copy, so nobody can alter what another party received; a handler that throws is logged. */
export function deliver(handlers: Set<PayloadHandler>, body: Uint8Array, delivery: Delivery, label: string): void {
  for (const handler of [...handlers]) {
    try {
      handler(body.slice(), { ...delivery });
    } catch (error) {
      console.error(`${label}: a receiver threw`, error);
    }
  }
}
