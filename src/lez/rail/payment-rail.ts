/**
 * The one interface every payment rail implements (docs/architecture.md, docs/lez.md §7): the in-process
 * MemoryRail for tests and dev, and the LezRail that pays through the LEZ sequencer. Every method resolves to an
 * outcome value; only a programming error throws.
 *
 * The outcome convention, here and in all the payments code (src/lez, the sequencer client, the bridge's paid
 * tasks): an operation that can end in more than one expected way resolves to a union discriminated by `kind`
 * (`PayOutcome`: `{ kind: 'paid', … } | { kind: 'failed', reason, message } | { kind: 'in-doubt', … }`), and
 * the caller switches on `kind`; finer causes within one kind go in `reason`. Only pure parsers and decoders of a
 * value or a file (`parseX`, `decodeX`, `readNativeTransfer`, `loadKeyFile`) answer the plain result
 * `{ ok: true, … } | { ok: false, reason }`, as validators do across the project. Nothing throws for an expected
 * ending: exceptions are for misconfiguration (bad settings, found before anything runs) and bugs.
 *
 * Refunds: a LEZ transfer cannot be reversed, and only the payee's key can send money back, so a rail does not
 * "refund". The agent refunds with a NEW transfer back to the gateway, and the gateway checks it with
 * `verifyRefund(original, refundTxHash)`: `verify` with payer and payee swapped and the hash bound to the original.
 */
import type { OnSigned } from './payment-record.ts';
import type { TransferReceipt, TransferReference, RailKind } from './receipt.ts';

export interface PayRequest {
  /** Idempotency key (e.g. `task:<taskId>`): a second `pay` with it joins or returns the first, never pays again. */
  paymentId: string;
  to: string;
  /** Base units, u128: a bigint or a decimal string. */
  amount: bigint | string;
  /** The durability hook: awaited before the signed transfer is first submitted (payment-record.ts). */
  onSigned?: OnSigned;
}

/** Nothing was signed, or what was signed can no longer land: safe to retry or to give up. */
export type PayFailureReason =
  | 'invalid-request' // bad amount or account, paying oneself
  | 'conflict' // the paymentId is already used for another payee or amount
  | 'payee-uninitialised' // LEZ drops transfers to an account its program has not claimed (docs/lez.md §3)
  | 'insufficient-funds'
  | 'fee-above-cap' // the fee the sequencer asks for now is above the operator's cap (payments.maxFee)
  | 'fee-rejected' // the sequencer refused the transaction's fee (-31980…-31986); it never entered the mempool
  | 'record-failed' // onSigned threw: nothing was submitted
  | 'rejected' // the sequencer refused the signed transaction; it never entered the mempool
  | 'superseded' // its nonce was used by another transaction, so it can never land
  | 'timeout' // it did not get its turn in the payer's queue before the deadline; nothing was signed
  | 'closed' // the rail was closed before this payment was signed
  | 'sequencer-unavailable'
  | 'sequencer-error'
  | 'bad-response';

/** Signed and maybe submitted, but not seen in a block: the money may still move. Keep the record; resume later. */
export type DoubtReason = 'not-included' | 'sequencer-unavailable' | 'sequencer-error' | 'bad-response' | 'closed';

export type PayOutcome =
  | { kind: 'paid'; paymentId: string; receipt: TransferReceipt }
  | { kind: 'failed'; paymentId: string; reason: PayFailureReason; message: string }
  | { kind: 'in-doubt'; paymentId: string; reason: DoubtReason; message: string; receipt: TransferReceipt };

export type QuoteOutcome =
  | { kind: 'quoted'; rail: RailKind; network: string; amount: string; fee: string; total: string }
  | { kind: 'invalid'; reason: 'invalid-price'; message: string };

export interface VerifyExpectation {
  /** The expected payer; omitted when any payer will do. */
  from?: string;
  to: string;
  amount: bigint | string;
  /**
   * What the payment is accepted for (a task id, `refund:<hash>`). With it, the hash is claimed in the rail's
   * UsedTxHashes and refused if already claimed for anything else.
   */
  purpose?: string;
}

