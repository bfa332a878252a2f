/**
 * The mempool: transactions that passed sendTransaction's stateless checks, oldest first (the real one is a
 * FIFO channel, docs/lez.md §2), indexed by hash so a resend is recognised. Bounded: the real sequencer's
 * `mempool_max_size` makes a sender wait; the devnet refuses instead (see rpc-errors.ts), since a JSON-RPC call
 * parked for minutes helps no one in a test.
 */
import type { DevnetTransaction } from './execute-entry.ts';

export interface MempoolEntry {
  /** Arrival order; block building keeps it for everything it does not include. */
  seq: number;
  /** Lowercase hex tx hash. */
  hash: string;
  /** borsh(NSSATransaction), exactly as submitted: what blocks and getTransaction return. */
  bytes: Uint8Array;
  /** A public or (profile v0.2) a privacy-preserving transaction. */
  tx: DevnetTransaction;
  /** The signers' account ids, in witness order (one per nonce). */
  signers: readonly Uint8Array[];
  /** Block builds this entry has already waited through for an earlier nonce (see block-builder.ts). */
  waitedBlocks: number;
}

export class Mempool {
  private entries: MempoolEntry[] = [];
  private readonly byHash = new Map<string, MempoolEntry>();
  private nextSeq = 0;
  readonly maxSize: number;

  constructor(maxSize: number) {
    this.maxSize = maxSize;
  }

  get size(): number {
    return this.entries.length;
  }

  get isFull(): boolean {
    return this.entries.length >= this.maxSize;
  }

  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  push(entry: Omit<MempoolEntry, 'seq' | 'waitedBlocks'>): MempoolEntry {
    const queued: MempoolEntry = { ...entry, seq: this.nextSeq++, waitedBlocks: 0 };
    this.entries.push(queued);
    this.byHash.set(queued.hash, queued);
    return queued;
  }

  /** Oldest first. */
  list(): readonly MempoolEntry[] {
    return this.entries;
  }

  /** After a block build: what it left behind, back in arrival order. */
  replace(remaining: readonly MempoolEntry[]): void {
    this.entries = [...remaining].sort((a, b) => a.seq - b.seq);
    this.byHash.clear();
    for (const entry of this.entries) this.byHash.set(entry.hash, entry);
  }

  clear(): void {
    this.replace([]);
  }
}
