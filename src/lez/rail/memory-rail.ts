/**
 * The PaymentRail over an in-process MemoryLedger, for unit tests and dev. Same semantics as the LEZ rail:
 * idempotent by paymentId, payee must be initialised, no overdraft, `onSigned` before anything is applied,
 * `resume` applies a recorded transfer at most once. Several rails may share one ledger (the gateway's and an
 * agent's, to exercise refunds).
 */
import { formatU128Decimal } from '../json.ts';
import { Lane } from '../../lane.ts';
import { decodeMemoryTransfer, encodeMemoryTransfer, type MemoryLedger } from './memory-ledger.ts';
import type { NativeTransfer } from '../native-transfer.ts';
import type {
  BalanceOutcome,
  FindTransferOutcome,
  TransferQuery,
  PayOutcome,
  PayRequest,
  PaymentRail,
  QuoteOutcome,
  VerifyExpectation,
  VerifyOutcome,
  VerifyRefundOutcome,
} from './payment-rail.ts';
import {
  parseRailPaymentRecord,
  RAIL_PAYMENT_RECORD_FORMAT,
  RAIL_PAYMENT_RECORD_VERSION,
  type RailPaymentRecord,
} from './payment-record.ts';
import { quotePrice } from './quote.ts';
import { parseAmount, type TransferReceipt, type TransferReference } from './receipt.ts';
import { MemoryUsedTxHashes, type UsedTxHashes } from './used-tx-hashes.ts';
import { verifyRefundTransfer, verifyTransfer, type VerifierContext } from './verification.ts';
import { errorText } from './error-text.ts';

export interface MemoryRailOptions {
  ledger: MemoryLedger;
  /** The account this rail pays from: any label. */
  payer: string;
  network?: string;
  usedTxHashes?: UsedTxHashes;
}

/**
 * One lane per ledger and paying account, shared by every rail paying from it: its nonce is one counter, so rails of
 * two replicas sharing an account take turns, as the LEZ rail's do under their payer lock. Otherwise both read the
 * same nonce while their records are written, and the second transfer is refused as superseded.
 */
const payerLanes = new WeakMap<MemoryLedger, Map<string, Lane>>();

function laneOf(ledger: MemoryLedger, payer: string): Lane {
  let lanes = payerLanes.get(ledger);
  if (!lanes) payerLanes.set(ledger, (lanes = new Map()));
  let lane = lanes.get(payer);
  if (!lane) lanes.set(payer, (lane = new Lane()));
  return lane;
}

function checkMemoryAccount(text: string): string | undefined {
  return /^\S{1,128}$/.test(text) ? undefined : 'a memory account is 1 to 128 non-space characters';
}

export class MemoryRail implements PaymentRail {
  readonly rail = 'memory' as const;
  readonly network: string;
  readonly payer: string;
  private readonly ledger: MemoryLedger;
  private readonly lane: Lane;
  private readonly payments = new Map<string, { to: string; amount: bigint; outcome: Promise<PayOutcome> }>();
  private readonly verifier: VerifierContext;

  constructor(options: MemoryRailOptions) {
    const problem = checkMemoryAccount(options.payer);
    if (problem) throw new RangeError(`payer: ${problem}`);
    this.ledger = options.ledger;
    this.payer = options.payer;
    this.lane = laneOf(options.ledger, options.payer);
    this.network = options.network ?? 'memory';
    this.verifier = {
      rail: this.rail,
      network: this.network,
      usedTxHashes: options.usedTxHashes ?? new MemoryUsedTxHashes(),
      checkAccount: checkMemoryAccount,
      lookup: async (txHash) => {
        const found = this.ledger.transaction(txHash);
        if (!found)
          return { kind: 'unconfirmed', reason: 'not-included', message: `no transaction ${txHash} in the ledger` };
        return { kind: 'found', facts: found };
      },
    };
  }

  async quote(price: bigint | string): Promise<QuoteOutcome> {
    return quotePrice(this.rail, this.network, price);
  }

