/**
 * Paid tasks on the gateway's side, as decisions: paying through the spending gate, holding a task for an
 * operator's approval, the client paying the agent itself, and checking refunds. For a priced task the engine asks
 * what comes next and gets a `PaidStep`, which it applies to the task itself (status, receipt, timers, forwarding).
 * This flow changes no task and calls nothing of the engine's; money and its records it reaches only through
 * `TaskPayments`.
 */
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { WireMessage, WirePaymentReference } from '../logos/envelope.ts';
import type { ApprovalRecord } from '../store/payment-store.ts';
import { clientPaymentRequest, type ClientPaymentTerms } from './client-pays.ts';
import type { TaskReceipt } from './task-metadata.ts';
import type { ChargeOutcome, TaskPayments, TaskToPay } from './task-payments.ts';

/** What the flow needs to know of a priced task. */
export interface PricedTask {
  taskId: string;
  agentId: string;
  /** The price as the task_request states it (`lez_price`): LEZ base units, decimal. */
  price: string;
  /** The agent's account (card `x-lez-identity`); absent when the agent publishes none. */
  payee?: string;
  /** The API key the task was sent with. */
  caller?: string;
  /** The task's receipt as it stands (`metadata.lez`). */
  receipt?: TaskReceipt;
  /** `none` when the agent's binding has no refunds. */
  refunds?: 'none';
}

/**
 * What comes next for a priced task. `receipt`, when given, becomes the task's `metadata.lez`; `note` is the
 * status message to show.
 */
export type PaidStep =
  /** Paid: the task goes to the agent with `payment`; with a `note`, the task shows it as working first. */
  | { kind: 'forward'; payment: WirePaymentReference; receipt: TaskReceipt; note?: string }
  /** Above the spending limits: input-required until an operator decides or the approval times out. */
  | { kind: 'hold'; receipt: TaskReceipt; note: string }
  /** The operator approved: working while the payment is made (then `pay` with approval). */
  | { kind: 'paying'; note: string }
  /** The client is to pay the agent itself (client-pays): input-required, the requirement in `request`. */
  | { kind: 'await-payment'; request: WireMessage; receipt?: TaskReceipt }
  /** The task ends without reaching the agent. */
  | { kind: 'end'; state: 'failed' | 'rejected' | 'canceled'; note: string; receipt?: TaskReceipt };

/** An agent this gateway runs itself, asked before its task is paid for: the reason it refuses it now, if it does. */
export type AdmitAhead = (task: Pick<PricedTask, 'taskId' | 'agentId'>) => Promise<string | undefined>;

export class PaidTasks {
  private readonly payments: TaskPayments | undefined;
  private readonly approvalTimeoutMs: number;
  private readonly admitAhead: AdmitAhead | undefined;

  constructor(payments: TaskPayments | undefined, approvalTimeoutMs: number, admitAhead?: AdmitAhead) {
    this.payments = payments;
    this.approvalTimeoutMs = approvalTimeoutMs;
    this.admitAhead = admitAhead;
  }

  /**
   * A new task whose agent runs here (an HTTP agent this gateway publishes, with its limits) and refuses it now: it
   * ends rejected before anything is paid, rather than paid, refused and refunded. Undefined: go on and pay.
   */
  async refusedAhead(task: PricedTask): Promise<PaidStep | undefined> {
    const refusal = await this.admitAhead?.(task);
    if (refusal === undefined) return undefined;
    const receipt: TaskReceipt = { ...this.receiptOf(task), status: 'rejected' };
    return { kind: 'end', state: 'rejected', note: `${refusal} Nothing was charged.`, receipt };
  }

  /**
   * Pays for a task through the gate (skipped when an operator `approved` it), or holds it, or fails it; or ends it
   * cancelled when `cancelled` stops a wait for the sequencer (TaskPayments.charge). `beforePaying` runs once the
   * gate lets the payment through, before it is made (an agent paid after publishing).
   */
  async pay(
    task: PricedTask,
    approved: boolean,
    cancelled?: AbortSignal,
    beforePaying?: () => Promise<void>,
  ): Promise<PaidStep> {
    const payments = this.payments;
    if (!payments || !task.payee) return this.unpayable(task);
    const outcome = await payments.charge(this.toPay(task, task.payee), approved, cancelled, beforePaying);
    return this.charged(task, task.payee, outcome);
  }

  /** Client-pays: the task waits in input-required with the payment requirement in its status message. */
  async askClient(task: PricedTask): Promise<PaidStep> {
    const payments = this.payments;
    if (!payments || !task.payee) return this.unpayable(task);
    const receipt: TaskReceipt = { ...this.receiptOf(task), status: 'awaiting-payment' };
    return { kind: 'await-payment', request: clientPaymentRequest(this.termsOf(task, task.payee, payments)), receipt };
  }

  /** The client's payment for a task waiting for it (client-pays extension). */
  async acceptClientPayment(task: PricedTask, tx: { txHash: string; from: string }): Promise<PaidStep> {
    const payments = this.payments;
    if (!payments || !task.payee)
      throw new UnsupportedOperationError(`Task ${task.taskId} does not wait for a payment.`);
    const outcome = await payments.acceptClientPayment(this.toPay(task, task.payee), tx);
    if (outcome.kind === 'rejected') {
      const request = clientPaymentRequest(
        this.termsOf(task, task.payee, payments),
        `The payment was not accepted: ${outcome.message}.`,
      );
      return { kind: 'await-payment', request };
    }
    return {
      kind: 'forward',
      payment: outcome.reference,
      receipt: outcome.receipt,
      note: 'Payment verified; the task goes to the agent.',
    };
  }

