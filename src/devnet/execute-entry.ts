/**
 * One entry point for executing whatever the devnet queued, public or privacy-preserving, and for applying the
 * outcome to a ledger: block building, strict admission and replay all go through it.
 */
import { isPrivacyPreserving, type PrivacyPreservingTransaction } from '../lez/private/transaction.ts';
import type { PublicTransaction } from '../lez/transaction.ts';
import { executePublicTransaction, type ExecutionOutcome, type FeeTerms } from './execute.ts';
import {
  executePrivacyPreservingTransaction,
  type BlockPosition,
  type PrivateExecutionOutcome,
} from './execute-private.ts';
import type { Ledger } from './ledger.ts';
import type { DevnetProgramIds } from './programs.ts';

export type DevnetTransaction = PublicTransaction | PrivacyPreservingTransaction;

export type AnyExecutionOutcome = ExecutionOutcome | PrivateExecutionOutcome;

export function executeTransaction(
  tx: DevnetTransaction,
  ledger: Ledger,
  programs: DevnetProgramIds,
  at: BlockPosition,
  charge?: { terms: FeeTerms; dataBytes: number },
): AnyExecutionOutcome {
  return isPrivacyPreserving(tx)
    ? executePrivacyPreservingTransaction(tx, ledger, at)
    : executePublicTransaction(tx, ledger, programs, charge);
}

/** Applies a successful outcome: its account writes, and what it adds to the private state. */
export function applyOutcome(ledger: Ledger, outcome: Extract<AnyExecutionOutcome, { ok: true }>): void {
  ledger.apply(outcome.writes);
  if ('private' in outcome) ledger.applyPrivate(outcome.private);
}
