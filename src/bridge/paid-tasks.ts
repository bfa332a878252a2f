/**
 * Paid tasks on the gateway's side: paying through the spending gate and forwarding, holding a task for an
 * operator's approval, the client paying the agent itself, and checking refunds. The engine owns the task and its
 * chain; this flow changes a task only through the engine's operations (`TaskOps`), always on the task's chain.
 */
import { TaskState, type Message } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { encodeEnvelope, type AgentEnvelope } from '../logos/envelope.ts';
import type { LiveTask } from './live-task.ts';
import type { ChangeListener, TaskChange } from './task-change.ts';
import { clientPaymentRequest, type ClientPaymentTerms } from './client-pays.ts';
import { statusEvent } from './task-events.ts';
import type { TaskPayments } from './task-payments.ts';
import type { toAgentMessage } from './mapping.ts';

/** What the flow may do to a live task: the engine's own operations. */
export interface TaskOps {
  setStatus(live: LiveTask, state: TaskState, message?: Parameters<typeof toAgentMessage>[0]): void;
  persist(live: LiveTask): Promise<void>;
  emit(live: LiveTask, change: TaskChange): void;
  finishLocally(live: LiveTask): Promise<void>;
  sendRaw(live: LiveTask, payload: Uint8Array): Promise<void>;
  armSilenceTimer(live: LiveTask): void;
  updateRequest(taskId: string, request: string): Promise<void>;
  /** Whether `live` is still the engine's record of its task (not finished or replaced). */
  isCurrent(live: LiveTask): boolean;
}

export class PaidTasks {
  private readonly payments: TaskPayments | undefined;
  private readonly ops: TaskOps;
  private readonly approvalTimeoutMs: number;

  constructor(payments: TaskPayments | undefined, ops: TaskOps, approvalTimeoutMs: number) {
    this.payments = payments;
    this.ops = ops;
    this.approvalTimeoutMs = approvalTimeoutMs;
  }

  /** The client's payment for a task waiting for it (client-pays extension); runs on the task's chain. */
  async acceptClientPayment(live: LiveTask, message: Message, tx: { txHash: string; from: string }, listener?: ChangeListener): Promise<void> {
    const payments = this.payments;
    const taskId = live.task.id;
    const agentId = live.agentId;
    if (live.clientPaymentTimer === undefined || !payments || !live.payee) {
      throw new UnsupportedOperationError(`Task ${taskId} does not wait for a payment.`);
    }
    if (listener) live.listeners.add(listener);
    live.task.history = [...live.task.history, { ...message, taskId, contextId: live.task.contextId }];
    const amount = BigInt(live.request.lez_price);
    const outcome = await payments.acceptClientPayment(
      { taskId, agentId, payee: live.payee, amount, ...(live.caller ? { caller: live.caller } : {}) },
      tx,
    );
    if (outcome.kind === 'rejected') {
      this.ops.setStatus(live, TaskState.TASK_STATE_INPUT_REQUIRED, clientPaymentRequest(this.termsOf(live, payments), `The payment was not accepted: ${outcome.message}.`));
      await this.ops.persist(live);
      this.ops.emit(live, { events: [statusEvent(live.task)], task: live.task });
      return;
    }
    clearTimeout(live.clientPaymentTimer);
    live.clientPaymentTimer = undefined;
    live.request = { ...live.request, payment: outcome.reference };
    await this.ops.updateRequest(taskId, JSON.stringify(live.request));
    live.task.metadata = { ...live.task.metadata, lez: outcome.receipt };
    this.ops.setStatus(live, TaskState.TASK_STATE_WORKING, 'Payment verified; the task goes to the agent.');
    await this.ops.persist(live);
    this.ops.emit(live, { events: [statusEvent(live.task)], task: live.task });
    this.ops.armSilenceTimer(live);
    await this.ops.sendRaw(live, encodeEnvelope(live.request));
  }

  /** Records an operator's decision; false when the task's approval is no longer pending. */
  recordDecision(taskId: string, approve: boolean): boolean {
    return this.payments?.store.decideApproval(taskId, approve ? 'approved' : 'rejected') !== undefined;
  }

  /** Carries out an operator's decision on a held task; runs on the task's chain. */
  async applyDecision(live: LiveTask, approve: boolean): Promise<void> {
    clearTimeout(live.approvalTimer);
    live.approvalTimer = undefined;
    if (!approve) {
      this.ops.setStatus(live, TaskState.TASK_STATE_REJECTED, 'An operator rejected the payment for this task; nothing was charged.');
      live.task.metadata = { ...live.task.metadata, lez: { ...this.lezOf(live), status: 'rejected' } };
      await this.ops.finishLocally(live);
      return;
    }
    this.ops.setStatus(live, TaskState.TASK_STATE_WORKING, 'An operator approved the payment; paying the agent.');
    await this.ops.persist(live);
    this.ops.emit(live, { events: [statusEvent(live.task)], task: live.task });
    await this.payAndForward(live, true);
  }

