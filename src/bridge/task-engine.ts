/**
 * The core of the gateway: A2A tasks driven by conversations with Logos agents. This class is the façade callers
 * use (the request handler, the gateway, the Worker); each concept it wires is a module of its own under `engine/`:
 *
 * - `live-tasks.ts`: the tasks run here, one change at a time, saved before anyone hears of it;
 * - `task-creation.ts` and `priced-retries.ts`: new tasks, and priced messages sent again joining the first;
 * - `task-commands.ts`: follow-ups, cancels and approvals (also those other replicas send);
 * - `agent-replies.ts`, `reply-sequencer.ts`, `apply-reply.ts`: the agent's replies, heard, put in order, applied;
 * - `agent-sender.ts` and `retransmission.ts`: what goes to the agent, and when it is said again or given up on;
 * - `paid-steps.ts` and `settlement.ts`: priced tasks paid, held or refunded, and ended tasks' money settled;
 * - `replica-ownership.ts`: which replica runs which task, on a database shared with others.
 *
 * What differs between the bindings agents speak is behind each agent's wire binding (`logos/bindings/`): nothing
 * here knows one. It never touches HTTP.
 *
 * Immutability rule that makes snapshots cheap: Message, Part and Artifact objects held by a task are never mutated
 * in place; a change replaces them. A snapshot therefore copies only the task and its arrays.
 */
import { uuidV7 } from '../uuid.ts';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { TaskRequest } from '../logos/envelope.ts';
import type { WireBinding } from '../logos/bindings/wire-binding.ts';
import type { LogosTransport } from '../logos/transport.ts';
import type { ReplicaStore } from '../store/replica-store.ts';
import type { StoredTask, TaskStore } from '../store/task-store.ts';
import { AgentReplies, type DropCounters } from './engine/agent-replies.ts';
import { AgentSender } from './engine/agent-sender.ts';
import { LiveTasks } from './engine/live-tasks.ts';
import { PaidSteps, unforwarded } from './engine/paid-steps.ts';
import { ReplicaOwnership } from './engine/replica-ownership.ts';
import { Retransmission } from './engine/retransmission.ts';
import { Settlement } from './engine/settlement.ts';
import { TaskCommands } from './engine/task-commands.ts';
import { TaskCreation, type NewTask } from './engine/task-creation.ts';
import { LiveTask } from './live-task.ts';
import { isTerminal } from './mapping.ts';
import { PaidTasks, type AdmitAhead } from './paid-tasks.ts';
import type { ChangeListener } from './task-change.ts';
import { statusEvent } from './task-events.ts';
import { receiptOf } from './task-metadata.ts';
import type { TaskPayments } from './task-payments.ts';

export interface EngineOptions {
  store: TaskStore;
  transport: LogosTransport;
  /** A task submitted or working fails when the agent has been silent this long. */
  agentTimeoutMs: number;
  /** How long CancelTask waits for the agent's `cancelled` before cancelling locally. */
  cancelTimeoutMs: number;
  /** How long a reply that arrived ahead of a missing one waits for the gap to fill. */
  reorderWaitMs?: number;
  maxEnvelopeBytes?: number;
  /** Paying agents; absent: priced skills are refused. */
  payments?: TaskPayments;
  /** How long a task above the spending limits waits for an operator before it fails. */
  approvalTimeoutMs?: number;
  /** Agents this gateway runs itself (its publications), asked before a new priced task of theirs is paid for. */
  admitAhead?: AdmitAhead;
  /** Hears every change of every task, after its commit (push notifications are sent from here). */
  onChange?: ChangeListener;
  /**
   * The wire binding the agent at an address speaks, as the card `agentId` says (binding-of.ts; default: this
   * binding's, for every agent).
   */
  bindingOf?: (agentAddress: string, agentId: string) => WireBinding;
  /** The id of a new task (default: a random UUID); on Workers the task's Durable Object has chosen it already. */
  newTaskId?: () => string;
  /**
   * Other replicas on the same database: each task is run by the replica holding its lease, its changes reach the
   * others' listeners, and their callers' commands reach it. Absent (one gateway): every task is run here.
   */
  replicas?: ReplicaStore;
  /**
   * How often the money of ended tasks is checked on chain again (besides at start): payments left in doubt, refunds
   * recorded missing. Absent: only at start.
   */
  refundRecheckMs?: number;
  log?: (message: string) => void;
}

