/**
 * Executes a public transaction against the devnet state, with the checks of LEZ's
 * `ValidatedStateDiff::from_public_transaction` and `apply_state_diff` (docs/lez.md §3.8), in their
 * order, so a transaction that breaks several rules fails for the same reason it would on a real sequencer:
 *
 * 1. no account id twice; 2. one nonce per signature; 3. each signer's nonce equals its current nonce;
 * 4. the program exists; 5. the program runs; 6. only the owner may lower a balance, and the total balance of
 * the touched accounts is unchanged; 7. a claim needs a default account and that account's signature;
 * 8. a default account may change only by being claimed; 9. every signer's nonce goes up by one.
 *
 * Signatures are not verified again here: sendTransaction already did, under the one configured signing mode.
 * Nothing is changed: the result is the accounts to write, which the caller applies (or not).
 *
 * On a chain with fees (`lee-v0.3`, fees.ts), a charged transaction is reserved, executed, settled: its payer's
 * `fee_reserve` is held back before anything runs (a payer that cannot fund it drops the transaction), the program
 * runs against what is left, and then the payer gets back the reserve less the actual fee
 * (`gas·base_fee_exec + data_bytes·base_fee_stor + tip`), which goes to the sequencer's account. The devnet meters a
 * native transfer at a fixed `transferGas`; a gas limit below it drops the transaction. There is no claiming step:
 * a recipient never initialised is paid like any other.
 */
import { formatAccountId, publicAccountId } from '../lez/account-id.ts';
import { toHex } from '../lez/bytes.ts';
import { U128_MAX } from '../lez/json.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import { feeReserve } from '../lez/fees.ts';
import { layoutOf, programIdEquals, type PublicTransaction, type Witness } from '../lez/transaction.ts';
import { invalidInput, programMisbehaved, type ExecutionFailure } from './failures.ts';
import { accountsEqual, isDefaultOwner, type AccountView, type AccountWrite } from './ledger.ts';
import { runAuthenticatedTransfer, type PreState } from './native-program.ts';
import { classifyProgram, type DevnetProgramIds } from './programs.ts';

export type ExecutionOutcome = { ok: true; writes: AccountWrite[] } | { ok: false; failure: ExecutionFailure };

/** The account ids that signed, in witness order: these are the accounts whose nonces the message carries. */
export function signerAccountIds(tx: { witnesses: readonly Witness[] }): Uint8Array[] {
  return tx.witnesses.map((witness) => publicAccountId(witness.publicKey));
}

/** What a charged transaction pays, on a chain with fees. */
export interface FeeTerms {
  baseFeeExec: bigint;
  baseFeeStor: bigint;
  /** The gas the devnet meters for a native transfer. */
  transferGas: bigint;
  /** Where fees go. */
  collector: Uint8Array;
}

