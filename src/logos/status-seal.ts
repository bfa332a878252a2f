/**
 * The per-task status topic is pub/sub, so relays see what is published there. Each task therefore has its own
 * 256-bit key, chosen by the gateway and sent to the agent inside its (transport-encrypted) requests; the agent
 * seals every reply it publishes with AES-256-GCM under that key. Only the two ends can read a task's replies;
 * the transport still authenticates who published them.
 *
 * Sealed form: 12-byte random nonce ‖ ciphertext ‖ 16-byte tag.
 */
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Keys and nonces come from a pool refilled from the CSPRNG 8 KiB at a time: one system call per few hundred tasks
 * instead of two per task (it showed in profiles). Every value is copied out and never handed out twice.
 */
const pool = Buffer.allocUnsafe(8192);
let poolOffset = pool.length;

function randomCopy(bytes: number): Buffer {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const copy = Buffer.from(pool.subarray(poolOffset, poolOffset + bytes));
  poolOffset += bytes;
  return copy;
}

/** A fresh key in its wire form: 32 bytes, base64url without padding (43 characters). */
export function newStatusKey(): string {
  return randomCopy(32).toString('base64url');
}

export const STATUS_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function seal(key: string, plaintext: Uint8Array): Uint8Array {
  const nonce = randomCopy(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64url'), nonce);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

/** Seals only what an observable network carries: a transport whose publications are private needs no seal. */
export function sealFor(privatePublications: boolean, key: string, plaintext: Uint8Array): Uint8Array {
  return privatePublications ? plaintext : seal(key, plaintext);
}

/** The plaintext, or undefined when the payload was not sealed under this key (or was altered). */
export function open(key: string, sealed: Uint8Array): Uint8Array | undefined {
  if (sealed.byteLength < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64url'), sealed.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.byteLength - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(NONCE_BYTES, sealed.byteLength - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    return undefined;
  }
}
