/**
 * Paying agents for tasks, on the gateway's side: the spending gate, a durable record before any transfer, the
 * transfer itself through a `Payer` (an adapter over a payment rail), the check of the agent's refund, and the
 * operator's approvals. This module alone owns the `PaymentStore`: everyone else (the paid flow, the admin API)
 * goes through its methods. Outcomes are values discriminated by `kind` (the convention of
 * lez/rail/payment-rail.ts); only misconfiguration throws.
 */
import {
  checkSpend,
  describeCost,
  spendingLimits,
  type GateDecision,
  type SpendingLimitSettings,
} from '../lez/rail/spending-gate.ts';
import type { WirePaymentReference } from '../logos/envelope.ts';
import { Lane } from '../lane.ts';
import type { FindTransferOutcome, PayOutcome, VerifyOutcome } from '../lez/rail/payment-rail.ts';
import type { ApprovalRecord, ApprovalStatus, PaymentStore, TaskPaymentRecord } from '../store/payment-store.ts';
import type { TaskReceipt } from './task-metadata.ts';
import { metrics } from '../observability/metrics.ts';

/** What the gateway needs of a payment rail to pay from its wallet and check transfers (gateway/payment-wiring.ts). */
export interface Payer {
  /** `lez` or `memory`. */
  readonly rail: string;
  /** The gateway wallet's account (the `from` of its payments, the `to` of refunds). */
  readonly account: string;
  /**
   * Pays `amount` to `to` once per `paymentId`. `record` is called with the rail's state (the signed transfer)
   * before anything is submitted; the caller persists it so that `resume` can finish the job after a crash.
   */
  pay(paymentId: string, to: string, amount: bigint, record: (state: unknown) => Promise<void>): Promise<PayOutcome>;
  /** Finishes a recorded payment: finds out whether it landed, resubmits the same signed transfer if not. */
  resume(state: unknown): Promise<PayOutcome>;
  /** Checks that `txHash` is an included transfer of exactly `amount` from `from` to `to`. */
  verify(txHash: string, expect: { from: string; to: string; amount: bigint }): Promise<VerifyOutcome>;
  /** Included transfers of exactly `amount` from `from` to `to`, newest first, none older than `notBeforeMs`. */
  findTransfers(query: { from: string; to: string; amount: bigint; notBeforeMs: number }): Promise<FindTransferOutcome>;
  /** On a chain with fees: the most one payment's fee may be (the operator's cap), counted by the spending gate. */
  readonly feeCap?: bigint;
  /** The LEZ protocol profile it pays on (lez/protocol-profile.ts), for /readyz and the logs. */
  readonly profile?: string;
}

export interface TaskPaymentsOptions {
  payer: Payer;
  store: PaymentStore;
  /** As configured: a limit left out takes its default, which depends on the payer's fee cap (spendingLimits). */
  limits: SpendingLimitSettings;
  /** A label of the network the rail pays on (the sequencer URL, say), for receipts. */
  network: string;
  /** Total spending allowed per API key (by name); keys absent here have no budget of their own. */
  budgets?: ReadonlyMap<string, bigint>;
  /** Every payment to an agent that never refunds (`TaskToPay.refunds`) waits for an operator's approval. */
  approveWithoutRefunds?: boolean;
  /**
   * How long a payment in doubt is resumed, and a sequencer that could not be reached is asked again, before the task
   * ends without its payment (default 60 s; see payNow and untilKnown).
   */
  inDoubtWaitMs?: number;
}

/** A task to be paid for. */
export interface TaskToPay {
  taskId: string;
  agentId: string;
  /** The agent's account. */
  payee: string;
  /** LEZ base units. */
  amount: bigint;
  /** The API key the task was sent with: its budget is charged. */
  caller?: string;
  /** `none` when the agent's binding has no refunds (docs/bindings/). */
  refunds?: 'none';
}

