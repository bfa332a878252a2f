/**
 * Priced tasks, applied: the paid flow (paid-tasks.ts) decides what comes next for a task, and this carries it out
 * on the task: its status and receipt, the approval and client-payment timers, and forwarding the request once
 * paid. Every method runs on the task's chain unless it says otherwise.
 */
import { TaskState } from '@a2a-js/sdk';
import { encodeEnvelope, type AgentEnvelope } from '../../logos/envelope.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { LiveTask } from '../live-task.ts';
import { isTerminal } from '../mapping.ts';
import type { PaidStep, PaidTasks, PricedTask } from '../paid-tasks.ts';
import { logosMetadataOf, receiptOf, withReceipt } from '../task-metadata.ts';
import { statusEvent } from '../task-events.ts';
import type { AgentSender } from './agent-sender.ts';
import { setStatus } from './apply-reply.ts';
import type { LiveTasks } from './live-tasks.ts';
import type { Retransmission } from './retransmission.ts';

export interface PaidStepsOptions {
  paid: PaidTasks;
  tasks: LiveTasks;
  store: Pick<TaskStore, 'updateRequest'>;
  sender: Pick<AgentSender, 'sendEncoded' | 'send'>;
  resends: Pick<Retransmission, 'watchSilence' | 'ignoreSilence' | 'resendUntilAnswered'>;
  /** How long a task above the spending limits waits for an operator, or one for its client's payment. */
  approvalTimeoutMs: number;
  /** Ends a task here, as it stands (its refund settled, saved, no longer live, told). */
  finish: (live: LiveTask) => Promise<void>;
  log: (message: string) => void;
}

