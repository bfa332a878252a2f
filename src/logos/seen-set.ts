import { OldestFirst } from './oldest-first.ts';

/**
 * A set of keys (message hashes, envelope ids) with a fixed capacity: past it, the oldest key is forgotten first.
 */
export class SeenSet {
  private readonly entries = new Set<string>();
  /** The same keys in the order added (OldestFirst: taking the oldest from the Set itself costs O(deleted)). */
  private order = new OldestFirst<string>();
  private readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('seen set capacity must be a positive integer');
    this.capacity = capacity;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Adds `key`; answers whether it was new (a caller that adds what it has not seen needs no `has` first). */
  add(key: string): boolean {
    // Whether the key is new shows in the size: one lookup rather than two.
    const before = this.entries.size;
    this.entries.add(key);
    if (this.entries.size === before) return false;
    this.order.push(key);
    if (this.entries.size > this.capacity) this.entries.delete(this.order.shift()!);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.order = new OldestFirst<string>();
  }
}