export class TaskEngine {
  /** The tasks this engine runs, each changed one change at a time. */
  private readonly live: LiveTasks;
  /** Hears the agents' replies and applies them in order. */
  private readonly replies: AgentReplies;
  private readonly options: Required<
    Omit<EngineOptions, 'log' | 'payments' | 'onChange' | 'bindingOf' | 'replicas' | 'refundRecheckMs' | 'admitAhead'>
  > &
    Pick<EngineOptions, 'log' | 'payments' | 'onChange' | 'bindingOf' | 'replicas' | 'refundRecheckMs' | 'admitAhead'>;
  private stopDirect?: () => void;
  /** Which replica runs which task, when on a database shared with others. */
  private readonly replicas?: ReplicaOwnership;
  /** The paid-task flow (gate, approval, client payment, refunds): it decides, `paidSteps` applies. */
  private readonly paid: PaidTasks;
  private readonly paidSteps: PaidSteps;
  /** Settles the money of ended tasks with the chain. */
  private readonly settlement: Settlement;
  /** Follow-ups, cancels and approvals. */
  private readonly commands: TaskCommands;
  /** New tasks, and priced messages sent again. */
  private readonly creation: TaskCreation;
  /** Sends the agents envelopes, in each one's wire binding. */
  private readonly sender: AgentSender;
  /** Speaks to agents again unasked, and gives up on silent ones. */
  private readonly resends: Retransmission;

  constructor(options: EngineOptions) {
    this.options = {
      reorderWaitMs: 2_000,
      // A request goes to the agent in one message.
      maxEnvelopeBytes: options.transport.maxPayloadBytes,
      approvalTimeoutMs: 3_600_000,
      newTaskId: () => uuidV7(),
      ...options,
    };
    this.paid = new PaidTasks(this.options.payments, this.options.approvalTimeoutMs, this.options.admitAhead);
    const log = (message: string) => this.log(message);
    this.sender = new AgentSender(this.options.transport, this.options.maxEnvelopeBytes);
    this.live = new LiveTasks({
      store: this.options.store,
      ...(this.options.onChange ? { onChange: this.options.onChange } : {}),
      sharesChanges: options.replicas !== undefined,
      leaseLost: (live) => this.replicas?.letGo(live),
      log,
    });
    this.resends = new Retransmission({
      tasks: this.live,
      sender: this.sender,
      agentTimeoutMs: this.options.agentTimeoutMs,
      finish: (live) => this.finishLocally(live),
      log,
    });
    this.replies = new AgentReplies({
      transport: this.options.transport,
      tasks: this.live,
      maxEnvelopeBytes: this.options.maxEnvelopeBytes,
      reorderWaitMs: this.options.reorderWaitMs,
      ...(this.options.bindingOf ? { bindingOf: this.options.bindingOf } : {}),
      resends: this.resends,
      resend: (live, payload) => this.sender.sendEncoded(live, payload),
      settleRefund: (live, envelope) => this.paidSteps.settleRefund(live, envelope),
      retire: (live) => this.retire(live),
      log,
    });
    if (options.replicas) {
      this.replicas = new ReplicaOwnership({
        replicas: options.replicas,
        cancelTimeoutMs: this.options.cancelTimeoutMs,
        tasks: this.live,
        store: this.options.store,
        resume: (stored) => this.resume(stored),
        detach: (live) => this.detach(live),
        log,
      });
    }
    this.paidSteps = new PaidSteps({
      paid: this.paid,
      tasks: this.live,
      store: this.options.store,
      sender: this.sender,
      resends: this.resends,
      approvalTimeoutMs: this.options.approvalTimeoutMs,
      finish: (live) => this.finishLocally(live),
      log,
    });
    this.commands = new TaskCommands({
      tasks: this.live,
      ...(this.replicas ? { replicas: this.replicas } : {}),
      paid: this.paid,
      paidSteps: this.paidSteps,
      sender: this.sender,
      resends: this.resends,
      cancelTimeoutMs: this.options.cancelTimeoutMs,
      read: (agentId, taskId) => this.getTask(agentId, taskId),
      unlisten: (taskId, listener) => this.unlisten(taskId, listener),
      finish: (live) => this.finishLocally(live),
    });
    this.creation = new TaskCreation({
      tasks: this.live,
      read: (agentId, taskId) => this.getTask(agentId, taskId),
      store: this.options.store,
      newTaskId: this.options.newTaskId,
      sender: this.sender,
      attach: (live) => this.replies.attach(live),
      ...(this.replicas ? { replicas: this.replicas } : {}),
      paidSteps: this.paidSteps,
      resends: this.resends,
      finish: (live) => this.finishLocally(live),
    });
    const replicas = this.replicas;
    this.settlement = new Settlement({
      paid: this.paid,
      store: this.options.store,
      isLive: (taskId) => this.live.has(taskId),
      ...(replicas ? { leasedElsewhere: () => replicas.leasedElsewhere() } : {}),
      log,
    });
  }