/** What came of paying for a task from the gateway's wallet. */
export type ChargeOutcome =
  | { kind: 'paid'; reference: WirePaymentReference; receipt: TaskReceipt }
  /** Above the spending limits: an approval is asked for (listed by `approvals`), nothing was paid. */
  | { kind: 'needs-approval'; reason: string }
  | { kind: 'failed'; message: string; receipt: TaskReceipt }
  /** Cancelled while the sequencer could not be reached: nothing was sent that can land, and the wait ended. */
  | { kind: 'cancelled'; message: string; receipt: TaskReceipt };

/** What came of a client's own payment for a task (client-pays extension). */
export type ClientPaymentOutcome =
  { kind: 'paid'; reference: WirePaymentReference; receipt: TaskReceipt } | { kind: 'rejected'; message: string };

export class TaskPayments {
  private readonly options: TaskPaymentsOptions;
  private readonly store: PaymentStore;
  /**
   * A refund's search and claim, one at a time: two tasks ending together would otherwise both pick the same
   * unclaimed transfer (refunds have no memo), and the second record's claim would fail.
   */
  private readonly claims = new Lane();

  constructor(options: TaskPaymentsOptions) {
    this.options = options;
    this.store = options.store;
  }

  get payer(): Payer {
    return this.options.payer;
  }

  /**
   * The gate: may this task be paid now, or does an operator have to approve it first? A payment is counted with the
   * most its fee may be (the payer's fee cap), in the per-transaction limit, the period's and the API key's budget.
   */
  async gate(amount: bigint, caller?: string): Promise<GateDecision> {
    const cost = { price: amount, fee: this.payer.feeCap ?? 0n };
    const limits = spendingLimits(this.options.limits, this.payer.feeCap);
    const since = new Date(Date.now() - limits.periodMs).toISOString();
    const wallet = checkSpend(cost, await this.store.spentSince(since), limits);
    if (wallet.kind === 'needs-approval') return wallet;
    const budget = caller === undefined ? undefined : this.options.budgets?.get(caller);
    if (budget !== undefined) {
      const spent = await this.store.spentByCaller(caller!);
      if (spent + cost.price + cost.fee > budget) {
        const needs = cost.fee === 0n ? `${amount}` : `${describeCost(cost)}`;
        return {
          kind: 'needs-approval',
          reason: `API key "${caller}" has spent ${spent} of its budget of ${budget}; this task needs ${needs} more`,
        };
      }
    }
    return wallet;
  }

  /**
   * Pays for a task (once: a retry finds the record and finishes or reports it). `approved` skips the gate; a task
   * the gate holds gets an approval record for an operator to decide. `cancelled` ends the wait for a sequencer that
   * cannot be reached (payNow). `beforePaying` runs once the gate has let the payment through and its record is
   * written, before anything is signed: an agent paid after publishing gets its request there.
   */
  async charge(
    task: TaskToPay,
    approved = false,
    cancelled?: AbortSignal,
    beforePaying?: () => Promise<void>,
  ): Promise<ChargeOutcome> {
    const existing = await this.store.get(task.taskId);
    // A record never signed (the gateway stopped between recording the task and signing): nothing was submitted,
    // so paying now is the first payment, not a second one.
    if (existing && !isUnsigned(existing))
      return this.finish(
        existing,
        existing.status === 'pending'
          ? await this.untilKnown(existing.taskId, await this.payer.resume(existing.railState))
          : undefined,
      );
    if (existing) return this.payNow(task, cancelled);
    if (!approved) {
      // The gate's sums and the record of the payment it lets through, one task at a time in this process and across
      // replicas: two tasks charged at once must not both fit under a limit only one of them fits.
      const gate = await this.store.exclusively(async () => {
        const decision: GateDecision =
          task.refunds === 'none' && this.options.approveWithoutRefunds
            ? {
                kind: 'needs-approval',
                reason:
                  'the agent never pays back a task that does not complete, and this gateway asks an operator before paying such an agent',
              }
            : await this.gate(task.amount, task.caller);
        if (decision.kind !== 'needs-approval') await this.store.create(this.newRecord(task, { status: 'pending' }));
        return decision;
      });
      if (gate.kind === 'needs-approval') {
        await this.store.createApproval({
          taskId: task.taskId,
          agentId: task.agentId,
          amount: task.amount.toString(),
          reason: gate.reason,
          status: 'pending',
          createdAt: new Date().toISOString(),
        });
        metrics.payments.inc({ outcome: 'needs-approval' });
        return { kind: 'needs-approval', reason: gate.reason };
      }
      await beforePaying?.();
      return this.payNow(task, cancelled);
    }
    await this.store.create(this.newRecord(task, { status: 'pending' }));
    await beforePaying?.();
    return this.payNow(task, cancelled);
  }