  /** Nobody paid within the approval timeout. */
  clientPaymentExpired(task: PricedTask): PaidStep {
    const receipt: TaskReceipt = { ...this.receiptOf(task), status: 'expired' };
    return {
      kind: 'end',
      state: 'failed',
      note: 'No payment arrived in time; the task was not sent to the agent.',
      receipt,
    };
  }

  /** The approval asked for a task, if any (a restarted gateway holds the task again, or pays it if approved). */
  async approval(taskId: string): Promise<ApprovalRecord | undefined> {
    return this.payments?.approval(taskId);
  }

  /** Records an operator's decision (or a cancel's: rejected); false when the task's approval is not pending. */
  async recordDecision(taskId: string, approve: boolean): Promise<boolean> {
    return (await this.payments?.decideApproval(taskId, approve ? 'approved' : 'rejected')) !== undefined;
  }

  /** What an operator's recorded decision does to the held task. */
  decided(task: PricedTask, approve: boolean): PaidStep {
    if (approve) return { kind: 'paying', note: 'An operator approved the payment; paying the agent.' };
    const receipt: TaskReceipt = { ...this.receiptOf(task), status: 'rejected' };
    return {
      kind: 'end',
      state: 'rejected',
      note: 'An operator rejected the payment for this task; nothing was charged.',
      receipt,
    };
  }

  /** Nobody decided within the approval timeout; undefined when the approval was decided meanwhile. */
  async approvalExpired(task: PricedTask): Promise<PaidStep | undefined> {
    if (!(await this.payments?.decideApproval(task.taskId, 'expired'))) return undefined;
    const minutes = Math.round(this.approvalTimeoutMs / 6000) / 10;
    const receipt: TaskReceipt = { ...this.receiptOf(task), status: 'expired' };
    return {
      kind: 'end',
      state: 'failed',
      note: `No operator approved the payment within ${minutes} min; nothing was charged.`,
      receipt,
    };
  }

  /** A paid task ended without completing: the receipt saying whether the agent paid the money back. */
  async settleRefund(
    taskId: string,
    refund: WirePaymentReference | undefined,
    refunds?: 'none',
  ): Promise<TaskReceipt | undefined> {
    return this.payments?.settleRefund(taskId, refund, refunds);
  }

  /** Refunds recorded missing and found on chain since, with their tasks' new receipts. */
  async recheckMissingRefunds(
    running: (taskId: string) => boolean,
  ): Promise<{ taskId: string; agentId: string; receipt: TaskReceipt }[]> {
    return this.payments ? this.payments.recheckMissingRefunds(running) : [];
  }

  /** Settles payments left pending by tasks that are no longer live (TaskPayments.settleStranded). */
  async settleStranded(
    isLive: (taskId: string) => boolean,
    untouchedForMs = 0,
  ): Promise<Map<string, { agentId: string; outcome: ChargeOutcome }>> {
    return this.payments ? this.payments.settleStranded(isLive, untouchedForMs) : new Map();
  }

  private charged(task: PricedTask, payee: string, outcome: ChargeOutcome): PaidStep {
    switch (outcome.kind) {
      case 'paid':
        return { kind: 'forward', payment: outcome.reference, receipt: outcome.receipt };
      case 'needs-approval': {
        const amount = BigInt(task.price);
        const receipt: TaskReceipt = {
          ...this.receiptOf(task),
          rail: this.payments!.payer.rail,
          amount: amount.toString(),
          payee,
          status: 'awaiting-approval',
        };
        const note = `This task costs ${amount} LEZ: ${outcome.reason}. It waits for an operator to approve or reject the payment.`;
        return { kind: 'hold', receipt, note };
      }
      case 'failed':
        return { kind: 'end', state: 'failed', note: outcome.message, receipt: outcome.receipt };
      case 'cancelled':
        return { kind: 'end', state: 'canceled', note: outcome.message, receipt: outcome.receipt };
    }
  }

  /** No rail, or nobody to pay: the task fails before anything is paid or sent. */
  private unpayable(task: PricedTask): PaidStep {
    const amount = BigInt(task.price);
    const note = this.payments
      ? `The agent prices this skill at ${amount} LEZ but publishes no LEZ account (x-lez-identity); nothing was paid.`
      : `This skill costs ${amount} LEZ and this gateway has no payment rail configured; nothing was sent to the agent.`;
    return { kind: 'end', state: 'failed', note };
  }

  private toPay(task: PricedTask, payee: string): TaskToPay {
    return {
      taskId: task.taskId,
      agentId: task.agentId,
      payee,
      amount: BigInt(task.price),
      ...(task.caller ? { caller: task.caller } : {}),
      ...(task.refunds ? { refunds: task.refunds } : {}),
    };
  }

  /** The receipt as it stands; every priced task has one from its creation on. */
  private receiptOf(task: PricedTask): TaskReceipt {
    return task.receipt ?? { amount: task.price, status: 'pending' };
  }

  private termsOf(task: PricedTask, payee: string, payments: TaskPayments): ClientPaymentTerms {
    return { taskId: task.taskId, rail: payments.payer.rail, payTo: payee, amount: task.price };
  }
}
