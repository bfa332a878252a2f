/**
 * The per-task status topic is pub/sub, so relays see what is published there. Each task therefore has its own
 * 256-bit key, chosen by the gateway and sent to the agent inside its (end-to-end encrypted) requests; the agent
 * publishes every reply under that key (the transport encrypts with AES-256-GCM and signs, docs/binding.md §2.6).
 * Only the two ends can read a task's replies.
 *
 * Wire form: 32 bytes, base64url without padding (43 characters).
 */
import { fillRandom } from '../random-pool.ts';

const KEY_BYTES = 32;

/** Filled anew for each key, which leaves as a string: the bytes come from the shared pool (random-pool.ts). */
const scratch = Buffer.alloc(KEY_BYTES);

/** A fresh key in its wire form. */
export function newStatusKey(): string {
  fillRandom(scratch);
  return scratch.toString('base64url');
}

export const STATUS_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The 32 key bytes of a wire-form key (one that matched STATUS_KEY_PATTERN). */
export function statusKeyBytes(key: string): Uint8Array {
  return new Uint8Array(Buffer.from(key, 'base64url'));
}
