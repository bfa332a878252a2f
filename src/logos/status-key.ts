/**
 * The per-task status topic is pub/sub, so relays see what is published there. Each task therefore has its own
 * 256-bit key, chosen by the gateway and sent to the agent inside its (end-to-end encrypted) requests; the agent
 * publishes every reply under that key (the transport encrypts with AES-256-GCM and signs, docs/binding.md §2.3).
 * Only the two ends can read a task's replies.
 *
 * Wire form: 32 bytes, base64url without padding (43 characters).
 */
import { randomFillSync } from 'node:crypto';

const KEY_BYTES = 32;

/**
 * Keys come from a pool refilled from the CSPRNG 8 KiB at a time: one system call per 256 tasks instead of one per
 * task (it showed in profiles). Every key is copied out and never handed out twice.
 */
const pool = Buffer.allocUnsafe(8192);
let poolOffset = pool.length;

/** A fresh key in its wire form. */
export function newStatusKey(): string {
  if (poolOffset + KEY_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const key = pool.toString('base64url', poolOffset, poolOffset + KEY_BYTES);
  poolOffset += KEY_BYTES;
  return key;
}

export const STATUS_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The 32 key bytes of a wire-form key (one that matched STATUS_KEY_PATTERN). */
export function statusKeyBytes(key: string): Uint8Array {
  return new Uint8Array(Buffer.from(key, 'base64url'));
}
