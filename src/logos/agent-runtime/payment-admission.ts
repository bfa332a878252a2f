/**
 * How a priced agent takes money (docs/binding.md, payments): a task is admitted only with a verified transfer of
 * the card's own price that paid for no other task, and money for a task that does not complete goes back. The
 * refunds a previous run owed are paid at start, and failed refunds are tried again while the agent runs.
 *
 * An agent with a private account also takes a shielded transfer into it (docs/payments.md §10): the reference then
 * names its private payee, `private:<npk hex>`, and the payments' `verify` reads the note with the viewing key. Such
 * a payment is refunded publicly, from the agent's public account to the public account that paid it.
 */
import type { TaskRequest, WirePaymentReference } from '../envelope.ts';
import { isPriced, skillPrice, type LogosAgentCard } from '../card.ts';
import { privatePayee } from '../../lez/private/receive.ts';
import type { AgentPayments } from './types.ts';

/** A priced task's payment: verified (the skill may start), or refused with the reason the caller is told. */
export type PaymentCheck = { kind: 'verified'; payment: WirePaymentReference } | { kind: 'refused'; problem: string };

/** How long a start waits for the refunds a previous run owed before the agent answers anyway. */
const START_REFUNDS_WAIT_MS = 5_000;

export class PaymentAdmission {
  private readonly card: LogosAgentCard;
  private readonly payments: AgentPayments | undefined;
  /** Payment transactions already taken for a task: one transfer pays for one task only. */
  private readonly usedPayments = new Set<string>();
  private refundRetrier?: NodeJS.Timeout;

  constructor(card: LogosAgentCard, payments: AgentPayments | undefined) {
    if (isPriced(card) && (!payments || card['x-lez-identity']?.account_id !== payments.account)) {
      throw new Error(`agent ${card.id}: a priced card needs payments for the account in x-lez-identity`);
    }
    const advertised = card['x-lez-identity']?.private;
    if (
      payments?.privateKeys &&
      (advertised?.npk !== payments.privateKeys.npk || advertised.vpk !== payments.privateKeys.vpk)
    ) {
      throw new Error(`agent ${card.id}: payments into a private account need its keys in x-lez-identity.private`);
    }
    this.card = card;
    this.payments = payments;
  }

  /** The skill's price in base units, from this agent's own card (0 when free or unknown). */
  priceOf(skill: string): bigint {
    return BigInt(skillPrice(this.card, skill));
  }

  /** Checks the payment of a task whose skill costs `price`: a request that offers less is refused, whatever it claims. */
  async check(request: TaskRequest, price: bigint): Promise<PaymentCheck> {
    const problem =
      BigInt(request.lez_price) < price
        ? `This skill costs ${price}; the request offers ${request.lez_price}.`
        : await this.verify(request, price);
    return problem !== undefined ? { kind: 'refused', problem } : { kind: 'verified', payment: request.payment! };
  }

  private async verify(request: TaskRequest, price: bigint): Promise<string | undefined> {
    const payment = request.payment;
    if (!this.payments) return 'This agent takes no payments.';
    if (!payment) return `This task costs ${price} and came without a payment.`;
    const privately = this.payments.privateKeys && privatePayee(this.payments.privateKeys);
    if (
      payment.rail !== this.payments.rail ||
      (payment.to !== this.payments.account && payment.to !== privately) ||
      BigInt(payment.amount) !== price
    ) {
      const payees = privately ? `${this.payments.account} (or privately to ${privately})` : this.payments.account;
      return `The payment reference does not pay ${price} to ${payees} on ${this.payments.rail}.`;
    }
    if (this.usedPayments.has(payment.tx_hash)) return `Transaction ${payment.tx_hash} already paid for another task.`;
    this.usedPayments.add(payment.tx_hash);
    const verified = await this.payments.verify(payment.tx_hash, {
      from: payment.from,
      amount: price,
      taskId: request.task_id,
    });
    if (!verified.ok) {
      this.usedPayments.delete(payment.tx_hash);
      return `The payment did not verify: ${verified.message}`;
    }
    return undefined;
  }

  /** The task `paid` paid for completed: the money is earned. */
  earned(paid: WirePaymentReference): void {
    this.payments?.earned?.(paid.tx_hash);
  }

  /** Pays `paid` back to its payer; the refund's reference, or undefined when it failed (it is tried again later). */
  async refund(taskId: string, paid: WirePaymentReference): Promise<WirePaymentReference | undefined> {
    const result = await this.payments!.refund(
      `refund:${paid.tx_hash}`,
      paid.from,
      BigInt(paid.amount),
      paid.tx_hash,
    ).catch((error: unknown) => ({
      ok: false as const,
      message: String(error),
    }));
    if (!result.ok) {
      console.error(`agent ${this.card.id}: refunding task ${taskId} failed: ${result.message}`);
      return undefined;
    }
    // From the public account, also for a private payment: the agent cannot spend its private account without a proof.
    return {
      rail: paid.rail,
      tx_hash: result.txHash,
      from: this.payments!.account,
      to: paid.from,
      amount: paid.amount,
    };
  }

  /**
   * Money first: tasks paid to a previous run of this agent cannot be completed by this one. Their refunds get a few
   * seconds to land before the agent answers (a gateway asking about such a task then finds the refund on chain at
   * once); a sequencer that is away must not keep the agent down, so they go on in the background. Then failed
   * refunds are tried again every `retryMs` until `stop`.
   */
  async start(retryMs: number): Promise<void> {
    const owed = this.payments?.refundOwed?.().catch((error: unknown) => {
      console.error(`agent ${this.card.id}: refunding what a previous run owed failed`, error);
    });
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([owed, new Promise((resolve) => (waited = setTimeout(resolve, START_REFUNDS_WAIT_MS)))]);
    clearTimeout(waited);
    this.retryRefundsEvery(retryMs);
  }

  stop(): void {
    clearTimeout(this.refundRetrier);
    this.refundRetrier = undefined;
  }

  /** Money owed back is never left waiting for the next start: one retry at a time, until the agent stops. */
  private retryRefundsEvery(ms: number): void {
    const retry = this.payments?.retryRefunds?.bind(this.payments);
    if (!retry) return;
    const next = () => {
      this.refundRetrier = setTimeout(
        () =>
          void retry()
            .catch((error: unknown) => console.error(`agent ${this.card.id}: retrying refunds failed`, error))
            .finally(() => this.refundRetrier && next()),
        ms,
      );
      this.refundRetrier.unref();
    };
    next();
  }
}
