/**
 * Paying agents for tasks, on the gateway's side: the spending gate, a durable record before any transfer, the
 * transfer itself through a `Payer` (an adapter over a payment rail), and the check of the agent's refund.
 * Outcomes are values; only misconfiguration throws.
 */
import { checkSpend, type SpendingLimits } from './spending-gate.ts';
import type { PaymentReference } from '../logos/envelope.ts';
import type { PaymentRecord, PaymentStore } from '../store/payment-store.ts';

export type PayResult =
  | { status: 'paid'; txHash: string; state: unknown }
  /** Nothing was charged. */
  | { status: 'failed'; message: string }
  /** Signed and maybe submitted, not seen in a block: the money may still move; resume later. */
  | { status: 'in-doubt'; message: string };

export type VerifyResult = { ok: true } | { ok: false; reason: string; message: string };

/** What the gateway needs of a payment rail to pay from its wallet and check transfers. */
export interface Payer {
  /** `lez` or `memory`. */
  readonly rail: string;
  /** The gateway wallet's account (the `from` of its payments, the `to` of refunds). */
  readonly account: string;
  /**
   * Pays `amount` to `to` once per `paymentId`. `record` is called with the rail's state (the signed transfer)
   * before anything is submitted; the caller persists it so that `resume` can finish the job after a crash.
   */
  pay(paymentId: string, to: string, amount: bigint, record: (state: unknown) => void): Promise<PayResult>;
  /** Finishes a recorded payment: finds out whether it landed, resubmits the same signed transfer if not. */
  resume(state: unknown): Promise<PayResult>;
  /** Checks that `txHash` is an included transfer of exactly `amount` from `from` to `to`. */
  verify(txHash: string, expect: { from: string; to: string; amount: bigint }): Promise<VerifyResult>;
}

export interface TaskPaymentsOptions {
  payer: Payer;
  store: PaymentStore;
  limits: SpendingLimits;
  /** A label of the network the rail pays on (the sequencer URL, say), for receipts. */
  network: string;
  /** Total spending allowed per API key (by name); keys absent here have no budget of their own. */
  budgets?: ReadonlyMap<string, bigint>;
}

export type ChargeOutcome =
  | { kind: 'paid'; reference: PaymentReference; receipt: Receipt }
  | { kind: 'needs-approval'; reason: string }
  | { kind: 'failed'; message: string; receipt: Receipt };

/** What a task's metadata says about its payment (`metadata.lez`). */
export interface Receipt {
  /** Set when the client paid (client-pays extension): the account refunds go back to. */
  payer?: string;
  rail: string;
  network: string;
  amount: string;
  payee: string;
  status: PaymentRecord['status'] | 'awaiting-approval';
  txHash?: string;
  refundTxHash?: string;
}

export class TaskPayments {
  private readonly options: TaskPaymentsOptions;

  constructor(options: TaskPaymentsOptions) {
    this.options = options;
  }

  get payer(): Payer {
    return this.options.payer;
  }

  /** Payment records and operator approvals. */
  get store(): PaymentStore {
    return this.options.store;
  }

  /** The gate: may this task be paid now, or does an operator have to approve it first? */
  gate(amount: bigint, caller?: string): { decision: 'allow' } | { decision: 'needs-approval'; reason: string } {
    const since = new Date(Date.now() - this.options.limits.periodMs).toISOString();
    const wallet = checkSpend(amount, this.options.store.spentSince(since), this.options.limits);
    if (wallet.decision === 'needs-approval') return wallet;
    const budget = caller === undefined ? undefined : this.options.budgets?.get(caller);
    if (budget !== undefined) {
      const spent = this.options.store.spentByCaller(caller!);
      if (spent + amount > budget) {
        return { decision: 'needs-approval', reason: `API key "${caller}" has spent ${spent} of its budget of ${budget}; this task needs ${amount} more` };
      }
    }
    return wallet;
  }

  /**
   * Pays for a task (once: a retry finds the record and finishes or reports it). `approved` skips the gate.
   */
  async charge(task: { taskId: string; agentId: string; payee: string; amount: bigint; caller?: string }, approved = false): Promise<ChargeOutcome> {
    const existing = this.options.store.get(task.taskId);
    if (existing) return this.finish(existing, existing.status === 'pending' ? await this.payer.resume(existing.railState) : undefined);
    if (!approved) {
      const gate = this.gate(task.amount, task.caller);
      if (gate.decision === 'needs-approval') return { kind: 'needs-approval', reason: gate.reason };
    }
    const record = this.newRecord(task, { status: 'pending' });
    this.options.store.create(record);
    const result = await this.payer.pay(`task:${task.taskId}`, task.payee, task.amount, (state) =>
      this.options.store.update(task.taskId, { railState: state }),
    );
    return this.finish(this.options.store.get(task.taskId)!, result);
  }