  pay(request: PayRequest): Promise<PayOutcome> {
    const { paymentId } = request;
    const failed = (reason: 'invalid-request' | 'conflict', message: string): Promise<PayOutcome> =>
      Promise.resolve({ kind: 'failed', paymentId, reason, message });
    if (typeof paymentId !== 'string' || paymentId.length === 0)
      return failed('invalid-request', 'paymentId must be a non-empty string');
    const amount = parseAmount(request.amount);
    if (!amount.ok) return failed('invalid-request', `amount: ${amount.reason}`);
    if (amount.value === 0n) return failed('invalid-request', 'a payment amount must be positive');
    const accountProblem = checkMemoryAccount(request.to);
    if (accountProblem) return failed('invalid-request', `payee: ${accountProblem}`);
    if (request.to === this.payer) return failed('invalid-request', 'the payer cannot pay itself');

    const existing = this.payments.get(paymentId);
    if (existing) {
      if (existing.to !== request.to || existing.amount !== amount.value) {
        return failed('conflict', `payment ${paymentId} is already for ${existing.amount} to ${existing.to}`);
      }
      return existing.outcome;
    }
    const outcome = this.lane.run(() =>
      this.payNow(paymentId, { from: this.payer, to: request.to, amount: amount.value, nonce: 0n }, request),
    );
    return this.track(paymentId, request.to, amount.value, outcome);
  }

  /** Only a payment that happened (or may still happen) keeps its id; a failed one may be tried again. */
  private track(paymentId: string, to: string, amount: bigint, outcome: Promise<PayOutcome>): Promise<PayOutcome> {
    const entry = { to, amount, outcome };
    this.payments.set(paymentId, entry);
    void outcome.then((o) => {
      if (o.kind === 'failed' && this.payments.get(paymentId) === entry) this.payments.delete(paymentId);
    });
    return outcome;
  }

  private async payNow(paymentId: string, transfer: NativeTransfer, request: PayRequest): Promise<PayOutcome> {
    if (!this.ledger.isInitialised(transfer.to)) {
      return {
        kind: 'failed',
        paymentId,
        reason: 'payee-uninitialised',
        message: `payee ${transfer.to} is not initialised, so it cannot be paid`,
      };
    }
    const balance = this.ledger.balanceOf(this.payer);
    if (balance < transfer.amount) {
      return {
        kind: 'failed',
        paymentId,
        reason: 'insufficient-funds',
        message: `${this.payer} holds ${balance}, the payment needs ${transfer.amount}`,
      };
    }
    const signed = { ...transfer, nonce: this.ledger.nonceOf(this.payer) };
    const { tx, txHash } = encodeMemoryTransfer(signed);
    const record: RailPaymentRecord = {
      format: RAIL_PAYMENT_RECORD_FORMAT,
      version: RAIL_PAYMENT_RECORD_VERSION,
      rail: this.rail,
      network: this.network,
      paymentId,
      from: signed.from,
      to: signed.to,
      amount: formatU128Decimal(signed.amount),
      nonce: signed.nonce.toString(),
      txHash,
      tx,
      signedAt: new Date().toISOString(),
    };
    try {
      await request.onSigned?.(record);
    } catch (error) {
      return {
        kind: 'failed',
        paymentId,
        reason: 'record-failed',
        message: `recording the payment failed, nothing was paid: ${errorText(error)}`,
      };
    }
    return this.applyRecorded(paymentId, signed);
  }

  private applyRecorded(paymentId: string, transfer: NativeTransfer): PayOutcome {
    const applied = this.ledger.apply(transfer);
    if (applied.kind === 'applied')
      return { kind: 'paid', paymentId, receipt: this.receipt(applied.transfer.txHash, transfer, 'included') };
    if (applied.reason === 'bad-nonce')
      return { kind: 'failed', paymentId, reason: 'superseded', message: applied.message };
    return { kind: 'failed', paymentId, reason: applied.reason, message: applied.message };
  }

