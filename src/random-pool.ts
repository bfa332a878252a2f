/**
 * Random bytes drawn from a buffer filled by the system's CSPRNG a few kilobytes at a time, for the many small
 * draws of the hot paths: sealing one Waku message takes three (padding, an ephemeral key, an IV), a task its status
 * key, a request its trace and span ids; one call into OpenSSL for each costs more than the bytes. Every byte is handed out once, then never again: the buffer is refilled, not reread.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 8 * 1024;
/** Larger draws go straight to the CSPRNG: pooling them would save nothing and empty the pool. */
const LARGEST_POOLED = 512;

/** A Buffer, whose `copy` takes a range without making a view of it (a view per draw cost more than a small draw). */
const pool = Buffer.alloc(POOL_BYTES);
/** Bytes before this offset have been handed out. */
let used = POOL_BYTES;

/** Fills `target` with random bytes. */
export function fillRandom(target: Uint8Array): void {
  if (target.length > LARGEST_POOLED) {
    randomFillSync(target);
    return;
  }
  if (used + target.length > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  pool.copy(target, 0, used, used + target.length);
  // Cleared as they leave, so the pool never holds a copy of bytes already in use as a key or padding.
  pool.fill(0, used, used + target.length);
  used += target.length;
}

/** `length` fresh random bytes. */
export function randomBytesFromPool(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  fillRandom(bytes);
  return bytes;
}
