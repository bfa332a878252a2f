/**
 * What callers and operators do to a running task, decided here and nowhere else: a follow-up (the client's own
 * payment, or input the task waits for), a cancel, an operator's approval. A task another replica runs gets the
 * command there (replica-ownership.ts); `run` runs the commands other replicas send for the tasks run here.
 */
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { GatewayEnvelopeInput } from '../../logos/envelope.ts';
import { fittingText } from '../../logos/message-text.ts';
import { CLIENT_PAYMENT_PAYLOAD, clientPaymentOf } from '../client-pays.ts';
import type { LiveTask } from '../live-task.ts';
import { isInterrupted, isTerminal, statusOf, userMessageJson, type SkillCall } from '../mapping.ts';
import type { PaidTasks } from '../paid-tasks.ts';
import type { TaskCommand } from '../replica-messages.ts';
import type { ChangeListener } from '../task-change.ts';
import { logosMetadataOf } from '../task-metadata.ts';
import { catchUp, snapshotTask, stateName, statusEvent } from '../task-events.ts';
import type { AgentSender } from './agent-sender.ts';
import { setStatus } from './apply-reply.ts';
import type { LiveTasks } from './live-tasks.ts';
import { unforwarded, type PaidSteps } from './paid-steps.ts';
import type { ReplicaOwnership } from './replica-ownership.ts';
import type { Retransmission } from './retransmission.ts';

export interface TaskCommandsOptions {
  tasks: LiveTasks;
  /** The other replicas, when on a shared database. */
  replicas?: Pick<ReplicaOwnership, 'runsElsewhere' | 'follow' | 'forward'>;
  paid: Pick<PaidTasks, 'recordDecision' | 'approval'>;
  paidSteps: Pick<PaidSteps, 'decided' | 'acceptClientPayment'>;
  sender: Pick<AgentSender, 'envelope' | 'send' | 'sendEncoded' | 'assertFits' | 'maxEnvelopeBytes'>;
  resends: Pick<Retransmission, 'watchSilence' | 'keepCancelling'>;
  /** How long a cancel waits for the agent's `cancelled` before cancelling locally. */
  cancelTimeoutMs: number;
  /** The task if this agent owns it: live first, else from the store. */
  read: (agentId: string, taskId: string) => Promise<Task | undefined>;
  /** Stops a listener hearing of a task, here or on another replica. */
  unlisten: (taskId: string, listener: ChangeListener) => void;
  /** Ends a task here, as it stands (its refund settled, saved, no longer live, told). */
  finish: (live: LiveTask) => Promise<void>;
}

export class TaskCommands {
  readonly #options: TaskCommandsOptions;

  constructor(options: TaskCommandsOptions) {
    this.#options = options;
  }

