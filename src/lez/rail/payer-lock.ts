/**
 * Replicas that pay from one wallet must not sign at once: each would read the same on-chain nonce and give it to a
 * different transaction, and all but one would be dropped (or, landing late, supersede a later one). A payer lock
 * makes one replica at a time the signer. The holder keeps it while any transaction it signed is unsettled, since
 * the chain's nonce does not count transactions still in the mempool; it lets go once all have settled, and the next
 * holder reads the chain's nonce afresh. A single process needs no lock.
 */
export interface PayerLock {
  /** Takes the lock unless another holder has it; resolves whether this process holds it now. Never waits. */
  tryAcquire(): Promise<boolean>;
  /** Lets it go (a no-op when not held). */
  release(): Promise<void>;
}
