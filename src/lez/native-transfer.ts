/**
 * Public native token transfers (docs/lez.md §3.7, §7.2, §7.3): building a signed one, and reading
 * one back to check it pays what was expected.
 *
 * - Transfer: `account_ids = [from, to]`, nonces `[nonce(from)]`, instruction = the u128 amount, signed by `from`.
 * - Initialisation (`wallet auth-transfer init`): `account_ids = [account]`, amount 0, signed by `account`. A
 *   recipient must be initialised before anyone else can pay it, or the transfer is dropped at block time.
 */
import { base64 } from '@scure/base';
import { formatAccountId, publicAccountId } from './account-id.ts';
import { bytesEqual } from './bytes.ts';
import { xOnlyPublicKey } from './public-key.ts';
import type { FeeDeclaration } from './fees.ts';
import { signPublicMessage, type SigningMode } from './signing.ts';
import {
  layoutOf,
  nativeTransferAmount,
  nativeTransferInstruction,
  nssaTransactionToBase64,
  programIdEquals,
  publicTransactionHashHex,
  type NssaTransaction,
  type ProgramId,
  type PublicMessage,
  type PublicTransaction,
} from './transaction.ts';

export interface SignedTransaction {
  transaction: PublicTransaction;
  /** What `sendTransaction` takes. */
  base64: string;
  /** What `sendTransaction` should answer, computed locally. */
  hashHex: string;
}

function seal(
  message: PublicMessage,
  secretKey: Uint8Array,
  mode: SigningMode,
  auxRand?: Uint8Array,
): SignedTransaction {
  const transaction: PublicTransaction = { message, witnesses: [signPublicMessage(message, secretKey, mode, auxRand)] };
  const nssa: NssaTransaction = { kind: 'public', transaction };
  return { transaction, base64: nssaTransactionToBase64(nssa), hashHex: publicTransactionHashHex(transaction) };
}

export interface NativeTransferInput {
  /** `getProgramIds().authenticated_transfer`. */
  programId: ProgramId;
  /** The sender's secret key; its public account is the `from` account. */
  secretKey: Uint8Array;
  to: Uint8Array;
  amount: bigint;
  /** The sender's current on-chain nonce (`getAccountsNonces`). */
  nonce: bigint;
  mode: SigningMode;
  /**
   * The lee-v0.3 layout's fee fields (the sender pays: the payer is filled in); without them, the v0.2 layout.
   */
  fee?: Omit<FeeDeclaration, 'payer'>;
  /** Only tests pin this. */
  auxRand?: Uint8Array;
}

export function buildNativeTransfer(
  input: NativeTransferInput,
): ({ ok: true; from: Uint8Array } & SignedTransaction) | { ok: false; reason: string } {
  const from = publicAccountId(xOnlyPublicKey(input.secretKey));
  // LEZ drops a message naming an account twice; paying yourself is refused here rather than at block time.
  if (bytesEqual(from, input.to)) return { ok: false, reason: 'sender and recipient are the same account' };
  if (input.amount <= 0n) return { ok: false, reason: 'a transfer amount must be positive' };
  const message: PublicMessage = {
    programId: input.programId,
    accountIds: [from, input.to],
    nonces: [input.nonce],
    instructionData: nativeTransferInstruction(input.amount, input.fee ? 'lee-v0.3' : 'v0.2'),
    ...(input.fee ? { fee: { payer: from, ...input.fee } } : {}),
  };
  return { ok: true, from, ...seal(message, input.secretKey, input.mode, input.auxRand) };
}

/**
 * The borsh length of a native transfer that declares a fee (lee-v0.3): what its storage fee prices. Every field is
 * fixed-width (ids, u128 nonce and amount, the fee's integers, one signature), so one measure fits every payment.
 */
export function feeTransferBytes(): bigint {
  const built = buildNativeTransfer({
    programId: [0, 0, 0, 0, 0, 0, 0, 0],
    secretKey: new Uint8Array(32).fill(1),
    to: new Uint8Array(32).fill(2),
    amount: 1n,
    nonce: 0n,
    mode: 'prehash-v0.3',
    fee: { gasLimit: 0n, tip: 0n, maxFee: 0n },
  });
  if (!built.ok) throw new Error(`measuring a transfer failed: ${built.reason}`);
  return BigInt(base64.decode(built.base64).byteLength);
}

export interface AccountInitialisationInput {
  programId: ProgramId;
  secretKey: Uint8Array;
  nonce: bigint;
  mode: SigningMode;
  auxRand?: Uint8Array;
}

/** Claims the signer's own account for `authenticated_transfer`, so that others can pay it. */
export function buildAccountInitialisation(
  input: AccountInitialisationInput,
): { account: Uint8Array } & SignedTransaction {
  const account = publicAccountId(xOnlyPublicKey(input.secretKey));
  const message: PublicMessage = {
    programId: input.programId,
    accountIds: [account],
    nonces: [input.nonce],
    instructionData: nativeTransferInstruction(0n),
  };
  return { account, ...seal(message, input.secretKey, input.mode, input.auxRand) };
}

/**
 * A public native transfer (docs/lez.md §3.7): `amount` base units from `from` to `to`, under the sender's `nonce`.
 * The one shape of a transfer here: the memory ledger applies it, the verifier reads it from the chain (with its
 * hash), and a rail's signed payment is one (with its id and bytes).
 */
export interface NativeTransfer {
  /** The sending account, base58 (a label on the memory ledger). */
  from: string;
  to: string;
  amount: bigint;
  /** The nonce the sender signed with. */
  nonce: bigint;
  /** The most it may cost in fees (its declared max_fee), on a chain with fees; absent or 0 without. */
  maxFee?: bigint;
}

/**
 * Reads a public transaction as a native transfer, or says why it is not one: the program must be
 * `authenticated_transfer`, the accounts exactly `[from, to]`, the instruction one u128, and the first witness
 * must be `from`'s key. Signatures are not checked here (see signing.ts); a transaction the sequencer returns
 * from `getTransaction` was already checked and executed.
 */
export function readNativeTransfer(
  tx: PublicTransaction,
  authenticatedTransferProgramId: ProgramId,
): ({ ok: true } & NativeTransfer) | { ok: false; reason: string } {
  const { message, witnesses } = tx;
  if (!programIdEquals(message.programId, authenticatedTransferProgramId)) {
    return { ok: false, reason: 'not an authenticated_transfer program call' };
  }
  if (message.accountIds.length !== 2)
    return { ok: false, reason: `expected 2 accounts, found ${message.accountIds.length}` };
  const amount = nativeTransferAmount(message.instructionData, layoutOf(message));
  if (amount === undefined) return { ok: false, reason: 'instruction is not a single u128 amount' };
  const [from, to] = message.accountIds as [Uint8Array, Uint8Array];
  const sender = witnesses[0];
  if (!sender || !bytesEqual(publicAccountId(sender.publicKey), from)) {
    return { ok: false, reason: 'the first signer is not the sending account' };
  }
  const nonce = message.nonces[0];
  if (nonce === undefined) return { ok: false, reason: 'no nonce for the sender' };
  const maxFee = message.fee ? { maxFee: message.fee.maxFee } : {};
  return { ok: true, from: formatAccountId(from), to: formatAccountId(to), amount, nonce, ...maxFee };
}