  async resume(input: unknown): Promise<PayOutcome> {
    const parsed = parseRailPaymentRecord(input);
    const paymentId = parsed.ok ? parsed.record.paymentId : '';
    if (!parsed.ok) return { kind: 'failed', paymentId, reason: 'invalid-request', message: parsed.message };
    const record = parsed.record;
    const checked = this.checkRecord(record);
    if (!checked.ok) return { kind: 'failed', paymentId, reason: 'invalid-request', message: checked.message };
    const transfer = checked.transfer;

    const existing = this.payments.get(paymentId);
    if (existing) return existing.outcome;
    const outcome = this.lane.run(async (): Promise<PayOutcome> => {
      if (this.ledger.transaction(record.txHash))
        return { kind: 'paid', paymentId, receipt: this.receipt(record.txHash, transfer, 'included') };
      const current = this.ledger.nonceOf(this.payer);
      if (current > transfer.nonce) {
        return {
          kind: 'failed',
          paymentId,
          reason: 'superseded',
          message: `nonce ${transfer.nonce} was used by another transaction`,
        };
      }
      if (current < transfer.nonce) {
        const message = `nonce ${transfer.nonce} is ahead of the ledger's ${current}: an earlier payment has not landed`;
        return {
          kind: 'in-doubt',
          paymentId,
          reason: 'not-included',
          message,
          receipt: this.receipt(record.txHash, transfer, 'submitted'),
        };
      }
      return this.applyRecorded(paymentId, transfer);
    });
    return this.track(paymentId, transfer.to, transfer.amount, outcome);
  }

  /** A record is applied only if its bytes are a transfer from this payer saying what the record says. */
  private checkRecord(
    record: RailPaymentRecord,
  ): { ok: true; transfer: NativeTransfer } | { ok: false; message: string } {
    if (record.rail !== this.rail || record.network !== this.network)
      return { ok: false, message: `the record is for ${record.rail} on ${record.network}` };
    const decoded = decodeMemoryTransfer(record.tx);
    if (!decoded.ok) return decoded;
    if (decoded.txHash !== record.txHash)
      return { ok: false, message: "the record's txHash is not the hash of its tx" };
    const { from, to, amount, nonce } = decoded.transfer;
    if (from !== this.payer)
      return { ok: false, message: `the record pays from ${from}, this rail pays from ${this.payer}` };
    if (to !== record.to || formatU128Decimal(amount) !== record.amount || nonce.toString() !== record.nonce) {
      return { ok: false, message: "the record's fields do not match its tx" };
    }
    return { ok: true, transfer: decoded.transfer };
  }

  verify(ref: TransferReference | string, expect: VerifyExpectation): Promise<VerifyOutcome> {
    return verifyTransfer(this.verifier, ref, expect);
  }

  verifyRefund(
    original: TransferReceipt,
    refundTxHash: string,
    options?: { amount?: bigint | string },
  ): Promise<VerifyRefundOutcome> {
    return verifyRefundTransfer(this.verifier, original, refundTxHash, options);
  }

  async findTransfer(query: TransferQuery): Promise<FindTransferOutcome> {
    const amount = parseAmount(query.amount);
    const txHashes = this.ledger
      .transfers()
      .reverse()
      .filter((t) => t.from === query.from && t.to === query.to && amount.ok && t.amount === amount.value)
      .map((t) => t.txHash);
    return { kind: 'found', txHashes, complete: true };
  }

  async balance(account: string = this.payer): Promise<BalanceOutcome> {
    const problem = checkMemoryAccount(account);
    if (problem) return { kind: 'failed', reason: 'invalid-request', message: problem };
    return { kind: 'ok', account, balance: formatU128Decimal(this.ledger.balanceOf(account)) };
  }

  private receipt(txHash: string, transfer: NativeTransfer, status: 'submitted' | 'included'): TransferReceipt {
    return {
      rail: this.rail,
      network: this.network,
      txHash,
      from: transfer.from,
      to: transfer.to,
      amount: formatU128Decimal(transfer.amount),
      nonce: transfer.nonce.toString(),
      status,
    };
  }
}