  /**
   * Payments still pending whose task no longer waits for them (it ended while the payment was in doubt): finish
   * each one exactly once, so the books say whether the money moved. Tasks still live settle their own payment.
   */
  async settleStranded(isLive: (taskId: string) => boolean): Promise<Map<string, ChargeOutcome>> {
    const outcomes = new Map<string, ChargeOutcome>();
    for (const record of this.options.store.pending()) {
      if (isLive(record.taskId)) continue;
      outcomes.set(record.taskId, this.finish(record, await this.payer.resume(record.railState)));
    }
    return outcomes;
  }

  /**
   * The task ended after payment: did the agent pay the money back? A missing or invalid refund is recorded as
   * `refund-missing`, never as refunded.
   */
  async settleRefund(taskId: string, refund: PaymentReference | undefined): Promise<Receipt | undefined> {
    const record = this.options.store.get(taskId);
    if (!record || record.status !== 'paid') return record && this.receipt(record);
    let status: 'refunded' | 'refund-missing' = 'refund-missing';
    if (refund && !this.options.store.txHashUsed(refund.tx_hash)) {
      const verified = await this.payer.verify(refund.tx_hash, { from: record.payee, to: record.payer ?? this.payer.account, amount: BigInt(record.amount) });
      if (verified.ok) status = 'refunded';
    }
    this.options.store.update(taskId, { status, ...(status === 'refunded' ? { refundTxHash: refund!.tx_hash } : {}) });
    return this.receipt(this.options.store.get(taskId)!);
  }

  /**
   * The client paid the agent itself (the client-pays extension): accepts `txHash` if it is an included transfer of
   * the price from `from` to the agent, used for nothing else. Nothing is paid from the gateway's wallet.
   */
  async acceptClientPayment(
    task: { taskId: string; agentId: string; payee: string; amount: bigint; caller?: string },
    tx: { txHash: string; from: string },
  ): Promise<{ kind: 'paid'; reference: PaymentReference; receipt: Receipt } | { kind: 'rejected'; message: string }> {
    if (this.options.store.txHashUsed(tx.txHash)) return { kind: 'rejected', message: `transaction ${tx.txHash} already paid for something else` };
    const verified = await this.payer.verify(tx.txHash, { from: tx.from, to: task.payee, amount: task.amount });
    if (!verified.ok) return { kind: 'rejected', message: verified.message };
    const created = this.options.store.create(this.newRecord(task, { status: 'paid', txHash: tx.txHash, payer: tx.from }));
    if (!created) return { kind: 'rejected', message: 'this task is already paid' };
    const record = this.options.store.get(task.taskId)!;
    return {
      kind: 'paid',
      receipt: this.receipt(record),
      reference: { rail: record.rail, tx_hash: tx.txHash, from: tx.from, to: task.payee, amount: record.amount },
    };
  }

  private newRecord(
    task: { taskId: string; agentId: string; payee: string; amount: bigint; caller?: string },
    fields: Pick<PaymentRecord, 'status' | 'txHash' | 'payer'>,
  ): PaymentRecord {
    const now = new Date().toISOString();
    return {
      taskId: task.taskId,
      agentId: task.agentId,
      amount: task.amount.toString(),
      payee: task.payee,
      rail: this.payer.rail,
      railState: null,
      ...fields,
      ...(task.caller ? { caller: task.caller } : {}),
      createdAt: now,
      updatedAt: now,
    };
  }

  private finish(record: PaymentRecord, result: PayResult | undefined): ChargeOutcome {
    if (result?.status === 'paid') {
      this.options.store.update(record.taskId, { status: 'paid', txHash: result.txHash, railState: result.state });
    } else if (result?.status === 'failed') {
      this.options.store.update(record.taskId, { status: 'failed' });
    }
    const current = this.options.store.get(record.taskId)!;
    const receipt = this.receipt(current);
    if (current.status === 'paid' && current.txHash) {
      return {
        kind: 'paid',
        receipt,
        reference: { rail: current.rail, tx_hash: current.txHash, from: this.payer.account, to: current.payee, amount: current.amount },
      };
    }
    if (current.status === 'pending') {
      // In doubt: the record stays pending and is settled at the next start; the task does not go ahead unpaid.
      const why = result?.status === 'in-doubt' ? result.message : 'not confirmed';
      return { kind: 'failed', message: `The payment of ${current.amount} to the agent is not confirmed (${why}); the gateway keeps the record and settles it, so it is never paid twice. The task was not sent.`, receipt };
    }
    const why = result?.status === 'failed' ? result.message : `the payment is ${current.status}`;
    return { kind: 'failed', message: `The payment of ${current.amount} to the agent failed: ${why}. Nothing was charged.`, receipt };
  }

  private receipt(record: PaymentRecord): Receipt {
    return {
      ...(record.payer ? { payer: record.payer } : {}),
      rail: record.rail,
      network: this.options.network,
      amount: record.amount,
      payee: record.payee,
      status: record.status,
      ...(record.txHash ? { txHash: record.txHash } : {}),
      ...(record.refundTxHash ? { refundTxHash: record.refundTxHash } : {}),
    };
  }
}
