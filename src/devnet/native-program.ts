/**
 * `authenticated_transfer`, the native token program, as it behaves on LEZ `main`
 * (docs/lez.md §3): the instruction is one u128 (4 risc0 serde words); in the lee-v0.3 layout, borsh of
 * `Transfer { amount }` (transaction.ts), and the recipient needs no signature to be claimed (execute.ts).
 *
 * - two accounts `[sender, recipient]`: move `amount`; the sender must be authorised (a signer); a recipient
 *   whose owner is still the default is claimed (`Claim::Authorized`), which the validator allows only when the
 *   recipient signed too;
 * - one account and amount 0: initialise it (claim it for this program); it must still be the default account;
 * - anything else: the guest panics.
 *
 * Like the guest, this only computes post-states and claims; every rule about who may do what is checked by
 * execute.ts, the validator, after it, in the real order.
 */
import type { LezAccount } from '../lez/sequencer-client.ts';
import { U128_MAX } from '../lez/json.ts';
import { nativeTransferAmount, type MessageLayout } from '../lez/transaction.ts';
import { programPanic, type ExecutionFailure } from './failures.ts';
import { isDefaultAccount, isDefaultOwner } from './ledger.ts';

export interface PreState {
  id: Uint8Array;
  account: LezAccount;
  /** Signed by this account's key. */
  authorized: boolean;
}

export interface PostState {
  account: LezAccount;
  /** The program claims this account (`Claim::Authorized`): the validator checks and sets the owner. */
  claim: boolean;
}

export type ProgramRun = { ok: true; posts: PostState[] } | { ok: false; failure: ExecutionFailure };

export function runAuthenticatedTransfer(
  pre: readonly PreState[],
  instruction: readonly number[],
  layout: MessageLayout,
): ProgramRun {
  const amount = nativeTransferAmount(instruction, layout);
  if (amount === undefined) return fail('invalid-instruction', 'instruction is not a u128 amount');

  if (pre.length === 1 && amount === 0n) {
    const [target] = pre as [PreState];
    if (!isDefaultAccount(target.account)) return fail('account-already-initialised', 'Account must be uninitialized');
    return { ok: true, posts: [{ account: target.account, claim: true }] };
  }

  if (pre.length !== 2)
    return fail('invalid-instruction', `expected 1 account (initialise) or 2 (transfer), got ${pre.length}`);
  const [sender, recipient] = pre as [PreState, PreState];
  if (!sender.authorized) return fail('sender-not-authorized', 'Sender must be authorized');
  if (sender.account.balance < amount) return fail('insufficient-balance', 'Sender has insufficient balance');
  if (recipient.account.balance + amount > U128_MAX) return fail('balance-overflow', 'Recipient balance overflow');
  return {
    ok: true,
    posts: [
      { account: { ...sender.account, balance: sender.account.balance - amount }, claim: false },
      {
        account: { ...recipient.account, balance: recipient.account.balance + amount },
        claim: isDefaultOwner(recipient.account.programOwner),
      },
    ],
  };
}

function fail(reason: ExecutionFailure['reason'], text: string): ProgramRun {
  return { ok: false, failure: programPanic(reason, text) };
}
