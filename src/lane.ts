/**
 * A one-at-a-time lane for async work: each job starts once the one before it has settled. The payer's nonce is one
 * such counter (a sequencer must receive a payer's transactions in nonce order); the spending gate's turns are another.
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
