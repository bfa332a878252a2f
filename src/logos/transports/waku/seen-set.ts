import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The key a message is remembered by: sha256 over its parts, each prefixed with its length. */
export function digestHex(...parts: Uint8Array[]): string {
  const hash = sha256.create();
  for (const part of parts) {
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, part.length, false);
    hash.update(length).update(part);
  }
  return bytesToHex(hash.digest());
}

/** A set of message hashes with a fixed capacity: past it, the oldest entry is forgotten first. */
export class SeenSet {
  private readonly entries = new Set<string>();
  private readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('seen set capacity must be a positive integer');
    this.capacity = capacity;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  add(key: string): void {
    if (this.entries.has(key)) return;
    this.entries.add(key);
    if (this.entries.size > this.capacity) {
      // A Set iterates in insertion order, so the first key is the oldest.
      const oldest = this.entries.values().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