  /**
   * Pays for a task whose record exists and holds nothing signed yet. Two replicas may do so at once: one that
   * stalled past its task's lease, and the one that took the task over. Whichever records its signed transfer first
   * pays; the other's record is refused, so the rail submits nothing of it, and it finishes the first one's payment.
   * A sequencer that cannot be reached (restarting, say: connection refused or reset, a proxy's 502 to 504) is asked
   * again until `inDoubtWaitMs` has passed, as a payment in doubt is resumed (untilKnown): such a failure means
   * nothing was sent that can still land, so paying again cannot pay twice, and a task `cancelled` meanwhile stops
   * waiting at once.
   */
  private async payNow(task: TaskToPay, cancelled?: AbortSignal): Promise<ChargeOutcome> {
    const deadline = this.waitDeadline();
    /** This attempt's last recorded state, as JSON: a rail may sign a payment again, superseding its own record. */
    let recorded: string | undefined;
    let signedElsewhere = false;
    const pay = () =>
      this.payer.pay(`task:${task.taskId}`, task.payee, task.amount, (state) =>
        this.store.exclusively(async () => {
          const record = await this.store.get(task.taskId);
          if (record && !isUnsigned(record) && JSON.stringify(record.railState) !== recorded) {
            signedElsewhere = true;
            throw new Error(`another replica signed the payment for task ${task.taskId} first`);
          }
          await this.store.update(task.taskId, { railState: state });
          recorded = JSON.stringify(state);
        }),
      );
    let outcome = await pay();
    const waiting = () => !signedElsewhere && isUnreachable(outcome) && Date.now() < deadline && !cancelled?.aborted;
    for (let delayMs = 500; waiting(); delayMs = nextDelay(delayMs)) {
      await pause(delayMs, deadline, cancelled);
      if (!cancelled?.aborted) outcome = await pay();
    }
    if (signedElsewhere) return this.charge(task, false, cancelled);
    const finished = await this.finish(
      (await this.store.get(task.taskId))!,
      await this.untilKnown(task.taskId, outcome, deadline),
    );
    if (finished.kind !== 'failed' || !isUnreachable(outcome) || !cancelled?.aborted) return finished;
    const message = `Cancelled while the sequencer could not be reached (${outcome.message}); nothing was charged.`;
    return { kind: 'cancelled', message, receipt: finished.receipt };
  }

  private waitDeadline(): number {
    return Date.now() + (this.options.inDoubtWaitMs ?? 60_000);
  }

  /**
   * A payment in doubt (the sequencer went away while it was on its way) is resumed, with the same signed transfer,
   * until the chain tells whether it landed, for up to `inDoubtWaitMs`: the task waits for its payment rather than
   * ending while the money may still move to an agent that never hears of the task.
   */
  private async untilKnown(taskId: string, outcome: PayOutcome, deadline = this.waitDeadline()): Promise<PayOutcome> {
    for (let delayMs = 500; outcome.kind === 'in-doubt' && Date.now() < deadline; delayMs = nextDelay(delayMs)) {
      await pause(delayMs, deadline);
      const record = await this.store.get(taskId);
      if (!record || isUnsigned(record)) break;
      outcome = await this.payer.resume(record.railState);
    }
    return outcome;
  }

