/**
 * Why a transaction failed execution. The real sequencer logs these and drops the transaction at block time
 * (docs/lez.md §2); the devnet records them too, so tests and `getTransactionReceipt` can say what happened.
 *
 * `message` is the text of LEZ's `NssaError` (`nssa/src/error.rs`) for the same failure, with the inner detail
 * appended where LEZ's own text hides it ("Program violated execution rules" says nothing about which rule).
 */

export type DropReason =
  | 'duplicate-account-ids'
  | 'nonce-count-mismatch'
  | 'nonce-mismatch'
  | 'nonce-overflow'
  | 'unknown-program'
  | 'program-not-emulated'
  | 'invalid-instruction'
  | 'sender-not-authorized'
  | 'insufficient-balance'
  | 'balance-overflow'
  | 'account-already-initialised'
  | 'claimed-unauthorized-account'
  | 'claimed-non-default-account'
  | 'balance-lowered-by-non-owner'
  | 'balance-not-conserved'
  | 'default-account-modified-without-claim'
  | 'fee-reserve-unfunded'
  | 'out-of-gas'
  // privacy-preserving transactions (execute-private.ts)
  | 'no-private-outputs'
  | 'duplicate-nullifiers'
  | 'duplicate-commitments'
  | 'post-state-count-mismatch'
  | 'out-of-validity-window'
  | 'commitment-seen'
  | 'nullifier-seen'
  | 'private-supply-overdrawn';

export interface ExecutionFailure {
  reason: DropReason;
  message: string;
}

export const invalidInput = (reason: DropReason, text: string): ExecutionFailure => ({
  reason,
  message: `Invalid input: ${text}`,
});

/** A program panic: risc0 reports the guest's panic message. */
export const programPanic = (reason: DropReason, text: string): ExecutionFailure => ({
  reason,
  message: `Failed to execute program: ${text}`,
});

export const programMisbehaved = (reason: DropReason, text: string): ExecutionFailure => ({
  reason,
  message: `Program violated execution rules: ${text}`,
});