  /**
   * A command another replica's caller sent to a task this replica runs; `again` when a replica that claimed it
   * before never answered (it died or lost the task, maybe after doing part of it): see runAgain.
   */
  async run(taskId: string, command: TaskCommand, again = false): Promise<Task | boolean> {
    // Ended here since the command was claimed (by a cancel, or the same message sent here at once): answered as the
    // task now stands, as a command whose first run never answered is.
    if (again || !this.#options.tasks.has(taskId)) return this.runAgain(taskId, command);
    switch (command.kind) {
      case 'follow-up':
        return this.followUp(command.agentId, taskId, command.message, { params: () => command.params });
      case 'cancel':
        return this.cancel(command.agentId, taskId);
      case 'approval':
        return this.decideApproval(taskId, command.approve);
    }
  }

  /**
   * A command whose first run may have done part of its work and never answered: its replica died (or lost the
   * task) after claiming it. Here it runs on the task's new owner, or, once the task has ended, on the replica whose
   * caller sent it. What the first run did is not done twice, and the caller gets the answer that run would have
   * given: an approval it recorded is not decided again, a cancel that took effect is not refused for the task's
   * having ended, a follow-up already in the task's history is not sent to the agent again.
   */
  private async runAgain(taskId: string, command: TaskCommand): Promise<Task | boolean> {
    const live = this.#options.tasks.get(taskId);
    if (command.kind === 'approval') {
      const recorded = (await this.#options.paid.approval(taskId))?.status;
      if (recorded === (command.approve ? 'approved' : 'rejected')) return true;
      return live ? this.decideApproval(taskId, command.approve) : false;
    }
    const task = await this.#options.read(command.agentId, taskId);
    if (!task) throw new TaskNotFoundError(`Task ${taskId} was not found.`);
    if (command.kind === 'cancel') {
      if (task.status?.state === TaskState.TASK_STATE_CANCELED) return task;
      if (isTerminal(task.status?.state) || !live)
        throw new TaskNotCancelableError(`Task ${taskId} is already ${stateName(task)} and cannot be cancelled.`);
      return this.cancel(command.agentId, taskId);
    }
    const { message } = command;
    // The first run recorded the input: the agent has it, or is asked about it (the new owner asks the agent where
    // it stands, and resends the input only if the agent still waits for it). Asked for input again meanwhile (the
    // agent never got it), the task takes it as a new one.
    const applied = task.history.some((earlier) => earlier.messageId === message.messageId);
    if (applied && task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      if (live && !live.sentInput && task.status?.state === TaskState.TASK_STATE_WORKING)
        live.sentInput = this.inputFor(live, message, command.params);
      return task;
    }
    if (!live)
      throw new UnsupportedOperationError(`Task ${taskId} is already ${stateName(task)}; start a new task instead.`);
    return this.followUp(command.agentId, taskId, message, { params: () => command.params });
  }

  /** Sends a command to the replica that runs the task; a task that ended with it unanswered is answered here. */
  private async forward(taskId: string, command: TaskCommand): Promise<Task | boolean> {
    const answer = await this.#options.replicas!.forward(taskId, command);
    return answer === 'ended' ? this.runAgain(taskId, command) : answer.result;
  }

  /**
   * Cancels a task held for an operator's approval, on its chain: the agent never heard of it, and nothing was paid.
   * False when the approval was decided first (the task is being paid, or has ended): the cancel goes on as for a
   * task being paid, and the caller is never told that nothing was charged for a task that is paid.
   */
  private async cancelHeld(live: LiveTask): Promise<boolean> {
    const { tasks, paid, paidSteps } = this.#options;
    let cancelled = false;
    await tasks.mutate(live, async () => {
      if (live.approvalTimer === undefined) return; // decided meanwhile, here
      if (!(await paid.recordDecision(live.task.id, false))) {
        // Decided before, by a step that has not reached this chain (a takeover's): that decision stands.
        await paidSteps.decided(live, (await paid.approval(live.task.id))?.status === 'approved');
        return;
      }
      clearTimeout(live.approvalTimer);
      live.approvalTimer = undefined;
      setStatus(
        live.task,
        TaskState.TASK_STATE_CANCELED,
        'Cancelled while waiting for payment approval; nothing was charged.',
      );
      await this.#options.finish(live);
      cancelled = true;
    });
    return cancelled;
  }

  /** The operator's decision on a task held above the spending limits. False when no such task waits. */
  async decideApproval(taskId: string, approve: boolean): Promise<boolean> {
    const live = this.#options.tasks.get(taskId);
    if (!live && this.#options.replicas) return (await this.forward(taskId, { kind: 'approval', approve })) === true;
    if (!live) return false;
    // Checked, recorded and carried out on the task's chain, in one step: a cancel of the held task (which records a
    // rejection) is decided before or after it, never between the record and the step (an approval recorded, then a
    // cancel that said nothing was charged, then a payment).
    let decided = false;
    await this.#options.tasks.mutate(live, async () => {
      if (live.approvalTimer === undefined || !(await this.#options.paid.recordDecision(taskId, approve))) return;
      decided = true;
      await this.#options.paidSteps.decided(live, approve);
    });
    return decided;
  }

  /**
   * A caller's message on an existing task, decided here and nowhere else: the client's own payment for a task
   * that waits for one (client-pays extension), or input for a task that waits for it; refused otherwise (ended,
   * held for an operator's approval, or not waiting for anything). `attach` runs once the task is known to take
   * messages, before the message is handled (a push config the send asked for is attached there). `params` are the
   * follow-up's skill params, asked for only when the message is input. Resolves with the task as it then stands.
   */
  async followUp(
    agentId: string,
    taskId: string,
    message: Message,
    options: { params: () => Record<string, unknown>; listener?: ChangeListener; attach?: () => Promise<unknown> },
  ): Promise<Task> {
    const task = await this.#options.read(agentId, taskId);
    if (!task) throw new TaskNotFoundError(`Task ${taskId} was not found.`);
    if (message.contextId && message.contextId !== task.contextId) {
      throw new RequestMalformedError(
        `message.contextId ${message.contextId} does not match task ${task.id}'s context ${task.contextId}.`,
      );
    }
    if (isTerminal(task.status?.state)) {
      throw new UnsupportedOperationError(`Task ${task.id} is already ${stateName(task)}; start a new task instead.`);
    }
    if (await this.#options.replicas?.runsElsewhere(agentId, taskId)) {
      await options.attach?.();
      const command = { kind: 'follow-up', agentId, message, params: options.params() } as const;
      const { listener } = options;
      if (listener) {
        // The task may have moved on since it was read (ended, even, by the same message sent to its owner at once):
        // the listener hears first where the feed it follows starts, or a blocking call would wait for nothing.
        const stored = await this.#options.replicas!.follow(taskId, listener);
        const missed = stored && catchUp(task, stored.task);
        if (missed) listener(missed);
      }
      try {
        return (await this.forward(taskId, command)) as Task;
      } catch (error) {
        // Refused: the caller's listener follows nothing.
        if (options.listener) this.#options.unlisten(taskId, options.listener);
        throw error;
      }
    }
    const live = this.#options.tasks.get(taskId);
    if (live?.approvalTimer !== undefined) {
      throw new UnsupportedOperationError(
        `Task ${task.id} waits for an operator to approve its payment; it takes no messages until then.`,
      );
    }
    await options.attach?.();
    if (live?.clientPaymentTimer !== undefined) {
      const payment = clientPaymentOf(message.metadata);
      if (!payment) {
        throw new RequestMalformedError(
          `Task ${task.id} waits for your payment: answer with metadata "${CLIENT_PAYMENT_PAYLOAD}": {"txHash": "<64 hex>", "from": "<your account>"}.`,
        );
      }
      await this.#options.tasks.mutate(live, async () => {
        if (live.clientPaymentTimer === undefined)
          throw new UnsupportedOperationError(`Task ${taskId} does not wait for a payment.`);
        if (options.listener) live.listeners.add(options.listener);
        live.task.history = [...live.task.history, { ...message, taskId, contextId: live.task.contextId }];
        await this.#options.paidSteps.acceptClientPayment(live, payment);
      });
    } else {
      // Ended since it was read (cancelled at once, say): said as it now stands, not as it stood.
      const ended = live ? undefined : await this.#options.read(agentId, taskId);
      if (ended && isTerminal(ended.status?.state)) {
        throw new UnsupportedOperationError(
          `Task ${task.id} is already ${stateName(ended)}; start a new task instead.`,
        );
      }
      if (!live || !isInterrupted(task.status?.state)) {
        throw new UnsupportedOperationError(
          `Task ${task.id} is ${stateName(task)}; it takes a new message only while input-required.`,
        );
      }
      if (live.wireBinding.inputRefusal !== undefined) {
        throw new UnsupportedOperationError(`Task ${task.id}'s agent ${live.wireBinding.inputRefusal}.`);
      }
      const call = { skill: logosMetadataOf(task)?.skill ?? '', params: options.params() };
      await this.provideInput(live, message, call, options.listener);
    }
    return (await this.#options.read(agentId, taskId)) ?? task;
  }

  /** Forwards the caller's follow-up to a task waiting for input; the task is working again at once. */
  private async provideInput(
    live: LiveTask,
    message: Message,
    call: SkillCall,
    listener?: ChangeListener,
  ): Promise<void> {
    const taskId = live.task.id;
    const userMessage: Message = { ...message, taskId, contextId: live.task.contextId };
    const input = this.inputFor(live, userMessage, call.params);
    this.#options.sender.assertFits(input.byteLength);
    await this.#options.tasks.mutate(live, async () => {
      // The task may have ended (or moved on) while this waited its turn.
      if (!this.#options.tasks.holds(live) || !isInterrupted(live.task.status?.state)) {
        throw new UnsupportedOperationError(`Task ${taskId} no longer waits for input; it is ${stateName(live.task)}.`);
      }
      live.task.history = [...live.task.history, userMessage];
      live.task.status = statusOf(TaskState.TASK_STATE_WORKING);
      const change = await this.#options.tasks.persist(live, { events: [statusEvent(live.task)] });
      if (listener) live.listeners.add(listener);
      this.#options.tasks.emit(live, change);
      this.#options.resends.watchSilence(live);
      live.sentInput = input;
      await this.#options.sender.sendEncoded(live, input);
    });
  }