  /**
   * Payments still pending whose task no longer waits for them (it ended while the payment was in doubt): finish
   * each one exactly once, so the books say whether the money moved. Tasks still live settle their own payment;
   * with `untouchedForMs`, so may those of another replica: only records left alone that long are taken.
   */
  async settleStranded(
    isLive: (taskId: string) => boolean,
    untouchedForMs = 0,
  ): Promise<Map<string, { agentId: string; outcome: ChargeOutcome }>> {
    const outcomes = new Map<string, { agentId: string; outcome: ChargeOutcome }>();
    for (const record of await this.store.pending()) {
      if (isLive(record.taskId) || Date.now() - Date.parse(record.updatedAt) < untouchedForMs) continue;
      const outcome: PayOutcome = isUnsigned(record)
        ? {
            kind: 'failed',
            paymentId: `task:${record.taskId}`,
            reason: 'record-failed',
            message: 'the gateway stopped before it signed the transfer, so nothing was sent',
          }
        : await this.payer.resume(record.railState);
      if (outcome.kind === 'in-doubt') continue; // still in doubt: asked again next time
      outcomes.set(record.taskId, { agentId: record.agentId, outcome: await this.finish(record, outcome) });
    }
    return outcomes;
  }

  /**
   * The task ended after payment: did the agent pay the money back? The agent's reference is checked, and failing
   * that, the chain is searched; only when neither shows a refund is it recorded as `refund-missing`. An agent whose
   * binding has no refunds (`refunds: 'none'`) is not waited for: the task is recorded `no-refund`.
   */
  async settleRefund(
    taskId: string,
    refund: WirePaymentReference | undefined,
    refunds?: 'none',
  ): Promise<TaskReceipt | undefined> {
    return this.claims.run(async () => {
      const record = await this.store.get(taskId);
      if (!record || record.status !== 'paid') return record && this.receipt(record);
      if (refunds === 'none') {
        await this.store.update(taskId, { status: 'no-refund' });
        metrics.refunds.inc({ outcome: 'no-refund' });
        return this.receipt((await this.store.get(taskId))!);
      }
      const refundTxHash =
        refund && (await this.acceptsRefund(record, refund.tx_hash))
          ? refund.tx_hash
          : await this.refundOnChain(record);
      // Replicas may settle the same refund at once (a task's old owner, stalled past its lease, and its new one both
      // apply the agent's reply): the one that writes second finds the refund's transaction used, by the first, and
      // would record it missing over the first's `refunded`, for good. So the outcome is written only while the
      // record is still `paid`, checked under the store's lock between replicas; the chain was asked outside it.
      const outcome = await this.store.exclusively(async () => {
        if ((await this.store.get(taskId))?.status !== 'paid') return undefined; // settled meanwhile
        const claimed = refundTxHash !== undefined && (await this.claimRefund(taskId, refundTxHash));
        if (!claimed) await this.store.update(taskId, { status: 'refund-missing' });
        return claimed ? 'refunded' : 'refund-missing';
      });
      if (outcome) metrics.refunds.inc({ outcome });
      return this.receipt((await this.store.get(taskId))!);
    });
  }

  /** Records a refund; false when another record claimed the transaction first (another replica, say). */
  private async claimRefund(taskId: string, refundTxHash: string): Promise<boolean> {
    try {
      await this.store.update(taskId, { status: 'refunded', refundTxHash });
      return true;
    } catch (error) {
      if (await this.store.txHashUsed(refundTxHash)) return false;
      throw error;
    }
  }