  /** Picks up every task that was still running when the gateway last stopped. */
  async start(): Promise<void> {
    // Agents of some wire bindings answer 1:1 (`directReplyTaskId`); this binding's agents never send here.
    this.stopDirect = this.options.transport.onDirect((payload, { sender }) =>
      this.replies.hearDirect(payload, sender),
    );
    // With replicas, only the tasks no live replica holds; alone, every unfinished one.
    if (this.replicas) await this.replicas.start((taskId, command, again) => this.commands.run(taskId, command, again));
    else for (const stored of await this.options.store.listActive()) await this.resume(stored);
    this.settlement.start(this.options.payments ? this.options.refundRecheckMs : undefined);
  }

  /** Stops listening; unfinished tasks stay in the store and resume at the next start. */
  async stop(): Promise<void> {
    this.stopDirect?.();
    this.settlement.stop();
    for (const live of this.live.values()) this.detach(live);
    this.live.clear();
    await this.replicas?.stop();
  }

  /** The operator's decision on a task held above the spending limits. False when no such task waits. */
  decideApproval(taskId: string, approve: boolean): Promise<boolean> {
    return this.commands.decideApproval(taskId, approve);
  }

  /** A caller's message on an existing task (TaskCommands.followUp). Resolves with the task as it then stands. */
  followUp(
    agentId: string,
    taskId: string,
    message: Message,
    options: { params: () => Record<string, unknown>; listener?: ChangeListener; attach?: () => Promise<unknown> },
  ): Promise<Task> {
    return this.commands.followUp(agentId, taskId, message, options);
  }

  /** Asks the agent to cancel, and resolves with the task once cancelled or given up on (TaskCommands.cancel). */
  cancel(agentId: string, taskId: string): Promise<Task> {
    return this.commands.cancel(agentId, taskId);
  }

  /** Counters of replies the engine refused, by reason. */
  get dropped(): DropCounters {
    return this.replies.dropped;
  }

  get activeTaskCount(): number {
    return this.live.size;
  }

  /** The task if this agent owns it: live first, else from the store. */
  async getTask(agentId: string, taskId: string): Promise<Task | undefined> {
    const live = this.live.get(taskId);
    if (live) return live.agentId === agentId ? live.committed : undefined;
    return (await this.options.store.get(agentId, taskId))?.task;
  }

  /**
   * Creates the task, records it, and sends the task_request. The listener, if any, is attached before the request
   * leaves so it cannot miss the first reply. Returns the task as submitted, once it is on disk.
   */
  createTask(input: NewTask): Promise<Task> {
    return this.creation.create(input);
  }

  /**
   * Listens to a live task. Returns undefined when the task is not live (finished, unknown or another agent's);
   * the caller then reads it from the store.
   */
  listen(agentId: string, taskId: string, listener: ChangeListener): { task: Task; stop: () => void } | undefined {
    const live = this.live.get(taskId);
    if (!live || live.agentId !== agentId) return undefined;
    live.listeners.add(listener);
    return { task: live.committed, stop: () => live.listeners.delete(listener) };
  }

  /**
   * Like `listen`, and also for a task another replica runs: its changes come through the database. Undefined when
   * the task is finished or unknown.
   */
  async follow(
    agentId: string,
    taskId: string,
    listener: ChangeListener,
  ): Promise<{ task: Task; stop: () => void } | undefined> {
    const here = this.listen(agentId, taskId, listener);
    if (here || !(await this.runsElsewhere(agentId, taskId))) return here;
    // The task as the follow begins: every change after it is heard, none it holds.
    const stored = await this.replicas!.follow(taskId, listener);
    const stop = () => this.unlisten(taskId, listener);
    if (!stored || stored.agentId !== agentId || isTerminal(stored.task.status?.state)) {
      stop();
      return undefined;
    }
    return { task: stored.task, stop };
  }

