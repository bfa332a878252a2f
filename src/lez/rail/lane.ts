/**
 * A one-at-a-time lane for async work. The payer's nonce is a single counter, so everything that reads it, signs
 * with it or submits under it runs here in order: the sequencer must receive a payer's transactions in nonce
 * order, because a transaction that arrives before its predecessor fails at block time and is dropped.
 */
export class Lane {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything queued before it has settled; its result or error is passed through. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work, work);
    // The lane goes on whether or not this job failed; the caller still sees the failure.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