  /** Pays for a priced task through the gate, then forwards it; or holds it for approval; or fails it. */
  async payAndForward(live: LiveTask, approved: boolean): Promise<void> {
    const payments = this.payments;
    const amount = BigInt(live.request.lez_price);
    const refuse = async (message: string) => {
      this.ops.setStatus(live, TaskState.TASK_STATE_FAILED, message);
      await this.ops.finishLocally(live);
    };
    if (!payments) return refuse(`This skill costs ${amount} LEZ and this gateway has no payment rail configured; nothing was sent to the agent.`);
    if (!live.payee) return refuse(`The agent prices this skill at ${amount} LEZ but publishes no LEZ account (x-lez-identity); nothing was paid.`);
    const outcome = await payments.charge(
      { taskId: live.task.id, agentId: live.agentId, payee: live.payee, amount, ...(live.caller ? { caller: live.caller } : {}) },
      approved,
    );
    switch (outcome.kind) {
      case 'paid': {
        live.request = { ...live.request, payment: outcome.reference };
        await this.ops.updateRequest(live.task.id, JSON.stringify(live.request));
        live.task.metadata = { ...live.task.metadata, lez: outcome.receipt };
        await this.ops.persist(live);
        // The agent's silence counts from now on, the payment's wait (and any approval) behind it.
        this.ops.armSilenceTimer(live);
        await this.ops.sendRaw(live, encodeEnvelope(live.request));
        return;
      }
      case 'needs-approval': {
        payments.store.createApproval({
          taskId: live.task.id,
          agentId: live.agentId,
          amount: amount.toString(),
          reason: outcome.reason,
          status: 'pending',
          createdAt: new Date().toISOString(),
        });
        live.task.metadata = {
          ...live.task.metadata,
          lez: { ...this.lezOf(live), rail: payments.payer.rail, amount: amount.toString(), payee: live.payee, status: 'awaiting-approval' },
        };
        this.ops.setStatus(
          live,
          TaskState.TASK_STATE_INPUT_REQUIRED,
          `This task costs ${amount} LEZ: ${outcome.reason}. It waits for an operator to approve or reject the payment.`,
        );
        clearTimeout(live.silenceTimer);
        this.armApprovalTimer(live, this.approvalTimeoutMs);
        await this.ops.persist(live);
        this.ops.emit(live, { events: [statusEvent(live.task)], task: live.task });
        return;
      }
      case 'failed':
        live.task.metadata = { ...live.task.metadata, lez: outcome.receipt };
        return refuse(outcome.message);
    }
  }

  /** Client-pays: the task waits in input-required with the payment requirement in its status message. */
  async askClientToPay(live: LiveTask): Promise<void> {
    const payments = this.payments;
    if (!payments || !live.payee) return this.payAndForward(live, false); // fails with the reason
    live.task.metadata = { ...live.task.metadata, lez: { ...this.lezOf(live), status: 'awaiting-payment' } };
    this.ops.setStatus(live, TaskState.TASK_STATE_INPUT_REQUIRED, clientPaymentRequest(this.termsOf(live, payments)));
    clearTimeout(live.silenceTimer);
    const timer = setTimeout(() => {
      live.chain = live.chain.then(async () => {
        if (live.clientPaymentTimer !== timer || !this.ops.isCurrent(live)) return;
        live.clientPaymentTimer = undefined;
        this.ops.setStatus(live, TaskState.TASK_STATE_FAILED, 'No payment arrived in time; the task was not sent to the agent.');
        live.task.metadata = { ...live.task.metadata, lez: { ...this.lezOf(live), status: 'expired' } };
        await this.ops.finishLocally(live);
      });
    }, this.approvalTimeoutMs);
    timer.unref();
    live.clientPaymentTimer = timer;
    await this.ops.persist(live);
    this.ops.emit(live, { events: [statusEvent(live.task)], task: live.task });
  }

  armApprovalTimer(live: LiveTask, delayMs: number): void {
    clearTimeout(live.approvalTimer);
    live.approvalTimer = setTimeout(() => {
      live.chain = live.chain.then(async () => {
        if (live.approvalTimer === undefined || !this.payments?.store.decideApproval(live.task.id, 'expired')) return;
        live.approvalTimer = undefined;
        const minutes = Math.round(this.approvalTimeoutMs / 6000) / 10;
        this.ops.setStatus(live, TaskState.TASK_STATE_FAILED, `No operator approved the payment within ${minutes} min; nothing was charged.`);
        live.task.metadata = { ...live.task.metadata, lez: { ...this.lezOf(live), status: 'expired' } };
        await this.ops.finishLocally(live);
      });
    }, Math.max(0, delayMs));
    live.approvalTimer.unref();
  }

  private termsOf(live: LiveTask, payments: TaskPayments): ClientPaymentTerms {
    return { taskId: live.task.id, rail: payments.payer.rail, payTo: live.payee!, amount: live.request.lez_price };
  }

  lezOf(live: LiveTask): Record<string, unknown> {
    return (live.task.metadata?.lez as Record<string, unknown> | undefined) ?? {};
  }

  /** A paid task ended without completing: record whether the agent paid the money back. */
  async settleRefund(live: LiveTask, envelope: AgentEnvelope | undefined): Promise<void> {
    const payments = this.payments;
    if (!payments || !live.request.payment) return;
    const refund = envelope && envelope.type !== 'task_status' ? envelope.refund : undefined;
    const receipt = await payments.settleRefund(live.task.id, refund);
    if (receipt) live.task.metadata = { ...live.task.metadata, lez: receipt };
  }
}