  /** The envelope that hands the agent a caller's input for the task. */
  private inputFor(live: LiveTask, message: Message, params: Record<string, unknown>): Uint8Array {
    const userMessage: Message = { ...message, taskId: live.task.id, contextId: live.task.contextId };
    return fittingText(
      this.#options.sender.envelope(live, {
        type: 'task_input',
        params,
        message: userMessageJson(userMessage),
      }) as Extract<GatewayEnvelopeInput, { type: 'task_input' }>,
      this.#options.sender.maxEnvelopeBytes,
    ).bytes;
  }

  /**
   * Asks the agent to cancel and waits for its `cancelled` (or any terminal reply). An agent that stays silent
   * past cancelTimeoutMs does not hold the caller: the task is cancelled locally with a note saying so, unless it is
   * paid (then it stays live until its agent answers, see keepCancelling).
   */
  async cancel(agentId: string, taskId: string): Promise<Task> {
    if (await this.#options.replicas?.runsElsewhere(agentId, taskId))
      return (await this.forward(taskId, { kind: 'cancel', agentId })) as Task;
    const live = this.#options.tasks.get(taskId);
    // Ended while this looked (another cancel, sent to this replica or another, came first): answered as it stands.
    if (!live || live.agentId !== agentId) return (await this.runAgain(taskId, { kind: 'cancel', agentId })) as Task;
    if (live.approvalTimer !== undefined) {
      // An approval on its way to the chain pays with this signal: a payment that has sent nothing yet stops.
      live.cancelling.abort();
      if (await this.cancelHeld(live)) return live.committed;
      // Approved first: paid and forwarded by now (cancelled at its agent below), or ended.
      if (!this.#options.tasks.holds(live)) return live.committed;
    }
    if (unforwarded(live)) {
      // Being paid right now: the money may already be moving. Let the payment finish and the task reach the agent,
      // then cancel it there, so the agent pays it back; a payment still waiting for the sequencer to answer has
      // sent nothing and stops waiting (the task ends cancelled).
      live.cancelling.abort();
      await this.#options.tasks.mutate(live, async () => undefined);
      if (!this.#options.tasks.has(taskId)) return live.committed;
      if (live.request.payment) await this.firstReply(live);
      // It may have ended meanwhile: then that is the answer.
      if (!this.#options.tasks.has(taskId)) return live.committed;
    }
    if (live.clientPaymentTimer !== undefined) {
      // Waiting for the client's payment: the agent never heard of it.
      await this.#options.tasks.mutate(live, async () => {
        clearTimeout(live.clientPaymentTimer);
        live.clientPaymentTimer = undefined;
        setStatus(live.task, TaskState.TASK_STATE_CANCELED, 'Cancelled before it was paid for; nothing was charged.');
        await this.#options.finish(live);
      });
      return live.committed;
    }
    const settled = new Promise<void>((resolve) => {
      const listener: ChangeListener = (change) => {
        if (isTerminal(change.task.status?.state)) {
          live.listeners.delete(listener);
          resolve();
        }
      };
      live.listeners.add(listener);
      const timer = setTimeout(() => {
        live.listeners.delete(listener);
        resolve();
      }, this.#options.cancelTimeoutMs);
      timer.unref();
    });
    live.cancelSent = true;
    await this.#options.sender.send(live, { type: 'cancel' });
    await settled;
    if (!isTerminal(live.task.status?.state) && live.request.payment) {
      // Paid: the money is with the agent, which may still be working (the cancel lost on a relay mesh still
      // forming, say). Ended here, its result or refund would go unheard; so the task stays live, the cancel is
      // repeated, and the agent's answer (cancelled with its refund, or its result) settles it.
      this.#options.resends.keepCancelling(live);
      return snapshotTask(live.task);
    }
    if (!isTerminal(live.task.status?.state)) {
      await this.#options.tasks.mutate(live, async () => {
        if (isTerminal(live.task.status?.state)) return;
        setStatus(
          live.task,
          TaskState.TASK_STATE_CANCELED,
          'Cancelled by the gateway; the agent did not confirm in time.',
        );
        await this.#options.finish(live);
      });
    }
    return snapshotTask(live.task);
  }

  /** Resolves at the agent's first reply to a task, or after the cancel timeout. */
  private firstReply(live: LiveTask): Promise<void> {
    if (live.lastSeq > 0 || !this.#options.tasks.holds(live)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        live.listeners.delete(listener);
        resolve();
      };
      const listener: ChangeListener = () => done();
      const timer = setTimeout(done, this.#options.cancelTimeoutMs);
      timer.unref();
      live.listeners.add(listener);
    });
  }
}