  /**
   * Refunds recorded missing are looked for on chain again: the agent may have paid back later (its refund landed
   * after the task ended, or it retried once the sequencer was back). Those found are recorded as refunded; their
   * tasks' receipts are returned, to be written to the tasks. Only those of tasks that have ended (not `running`):
   * a receipt is corrected only on an ended task (TaskStore.correctEnded), and one recorded refunded before its task
   * had ended would be found by no later check, its receipt saying `refund-missing` for good.
   */
  async recheckMissingRefunds(
    running: (taskId: string) => boolean,
  ): Promise<{ taskId: string; agentId: string; receipt: TaskReceipt }[]> {
    const corrected: { taskId: string; agentId: string; receipt: TaskReceipt }[] = [];
    for (const record of await this.store.refundsMissing()) {
      if (running(record.taskId)) continue;
      const claimed = await this.claims.run(async () => {
        const refundTxHash = await this.refundOnChain(record);
        return refundTxHash !== undefined && (await this.claimRefund(record.taskId, refundTxHash));
      });
      if (!claimed) continue;
      metrics.refunds.inc({ outcome: 'refunded-late' });
      const receipt = this.receipt((await this.store.get(record.taskId))!);
      corrected.push({ taskId: record.taskId, agentId: record.agentId, receipt });
    }
    return corrected;
  }

  /** The refund's expected transfer: from the agent back to whoever paid, of the whole amount. */
  private refundOf(record: TaskPaymentRecord) {
    return { from: record.payee, to: record.payer ?? this.payer.account, amount: BigInt(record.amount) };
  }

  /** A refund transaction is accepted once, and only if the chain shows it paying the whole amount back. */
  private async acceptsRefund(record: TaskPaymentRecord, txHash: string): Promise<boolean> {
    return (
      !(await this.store.txHashUsed(txHash)) &&
      (await this.payer.verify(txHash, this.refundOf(record))).kind === 'verified'
    );
  }

  /**
   * A refund without a valid reference (an agent that restarted refunds without one): the chain may show it anyway.
   * A transfer has no memo, so any unclaimed one back of exactly this amount since the payment counts, once.
   */
  private async refundOnChain(record: TaskPaymentRecord): Promise<string | undefined> {
    const found = await this.payer.findTransfers({
      ...this.refundOf(record),
      notBeforeMs: Date.parse(record.createdAt),
    });
    if (found.kind !== 'found') return undefined;
    for (const txHash of found.txHashes) if (await this.acceptsRefund(record, txHash)) return txHash;
    return undefined;
  }

  /**
   * The client paid the agent itself (the client-pays extension): accepts `txHash` if it is an included transfer of
   * the price from `from` to the agent, used for nothing else. Nothing is paid from the gateway's wallet.
   */
  async acceptClientPayment(task: TaskToPay, tx: { txHash: string; from: string }): Promise<ClientPaymentOutcome> {
    if (await this.store.txHashUsed(tx.txHash))
      return { kind: 'rejected', message: `transaction ${tx.txHash} already paid for something else` };
    const verified = await this.payer.verify(tx.txHash, { from: tx.from, to: task.payee, amount: task.amount });
    if (verified.kind !== 'verified') {
      metrics.payments.inc({ outcome: 'client-rejected' });
      return { kind: 'rejected', message: verified.message };
    }
    const created = await this.store.create(
      this.newRecord(task, { status: 'paid', txHash: tx.txHash, payer: tx.from }),
    );
    // Refused by the record of this task, or by another's holding the same transaction (sent for two tasks at once).
    if (!created) {
      const paidAlready = (await this.store.get(task.taskId)) !== undefined;
      const message = paidAlready
        ? 'this task is already paid'
        : `transaction ${tx.txHash} already paid for something else`;
      return { kind: 'rejected', message };
    }
    const record = (await this.store.get(task.taskId))!;
    metrics.payments.inc({ outcome: 'client-paid' });
    return {
      kind: 'paid',
      receipt: this.receipt(record),
      reference: { rail: record.rail, tx_hash: tx.txHash, from: tx.from, to: task.payee, amount: record.amount },
    };
  }

  // --- operator approvals --------------------------------------------------------------------------------