/** The state a priced task ends in when the paid flow ends it before it reaches the agent. */
const END_STATES: Record<'failed' | 'rejected' | 'canceled', TaskState> = {
  failed: TaskState.TASK_STATE_FAILED,
  rejected: TaskState.TASK_STATE_REJECTED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

/** A priced task whose request has not gone to its agent yet (held, or being paid for): nothing to ask it about. */
export function unforwarded(live: LiveTask): boolean {
  return BigInt(live.request.lez_price) > 0n && !live.request.payment;
}

export class PaidSteps {
  readonly #options: PaidStepsOptions;

  constructor(options: PaidStepsOptions) {
    this.#options = options;
  }

  /**
   * Pays for a priced task, then forwards it; or holds it for approval; or fails it. An agent whose binding wants the
   * payment after the request (`paymentTiming: after-publishing`) gets the request once the gate has let the payment
   * through, before it is made.
   */
  async payAndForward(live: LiveTask, approved: boolean): Promise<void> {
    const { paid } = this.#options;
    const publishFirst = live.wireBinding.paymentTiming === 'after-publishing' && !live.publishedUnpaid;
    const publish = async () => {
      live.publishedUnpaid = true;
      this.#options.resends.watchSilence(live);
      await this.#options.sender.sendEncoded(live, encodeEnvelope(live.request));
    };
    await this.apply(
      live,
      await paid.pay(pricedOf(live), approved, live.cancelling.signal, publishFirst ? publish : undefined),
    );
  }

  /** A new priced task: refused at once when its agent here would refuse it (nothing paid), else paid and forwarded. */
  async payNew(live: LiveTask): Promise<void> {
    const refused = await this.#options.paid.refusedAhead(pricedOf(live));
    if (refused) return this.apply(live, refused);
    await this.payAndForward(live, false);
  }

  /** Client-pays: the task waits for the client's own payment. */
  async askClientToPay(live: LiveTask): Promise<void> {
    await this.apply(live, await this.#options.paid.askClient(pricedOf(live)));
  }

  /** The client's own payment for a task that waits for one: checked, then the task goes on or is asked again. */
  async acceptClientPayment(live: LiveTask, payment: { txHash: string; from: string }): Promise<void> {
    await this.apply(live, await this.#options.paid.acceptClientPayment(pricedOf(live), payment));
  }

  /** An operator decided on a task held for approval (the decision recorded already). */
  async decided(live: LiveTask, approve: boolean): Promise<void> {
    clearTimeout(live.approvalTimer);
    live.approvalTimer = undefined;
    await this.apply(live, this.#options.paid.decided(pricedOf(live), approve));
  }

  /** A task held for approval, its approval pending since `createdAt`: the wait goes on for what is left of it. */
  awaitApproval(live: LiveTask, createdAt: string): void {
    this.armApprovalTimer(live, Date.parse(createdAt) + this.#options.approvalTimeoutMs - Date.now());
  }

  /**
   * A payment that threw after its caller had the task (returnImmediately): the task fails, so that nobody waits on
   * it for good. One already forwarded is left alone: its agent has the request, and the silence timer runs. Not on
   * the chain: it queues itself there.
   */
  failedBehind(live: LiveTask, error: unknown): void {
    const { tasks, log, finish } = this.#options;
    log(`paying for task ${live.task.id}: ${String(error)}`);
    tasks.enqueue(live, 'failing it', async () => {
      if (live.request.payment || !tasks.holds(live) || isTerminal(live.task.status?.state)) return;
      setStatus(live.task, TaskState.TASK_STATE_FAILED, 'The gateway could not pay the agent; its log says why.');
      await finish(live);
    });
  }

  /**
   * A paid task ended without completing: record whether the agent paid the money back, or that its binding has no
   * refunds.
   */
  async settleRefund(live: LiveTask, envelope: AgentEnvelope | undefined): Promise<void> {
    if (!live.request.payment) return;
    const refund = envelope && envelope.type !== 'task_status' ? envelope.refund : undefined;
    const receipt = await this.#options.paid.settleRefund(live.task.id, refund, live.wireBinding.refunds);
    if (receipt) live.task.metadata = withReceipt(live.task.metadata, receipt);
  }

  /** Carries out what the paid flow decided for a task. */
  private async apply(live: LiveTask, step: PaidStep): Promise<void> {
    const { tasks, resends } = this.#options;
    if ('receipt' in step && step.receipt) live.task.metadata = withReceipt(live.task.metadata, step.receipt);
    switch (step.kind) {
      case 'forward': {
        clearTimeout(live.clientPaymentTimer);
        live.clientPaymentTimer = undefined;
        live.request = { ...live.request, payment: step.payment };
        // The request naming the payment and the paid receipt go to the store together (one transaction on
        // PostgreSQL, whose batch takes both): a lease lost between two writes left a task forwarded as paid beside a
        // pending receipt that the replica taking it over never corrected. SQLite writes the request at once and the
        // receipt with its batch; it has no leases to lose, and its payment row says what was paid.
        const requestSaved = this.#options.store.updateRequest(live.task.id, JSON.stringify(live.request));
        if (step.note !== undefined) setStatus(live.task, TaskState.TASK_STATE_WORKING, step.note);
        const saved = tasks.persist(live, step.note === undefined ? undefined : { events: [statusEvent(live.task)] });
        const [, change] = await Promise.all([requestSaved, saved]);
        if (step.note !== undefined) tasks.emit(live, change);
        // The agent's silence counts from now on, the payment's wait (and any approval) behind it.
        resends.watchSilence(live);
        // Published before it was paid: the agent has the request already.
        if (!live.publishedUnpaid) await this.#options.sender.sendEncoded(live, encodeEnvelope(live.request));
        resends.resendUntilAnswered(live);
        return;
      }
      case 'hold':
        setStatus(live.task, TaskState.TASK_STATE_INPUT_REQUIRED, step.note);
        resends.ignoreSilence(live);
        this.armApprovalTimer(live, this.#options.approvalTimeoutMs);
        tasks.emit(live, await tasks.persist(live, { events: [statusEvent(live.task)] }));
        return;
      case 'paying':
        setStatus(live.task, TaskState.TASK_STATE_WORKING, step.note);
        tasks.emit(live, await tasks.persist(live, { events: [statusEvent(live.task)] }));
        await this.payAndForward(live, true);
        return;
      case 'await-payment':
        setStatus(live.task, TaskState.TASK_STATE_INPUT_REQUIRED, step.request);
        resends.ignoreSilence(live);
        // Asked again after a payment that did not verify: the wait that started with the first request goes on.
        if (live.clientPaymentTimer === undefined) this.armClientPaymentTimer(live);
        tasks.emit(live, await tasks.persist(live, { events: [statusEvent(live.task)] }));
        return;
      case 'end':
        setStatus(live.task, END_STATES[step.state], step.note);
        // Published before a payment that did not happen: the agent is told to stop.
        if (live.publishedUnpaid) {
          await this.#options.sender
            .send(live, { type: 'cancel' })
            .catch((error: unknown) => this.#options.log(`cancelling unpaid task ${live.task.id}: ${String(error)}`));
        }
        await this.#options.finish(live);
        return;
    }
  }

  private armApprovalTimer(live: LiveTask, delayMs: number): void {
    const { tasks, paid } = this.#options;
    clearTimeout(live.approvalTimer);
    live.approvalTimer = setTimeout(
      () => {
        tasks.enqueue(live, 'the approval timing out', async () => {
          if (live.approvalTimer === undefined) return;
          const step = await paid.approvalExpired(pricedOf(live));
          if (!step) return;
          live.approvalTimer = undefined;
          await this.apply(live, step);
        });
      },
      Math.max(0, delayMs),
    );
    live.approvalTimer.unref();
  }

  private armClientPaymentTimer(live: LiveTask): void {
    const { tasks, paid } = this.#options;
    const timer = setTimeout(() => {
      tasks.enqueue(live, "the client's payment timing out", async () => {
        if (live.clientPaymentTimer !== timer || !tasks.holds(live)) return;
        live.clientPaymentTimer = undefined;
        await this.apply(live, paid.clientPaymentExpired(pricedOf(live)));
      });
    }, this.#options.approvalTimeoutMs);
    timer.unref();
    live.clientPaymentTimer = timer;
  }
}

/** What the paid flow is told of a task. */
function pricedOf(live: LiveTask): PricedTask {
  const receipt = receiptOf(live.task);
  const caller = logosMetadataOf(live.task)?.caller;
  return {
    taskId: live.task.id,
    agentId: live.agentId,
    price: live.request.lez_price,
    ...(receipt?.payee ? { payee: receipt.payee } : {}),
    ...(caller ? { caller } : {}),
    ...(receipt ? { receipt } : {}),
    ...(live.wireBinding.refunds ? { refunds: live.wireBinding.refunds } : {}),
  };
}
