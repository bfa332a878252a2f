/**
 * Chooses and executes the transactions of one block, as `build_block_from_mempool` does on the real
 * sequencer (docs/lez.md §2): the mempool is taken oldest first; each transaction executes against the state left
 * by the ones before it; a failing transaction is dropped (never enters a block, never changes state); the block
 * stops at `maxTransactions` or `maxBlockBytes` and what did not fit stays queued for the next block.
 *
 * A transaction whose nonce is *ahead* of its signer's (nonce 7 arriving before 6) fails like any other, as on the
 * real sequencer. `holdFutureNonces` (a devnet-only option) holds it back instead and retries it as soon as the
 * earlier nonce executes in the same build; if its turn does not come, it waits through `nonceGapBlocks` more
 * builds and is then dropped. A nonce *behind* the signer's (a replay, or a nonce already used) is dropped at once.
 */
import type { ExecutionFailure } from './failures.ts';
import { invalidInput } from './failures.ts';
import type { FeeTerms } from './execute.ts';
import { applyOutcome, executeTransaction } from './execute-entry.ts';
import type { BlockPosition } from './execute-private.ts';
import { BLOCK_OVERHEAD_BYTES } from '../lez/block.ts';
import type { Ledger } from './ledger.ts';
import type { MempoolEntry } from './mempool.ts';
import type { DevnetProgramIds } from './programs.ts';

export interface BuildLimits {
  maxTransactions: number;
  maxBlockBytes: number;
  /** Devnet-only: park a transaction whose nonce is ahead instead of dropping it. */
  holdFutureNonces: boolean;
  nonceGapBlocks: number;
}

export interface BuildResult {
  included: MempoolEntry[];
  dropped: { entry: MempoolEntry; failure: ExecutionFailure }[];
  /** Still queued: did not fit, or waiting for an earlier nonce. */
  remaining: MempoolEntry[];
}

/**
 * Executes into `ledger`, its only side effect: the caller passes a working copy and commits it only if it likes
 * the block. Queue entries are not modified; `remaining` holds updated copies.
 */
export function buildBlock(
  ledger: Ledger,
  queue: readonly MempoolEntry[],
  programs: DevnetProgramIds,
  limits: BuildLimits,
  at: BlockPosition,
  fees?: FeeTerms,
): BuildResult {
  const result: BuildResult = { included: [], dropped: [], remaining: [] };
  let parked: MempoolEntry[] = [];
  let bytes = BLOCK_OVERHEAD_BYTES;
  let full = false;

  /** Executes one entry; true when it went into the block. */
  const attempt = (entry: MempoolEntry): boolean => {
    if (result.included.length >= limits.maxTransactions || bytes + entry.bytes.byteLength > limits.maxBlockBytes) {
      full = true;
      result.remaining.push(entry);
      return false;
    }
    const charge = fees && { terms: fees, dataBytes: entry.bytes.byteLength };
    const outcome = executeTransaction(entry.tx, ledger, programs, at, charge);
    if (outcome.ok) {
      applyOutcome(ledger, outcome);
      result.included.push(entry);
      bytes += entry.bytes.byteLength;
      return true;
    }
    if (limits.holdFutureNonces && outcome.failure.reason === 'nonce-mismatch' && nonceIsAhead(entry, ledger))
      parked.push(entry);
    else result.dropped.push({ entry, failure: outcome.failure });
    return false;
  };

  /** After an inclusion, held-back entries whose turn has come go next, repeatedly. */
  const releaseParked = (): void => {
    for (;;) {
      const due = parked.find((entry) => nonceIsDue(entry, ledger));
      if (!due || full) return;
      parked = parked.filter((entry) => entry !== due);
      attempt(due);
    }
  };

  for (const entry of queue) {
    if (full) {
      result.remaining.push(entry);
      continue;
    }
    if (attempt(entry)) releaseParked();
  }

  for (const entry of parked) {
    // A full block may have cut off the earlier nonce: that is no gap, so the wait does not count.
    if (full) result.remaining.push(entry);
    else if (entry.waitedBlocks >= limits.nonceGapBlocks)
      result.dropped.push({ entry, failure: invalidInput('nonce-mismatch', 'Nonce mismatch') });
    else result.remaining.push({ ...entry, waitedBlocks: entry.waitedBlocks + 1 });
  }
  return result;
}

/** Every signer's nonce is at or past its current one, so the transaction may still become valid. */
function nonceIsAhead(entry: MempoolEntry, ledger: Ledger): boolean {
  return entry.signers.every((signer, i) => (entry.tx.message.nonces[i] ?? -1n) >= ledger.get(signer).nonce);
}

function nonceIsDue(entry: MempoolEntry, ledger: Ledger): boolean {
  return entry.signers.every((signer, i) => entry.tx.message.nonces[i] === ledger.get(signer).nonce);
}