export function executePublicTransaction(
  tx: PublicTransaction,
  chainState: AccountView,
  programs: DevnetProgramIds,
  charge?: { terms: FeeTerms; dataBytes: number },
): ExecutionOutcome {
  const { message } = tx;
  const fee = charge ? message.fee : undefined;
  let state = chainState;
  let reserve = 0n;
  if (charge && fee) {
    const { terms } = charge;
    reserve = feeReserve(fee, BigInt(charge.dataBytes), terms.baseFeeExec, terms.baseFeeStor);
    const payer = state.get(fee.payer);
    if (payer.balance < reserve)
      return fail(invalidInput('fee-reserve-unfunded', `fee payer cannot fund the fee reserve ${reserve}`));
    if (fee.gasLimit < terms.transferGas)
      return fail(invalidInput('out-of-gas', `gas_limit ${fee.gasLimit} is below the ${terms.transferGas} gas used`));
    state = reserved(chainState, fee.payer, { ...payer, balance: payer.balance - reserve });
  }
  const keys = message.accountIds.map(toHex);
  if (new Set(keys).size !== keys.length)
    return fail(invalidInput('duplicate-account-ids', 'Duplicate account_ids found in message'));
  if (message.nonces.length !== tx.witnesses.length) {
    return fail(invalidInput('nonce-count-mismatch', 'Mismatch between number of nonces and signatures/public keys'));
  }

  const signers = signerAccountIds(tx);
  const signerKeys = new Set(signers.map(toHex));
  for (const [i, signer] of signers.entries()) {
    if (state.get(signer).nonce !== message.nonces[i]) return fail(invalidInput('nonce-mismatch', 'Nonce mismatch'));
  }

  switch (classifyProgram(programs, message.programId)) {
    case 'unknown':
      return fail(invalidInput('unknown-program', 'Unknown program'));
    case 'not-emulated':
      return fail({
        reason: 'program-not-emulated',
        message: 'Failed to execute program: the devnet emulates only authenticated_transfer',
      });
    case 'native-transfer':
      break;
  }

  const pre: PreState[] = message.accountIds.map((id, i) => ({
    id,
    account: state.get(id),
    authorized: signerKeys.has(keys[i]!),
  }));
  const run = runAuthenticatedTransfer(pre, message.instructionData, layoutOf(message));
  if (!run.ok) return run;

  // validate_execution: only the owning program may lower a balance; the program may not mint or burn.
  let before = 0n;
  let after = 0n;
  for (const [i, post] of run.posts.entries()) {
    const { id, account } = pre[i]!;
    before += account.balance;
    after += post.account.balance;
    if (post.account.balance < account.balance && !programIdEquals(account.programOwner, message.programId)) {
      return fail(
        programMisbehaved(
          'balance-lowered-by-non-owner',
          `program lowered the balance of ${formatAccountId(id)}, which it does not own`,
        ),
      );
    }
  }
  if (before !== after) return fail(programMisbehaved('balance-not-conserved', 'total balance changed'));

  const posts = new Map<string, AccountWrite>();
  for (const [i, post] of run.posts.entries()) {
    const { id, account } = pre[i]!;
    let next = post.account;
    if (post.claim) {
      if (!isDefaultOwner(account.programOwner)) {
        return fail(
          programMisbehaved(
            'claimed-non-default-account',
            `Trying to claim account ${formatAccountId(id)} which is not default`,
          ),
        );
      }
      if (!pre[i]!.authorized && !charge) {
        return fail(
          programMisbehaved(
            'claimed-unauthorized-account',
            `Trying to claim account ${formatAccountId(id)} which is not authorized`,
          ),
        );
      }
      next = { ...next, programOwner: message.programId };
    }
    posts.set(keys[i]!, { id, account: next });
  }
  for (const [i, { id, account }] of pre.entries()) {
    const post = posts.get(keys[i]!)!.account;
    if (isDefaultOwner(account.programOwner) && !accountsEqual(account, post) && isDefaultOwner(post.programOwner)) {
      return fail(
        programMisbehaved(
          'default-account-modified-without-claim',
          `Default account ${formatAccountId(id)} was modified without being claimed`,
        ),
      );
    }
  }

  // apply_state_diff: every signer's nonce goes up by one, whether or not the program touched its account.
  for (const signer of signers) {
    const key = toHex(signer);
    const current: LezAccount = posts.get(key)?.account ?? state.get(signer);
    if (current.nonce === U128_MAX) return fail({ reason: 'nonce-overflow', message: 'Max account nonce reached' });
    posts.set(key, { id: signer, account: { ...current, nonce: current.nonce + 1n } });
  }
  if (charge && fee) {
    const { terms } = charge;
    const actual = terms.transferGas * terms.baseFeeExec + BigInt(charge.dataBytes) * terms.baseFeeStor + fee.tip;
    const credit = (id: Uint8Array, amount: bigint) => {
      const key = toHex(id);
      const current = posts.get(key)?.account ?? state.get(id);
      posts.set(key, { id, account: { ...current, balance: current.balance + amount } });
    };
    credit(fee.payer, reserve - actual);
    credit(terms.collector, actual);
  }
  return { ok: true, writes: [...posts.values()] };
}

/** `state`, but with the payer's account as it is once its fee reserve is held back. */
function reserved(state: AccountView, payer: Uint8Array, account: LezAccount): AccountView {
  const key = toHex(payer);
  return { get: (id) => (toHex(id) === key ? account : state.get(id)) };
}

function fail(failure: ExecutionFailure): ExecutionOutcome {
  return { ok: false, failure };
}
