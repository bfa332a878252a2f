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

/** Each base64url character's 6 bits by character code; -1 for any other character. */
const SEXTETS = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) {
  SEXTETS[c.charCodeAt(0)] = i;
}

/**
 * The 32 key bytes of a wire-form key (one that matched STATUS_KEY_PATTERN). Decoded here rather than by Buffer: a
 * key is decoded for each task at both ends, and Buffer's decoder, with the copy out of its pool, cost several times
 * this loop's time and bytes. Anything but a wire-form key is left to Buffer, whose leniency it always had.
 */
export function statusKeyBytes(key: string): Uint8Array {
  if (key.length !== 43) return new Uint8Array(Buffer.from(key, 'base64url'));
  const bytes = new Uint8Array(KEY_BYTES);
  // 43 characters: ten groups of four (three bytes each), then three characters carrying the last two bytes.
  let out = 0;
  for (let at = 0; at < 43; at += 4) {
    const a = sextet(key, at);
    const b = sextet(key, at + 1);
    const c = sextet(key, at + 2);
    if ((a | b | c) < 0) return new Uint8Array(Buffer.from(key, 'base64url'));
    bytes[out++] = (a << 2) | (b >> 4);
    bytes[out++] = ((b & 0x0f) << 4) | (c >> 2);
    if (at === 40) break; // the last two bits of the last character are padding
    const d = sextet(key, at + 3);
    if (d < 0) return new Uint8Array(Buffer.from(key, 'base64url'));
    bytes[out++] = ((c & 0x03) << 6) | d;
  }
  return bytes;
}

function sextet(key: string, at: number): number {
  const code = key.charCodeAt(at);
  return code < 128 ? SEXTETS[code]! : -1;
}
