/**
 * Executes a privacy-preserving transaction against the devnet state, with the checks of LEZ's
 * `ValidatedStateDiff::from_privacy_preserving_transaction` in their order (docs/lez.md §8.5), except the proof:
 *
 * 1. some new commitment or nullifier; 2. no account id, nullifier or commitment twice; 3. one nonce per signature,
 * each signer's nonce its current one (the signatures were verified at admission); the block and timestamp
 * validity windows; 4. the risc0 proof: NOT verified, as a sequencer run with `RISC0_DEV_MODE=1` (which accepts
 * fake receipts); 5. every new commitment is new; 6. no nullifier seen before. The commitment-set digest paired
 * with each nullifier is not checked either: the devnet keeps the commitments as a set, not as LEZ's Merkle tree.
 *
 * Applied as `apply_state_diff` does: the public post-states replace their accounts, every signer's nonce goes up by
 * one, the commitments and nullifiers join the private state. Since the proof, which would show that the circuit
 * conserved value, is not checked, the devnet keeps the private supply itself: what left public balances entered
 * private accounts, and no more can come out of them than went in.
 */
import { toHex } from '../lez/bytes.ts';
import { U128_MAX } from '../lez/json.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import { signerAccountIds } from './execute.ts';
import { invalidInput, type ExecutionFailure } from './failures.ts';
import type { AccountWrite, Ledger, PrivateWrites } from './ledger.ts';
import type { PrivacyPreservingTransaction, ValidityWindow } from '../lez/private/transaction.ts';

export type PrivateExecutionOutcome =
  { ok: true; writes: AccountWrite[]; private: PrivateWrites } | { ok: false; failure: ExecutionFailure };

/** Where the block being built stands, for the validity windows. */
export interface BlockPosition {
  blockId: bigint;
  timestampMs: bigint;
}

const distinct = (items: readonly Uint8Array[]) => new Set(items.map(toHex)).size === items.length;

const inWindow = (window: ValidityWindow, value: bigint) =>
  (window.from === undefined || value >= window.from) && (window.to === undefined || value < window.to);

export function executePrivacyPreservingTransaction(
  tx: PrivacyPreservingTransaction,
  state: Ledger,
  at: BlockPosition,
): PrivateExecutionOutcome {
  const { message } = tx;
  const fail = (failure: ExecutionFailure): PrivateExecutionOutcome => ({ ok: false, failure });
  if (message.newCommitments.length === 0 && message.newNullifiers.length === 0)
    return fail(invalidInput('no-private-outputs', 'Empty commitments and empty nullifiers found in message'));
  if (!distinct(message.publicAccountIds))
    return fail(invalidInput('duplicate-account-ids', 'Duplicate account_ids found in message'));
  if (!distinct(message.newNullifiers.map((n) => n.nullifier)))
    return fail(invalidInput('duplicate-nullifiers', 'Duplicate nullifiers found in message'));
  if (!distinct(message.newCommitments))
    return fail(invalidInput('duplicate-commitments', 'Duplicate commitments found in message'));
  if (message.nonces.length !== tx.witnesses.length)
    return fail(invalidInput('nonce-count-mismatch', 'Mismatch between number of nonces and signatures/public keys'));
  const signers = signerAccountIds(tx);
  for (const [i, signer] of signers.entries()) {
    if (state.get(signer).nonce !== message.nonces[i]) return fail(invalidInput('nonce-mismatch', 'Nonce mismatch'));
  }
  if (!inWindow(message.blockValidityWindow, at.blockId) || !inWindow(message.timestampValidityWindow, at.timestampMs))
    return fail({ reason: 'out-of-validity-window', message: 'Transaction is outside its validity window' });
  // The circuit's output has one public post-state per public account; a proof would fail otherwise.
  if (message.publicPostStates.length !== message.publicAccountIds.length) {
    return fail({
      reason: 'post-state-count-mismatch',
      message: 'Invalid privacy preserving execution circuit proof: post-states do not match the public accounts',
    });
  }
  if (message.newCommitments.some((c) => state.hasCommitment(c)))
    return fail(invalidInput('commitment-seen', 'Commitment already seen'));
  if (message.newNullifiers.some((n) => state.hasNullifier(n.nullifier)))
    return fail(invalidInput('nullifier-seen', 'Nullifier already seen'));

  const posts = new Map<string, AccountWrite>();
  let shielded = 0n;
  for (const [i, id] of message.publicAccountIds.entries()) {
    const post = message.publicPostStates[i]!;
    shielded += state.get(id).balance - post.balance;
    posts.set(toHex(id), { id, account: post });
  }
  if (state.shielded + shielded < 0n) {
    return fail({
      reason: 'private-supply-overdrawn',
      message: `Invalid privacy preserving execution circuit proof: ${-shielded} would leave private accounts, which hold ${state.shielded}`,
    });
  }
  for (const signer of signers) {
    const key = toHex(signer);
    const current: LezAccount = posts.get(key)?.account ?? state.get(signer);
    if (current.nonce === U128_MAX) return fail({ reason: 'nonce-overflow', message: 'Max account nonce reached' });
    posts.set(key, { id: signer, account: { ...current, nonce: current.nonce + 1n } });
  }
  return {
    ok: true,
    writes: [...posts.values()],
    private: {
      commitments: message.newCommitments,
      nullifiers: message.newNullifiers.map((n) => n.nullifier),
      shielded,
    },
  };
}
