/**
 * Paying the agents a runtime agent hires, from a wallet of its own: a LEZ payment rail (lez/rail), under the
 * gateway's spending rules (lez/rail/spending-gate.ts: a payment above the per-transaction limit, or one that would
 * take the period's spending above the per-period limit, is not made; with no operator to approve it, the hire is
 * refused). The task is paid before its request leaves, as a gateway pays (docs/payments.md §4), and a refund the
 * agent announces is checked on chain (§5). Held in memory: what was spent is counted from this process's start,
 * and a payment in doubt when the process stops is not resumed (the gateway's durable record is its store's).
 */
import { checkSpend, type SpendingLimits } from '../../lez/rail/spending-gate.ts';
import type { WirePaymentReference } from '../envelope.ts';
import type { PaymentRail } from '../../lez/rail/payment-rail.ts';
import type { TransferReceipt } from '../../lez/rail/receipt.ts';
import type { HirePayment } from './hire-outcome.ts';

export interface HirePaymentsOptions {
  rail: PaymentRail;
  limits: SpendingLimits;
  /** How long a refund the sequencer cannot confirm yet is asked about again before it is reported unverified. */
  refundCheckMs?: number;
}

export type HirePaymentOutcome =
  | { kind: 'paid'; payment: HirePayment }
  | { kind: 'refused'; reason: 'spending-limit' | 'payment-failed'; message: string };

const REFUND_ASK_EVERY_MS = 1_000;

export class HirePayments {
  readonly #options: HirePaymentsOptions;
  /** What was spent, and when: the per-period limit counts the last `periodMs`. */
  readonly #spent: { at: number; amount: bigint }[] = [];
  /** The receipts of the payments made, by transaction: what a refund is checked against. */
  readonly #receipts = new Map<string, TransferReceipt>();

  constructor(options: HirePaymentsOptions) {
    this.#options = options;
  }

  /** The account payments come from (and refunds go back to). */
  get account(): string {
    return this.#options.rail.payer;
  }

  /** Pays `price` to `payee` for task `taskId`, within the spending limits. */
  async pay(taskId: string, payee: string, price: bigint): Promise<HirePaymentOutcome> {
    const { rail, limits } = this.#options;
    const cost = { price, fee: rail.feeCap ?? 0n };
    const now = Date.now();
    const spent = this.#spent
      .filter((entry) => entry.at > now - limits.periodMs)
      .reduce((sum, e) => sum + e.amount, 0n);
    const gate = checkSpend(cost, spent, limits);
    if (gate.kind !== 'allow') {
      return { kind: 'refused', reason: 'spending-limit', message: `Not paid: ${gate.reason}.` };
    }
    // Counted before the transfer: one that fails or stays in doubt may still have taken the money.
    this.#spent.push({ at: now, amount: cost.price + cost.fee });
    const paid = await rail.pay({ paymentId: `hire:${taskId}`, to: payee, amount: price });
    if (paid.kind === 'failed') {
      return { kind: 'refused', reason: 'payment-failed', message: `The payment did not go through: ${paid.message}` };
    }
    if (paid.kind === 'in-doubt') {
      // Signed and perhaps submitted, not seen in a block: the task is not sent, and the money may still move.
      const message = `The payment is not confirmed (${paid.message}); the task was not sent. Transaction ${paid.receipt.txHash} may still land.`;
      return { kind: 'refused', reason: 'payment-failed', message };
    }
    const receipt = paid.receipt;
    this.#receipts.set(receipt.txHash, receipt);
    return {
      kind: 'paid',
      payment: {
        paid: {
          rail: receipt.rail,
          tx_hash: receipt.txHash,
          from: receipt.from,
          to: receipt.to,
          amount: receipt.amount,
        },
      },
    };
  }

  /** Checks on chain the refund an agent announced for a payment (docs/payments.md §5). */
  async checkRefund(
    paid: WirePaymentReference,
    refund: WirePaymentReference | undefined,
  ): Promise<HirePayment['refund']> {
    const receipt = this.#receipts.get(paid.tx_hash);
    if (!receipt) return { check: 'unverified', message: 'no receipt of the payment is held here' };
    if (!refund) return { check: 'unverified', message: 'the agent announced no refund' };
    const deadline = Date.now() + (this.#options.refundCheckMs ?? 10_000);
    for (;;) {
      const checked = await this.#options.rail.verifyRefund(receipt, refund.tx_hash);
      if (checked.kind === 'verified') return { reference: refund, check: 'verified' };
      if (checked.kind === 'rejected' || Date.now() >= deadline) {
        return { reference: refund, check: 'unverified', message: checked.message };
      }
      await new Promise((resolve) => setTimeout(resolve, REFUND_ASK_EVERY_MS));
    }
  }
}