  /** The approvals asked for, oldest first; only those with `status` when given. */
  approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    return this.store.approvals(status);
  }

  /** The approval asked for a task, if any. */
  approval(taskId: string): Promise<ApprovalRecord | undefined> {
    return this.store.getApproval(taskId);
  }

  /** Decides a pending approval, once; undefined when the task's approval is not (or no longer) pending. */
  decideApproval(taskId: string, status: Exclude<ApprovalStatus, 'pending'>): Promise<ApprovalRecord | undefined> {
    return this.store.decideApproval(taskId, status);
  }

  // -------------------------------------------------------------------------------------------------------

  private newRecord(
    task: TaskToPay,
    fields: Pick<TaskPaymentRecord, 'status' | 'txHash' | 'payer'>,
  ): TaskPaymentRecord {
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

  private async finish(record: TaskPaymentRecord, outcome: PayOutcome | undefined): Promise<ChargeOutcome> {
    if (outcome) metrics.payments.inc({ outcome: outcome.kind });
    if (outcome?.kind === 'paid') {
      await this.store.update(record.taskId, {
        status: 'paid',
        txHash: outcome.receipt.txHash,
        railState: outcome.receipt,
      });
    } else if (outcome?.kind === 'failed') {
      await this.store.update(record.taskId, { status: 'failed' });
    }
    const current = (await this.store.get(record.taskId))!;
    const receipt = this.receipt(current);
    if (current.status === 'paid' && current.txHash) {
      return {
        kind: 'paid',
        receipt,
        reference: {
          rail: current.rail,
          tx_hash: current.txHash,
          from: this.payer.account,
          to: current.payee,
          amount: current.amount,
        },
      };
    }
    if (current.status === 'pending') {
      // In doubt: the record stays pending and is settled at the next start; the task does not go ahead unpaid.
      const why = outcome?.kind === 'in-doubt' ? outcome.message : 'not confirmed';
      return {
        kind: 'failed',
        message: `The payment of ${current.amount} to the agent is not confirmed (${why}); the gateway keeps the record and settles it, so it is never paid twice. The task was not sent.`,
        receipt,
      };
    }
    const why = outcome?.kind === 'failed' ? outcome.message : `the payment is ${current.status}`;
    return {
      kind: 'failed',
      message: `The payment of ${current.amount} to the agent failed: ${why}. Nothing was charged.`,
      receipt,
    };
  }

  private receipt(record: TaskPaymentRecord): TaskReceipt {
    // A payment that landed keeps the rail's receipt: on a chain with fees, the fee its transfer declared, apart from
    // the price. A refund gives the price back, not the fee, so a refunded receipt still shows it.
    const maxFee = record.txHash ? maxFeeOf(record.railState) : undefined;
    return {
      ...(record.payer ? { payer: record.payer } : {}),
      rail: record.rail,
      network: this.options.network,
      amount: record.amount,
      payee: record.payee,
      status: record.status,
      ...(record.txHash ? { txHash: record.txHash } : {}),
      ...(record.refundTxHash ? { refundTxHash: record.refundTxHash } : {}),
      ...(maxFee ? { maxFee } : {}),
    };
  }
}

function maxFeeOf(railState: unknown): string | undefined {
  const fee = (railState as { maxFee?: unknown } | null)?.maxFee;
  return typeof fee === 'string' && /^\d+$/.test(fee) ? fee : undefined;
}

/** A pending record with no rail state: created, never signed, so nothing of it can have reached the chain. */
function isUnsigned(record: TaskPaymentRecord): boolean {
  return record.status === 'pending' && (record.railState === null || record.railState === undefined);
}

/** A payment that failed only because the sequencer could not be reached: nothing it signed can land. */
const isUnreachable = (outcome: PayOutcome): outcome is Extract<PayOutcome, { kind: 'failed' }> =>
  outcome.kind === 'failed' && outcome.reason === 'sequencer-unavailable';

const nextDelay = (delayMs: number): number => Math.min(delayMs * 2, 5_000);

/** Waits `delayMs`, or until `deadline` or `cancelled`, whichever comes first. */
function pause(delayMs: number, deadline: number, cancelled?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      cancelled?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, Math.min(delayMs, deadline - Date.now())));
    cancelled?.addEventListener('abort', done, { once: true });
  });
}