/** Definitive: the transaction is on chain but does not pay what was expected, or was already used. */
export type VerifyRejection =
  | 'invalid-request'
  | 'invalid-reference'
  | 'wrong-rail'
  | 'not-a-transfer'
  | 'wrong-signer'
  | 'bad-signature'
  | 'wrong-payer'
  | 'wrong-payee'
  | 'wrong-amount'
  | 'reference-mismatch'
  | 'reused';

/** Not (yet) decidable: ask again later. */
export type VerifyUncertainty = 'not-included' | 'sequencer-unavailable' | 'sequencer-error' | 'bad-response';

export type VerifyOutcome =
  | { kind: 'verified'; receipt: TransferReceipt }
  | { kind: 'rejected'; reason: VerifyRejection; message: string }
  | { kind: 'unconfirmed'; reason: VerifyUncertainty; message: string };

export type VerifyRefundOutcome =
  | { kind: 'verified'; refund: TransferReceipt; original: TransferReceipt }
  | Exclude<VerifyOutcome, { kind: 'verified' }>;

/** A transfer looked for by what it does, not by its hash (a refund whose reference was lost in a crash). */
export interface TransferQuery {
  from: string;
  to: string;
  amount: bigint | string;
  /** Transfers of interest are not older than this (epoch ms). */
  notBeforeMs?: number;
}

export type FindTransferOutcome =
  /** Newest first; `complete` is false when part of the chain searched could not be read. */
  | { kind: 'found'; txHashes: string[]; complete: boolean }
  | { kind: 'unconfirmed'; reason: VerifyUncertainty; message: string };

export type BalanceOutcome =
  | { kind: 'ok'; account: string; balance: string }
  | {
      kind: 'failed';
      reason: 'invalid-request' | 'sequencer-unavailable' | 'sequencer-error' | 'bad-response';
      message: string;
    };

export interface PaymentRail {
  readonly rail: RailKind;
  /** Sequencer URL or chain label; receipts carry it. */
  readonly network: string;
  /** The account this rail pays from. */
  readonly payer: string;
  /** On a chain with fees: the most one payment's fee may be (the operator's cap). */
  readonly feeCap?: bigint;
  /** The LEZ protocol profile it speaks (protocol-profile.ts); none for the memory rail. */
  readonly profile?: string;

  /** Parses an `x-lez-price` (decimal base units) and prices it on this rail. */
  quote(price: bigint | string): Promise<QuoteOutcome>;
  /** Pays once per paymentId. `paid` only once the transfer is in a block. */
  pay(request: PayRequest): Promise<PayOutcome>;
  /** Finishes a recorded payment after a restart (payment-record.ts). Takes the record as stored: any JSON. */
  resume(record: unknown): Promise<PayOutcome>;
  /**
   * Checks that a referenced transaction is included and pays exactly what is expected. `ref` is a bare tx hash
   * or a reference (checked at run time too: it usually comes from a peer's metadata).
   */
  verify(ref: TransferReference | string, expect: VerifyExpectation): Promise<VerifyOutcome>;
  /**
   * Checks an agent's refund: an included transfer from `original.to` back to `original.from` of `amount`
   * (default: the whole original amount), bound to the original so it cannot be counted twice.
   */
  verifyRefund(
    original: TransferReceipt,
    refundTxHash: string,
    options?: { amount?: bigint | string },
  ): Promise<VerifyRefundOutcome>;
  /**
   * The included transfers that match `query`, newest first (on LEZ: within the recent blocks searched). Nothing is
   * claimed: check a hash with `verify` (and its purpose) before counting it.
   */
  findTransfer(query: TransferQuery): Promise<FindTransferOutcome>;
  /** An account's balance (default: the payer's). */
  balance(account?: string): Promise<BalanceOutcome>;
}