  unlisten(taskId: string, listener: ChangeListener): void {
    this.live.get(taskId)?.listeners.delete(listener);
    this.replicas?.unfollow(listener);
  }

  /** A task that runs on another replica: unfinished, not live here, on a database shared with others. */
  private async runsElsewhere(agentId: string, taskId: string): Promise<boolean> {
    return (await this.replicas?.runsElsewhere(agentId, taskId)) ?? false;
  }

  isLive(agentId: string, taskId: string): boolean {
    return this.live.get(taskId)?.agentId === agentId;
  }

  /** Whether a task running here waits on the agent at `address` (the directory keeps such an agent listed). */
  runsTaskAt(address: string): boolean {
    for (const live of this.live.values()) if (live.agentAddress === address) return true;
    return false;
  }

  /** Whether the task is still running, here or (with replicas) on another replica. */
  async isRunning(agentId: string, taskId: string): Promise<boolean> {
    return this.isLive(agentId, taskId) || (await this.runsElsewhere(agentId, taskId));
  }

  // --- a task's life here: picked up, asked about, ended ------------------------------------------------------

  /** A stored task runs here again, from where it stood: held, waiting for a payment, being paid, or at its agent. */
  private async resume(stored: StoredTask): Promise<void> {
    const request = JSON.parse(stored.link.request) as TaskRequest;
    const live = new LiveTask(stored.agentId, stored.task, stored.link.agentAddress, stored.link.lastSeq, request);
    this.replies.attach(live);
    const approval = await this.paid.approval(live.task.id);
    if (approval?.status === 'pending') {
      this.paidSteps.awaitApproval(live, approval.createdAt);
      return;
    }
    if (receiptOf(live.task)?.status === 'awaiting-payment') {
      // Still waiting for the client's own payment: wait again (a full period).
      this.live.enqueue(live, 'asking the client to pay', () => this.paidSteps.askClientToPay(live));
      return;
    }
    if (unforwarded(live)) {
      // Stopped between recording the payment and forwarding the task: finish the payment (exactly once), go on.
      this.live.enqueue(live, 'paying and forwarding', () =>
        this.paidSteps.payAndForward(live, approval?.status === 'approved'),
      );
      return;
    }
    // Asked a few times: this gateway's node has just started, and its first question can be lost while it joins.
    this.resends.askAfterRestart(live);
  }

  /**
   * The agent at `agentAddress` restarted (it announced a new instance): ask it about each of its live tasks. One
   * it lost answers `unknown_task` and fails at once, instead of after the silence timeout.
   */
  agentRestarted(agentAddress: string): void {
    for (const live of this.live.values()) {
      // Not yet forwarded (held for approval, or being paid): there is nothing to ask the agent about yet.
      if (live.agentAddress === agentAddress && !unforwarded(live)) this.resends.askAfterRestart(live);
    }
  }

  /** Stops hearing the task's agent, and its timers. */
  private detach(live: LiveTask): void {
    live.unsubscribe?.();
    clearTimeout(live.approvalTimer);
    clearTimeout(live.clientPaymentTimer);
    this.resends.ignoreSilence(live);
    clearTimeout(live.gapTimer);
    this.resends.stopResending(live);
  }

  /** The task reached a terminal state: stop listening to the agent. Listeners get this last change, then go. */
  private retire(live: LiveTask): void {
    this.detach(live);
    this.live.delete(live);
    // Its lease ended with the terminal write.
    this.replicas?.released(live.task.id);
  }

  /** Ends the task here as it stands: its refund settled, saved, no longer live, and then told. */
  private async finishLocally(live: LiveTask): Promise<void> {
    if (live.task.status?.state !== TaskState.TASK_STATE_COMPLETED) await this.paidSteps.settleRefund(live, undefined);
    const change = await this.live.persist(live, { events: [statusEvent(live.task)] });
    this.retire(live);
    this.live.emit(live, change);
  }

  private log(message: string): void {
    (this.options.log ?? console.warn)(`[engine] ${message}`);
  }
}
