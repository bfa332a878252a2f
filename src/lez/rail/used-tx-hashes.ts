/**
 * Reuse protection for incoming transfers. A LEZ transfer has no memo (docs/lez.md §3), so nothing on chain ties a
 * payment to the task it pays for: the binding lives in the verifier's store, and one transfer must never be
 * accepted for two purposes. The rails own no storage, so the gateway passes a durable implementation (its
 * payment store); the in-memory one is for tests and for verifiers that do not outlive the process.
 */

export type ClaimOutcome = { kind: 'claimed' } | { kind: 'taken'; claimedFor: string };

export interface UsedTxHashes {
  /**
   * Binds `txHash` to `purpose`, atomically. Claiming again for the same purpose succeeds (verification is
   * idempotent); for another purpose it fails and says which one holds it.
   */
  claim(txHash: string, purpose: string): Promise<ClaimOutcome>;
}

export class MemoryUsedTxHashes implements UsedTxHashes {
  private readonly claims = new Map<string, string>();

  async claim(txHash: string, purpose: string): Promise<ClaimOutcome> {
    const key = txHash.toLowerCase();
    const holder = this.claims.get(key);
    if (holder !== undefined && holder !== purpose) return { kind: 'taken', claimedFor: holder };
    this.claims.set(key, purpose);
    return { kind: 'claimed' };
  }
}
