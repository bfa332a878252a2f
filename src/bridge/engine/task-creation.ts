/**
 * A new task: recorded (durable before anyone hears of it), then sent to its agent; a priced one paid for (or held)
 * first, and a priced message sent again joining the task the first send created (priced-retries.ts).
 */
import { uuidV7 } from '../../uuid.ts';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { BINDING_VERSION, type TaskRequest } from '../../logos/envelope.ts';
import { fittingText } from '../../logos/message-text.ts';
import { newStatusKey } from '../../logos/status-key.ts';
import { addToLogContext } from '../../observability/log-context.ts';
import { handOver } from '../../observability/tracing.ts';
import type { StoredTask, TaskStore } from '../../store/task-store.ts';
import { LiveTask } from '../live-task.ts';
import { statusOf, userMessageJson, type SkillCall } from '../mapping.ts';
import type { ChangeListener } from '../task-change.ts';
import type { LogosMetadata, TaskReceipt } from '../task-metadata.ts';
import type { AgentSender } from './agent-sender.ts';
import type { PaidSteps } from './paid-steps.ts';
import { setStatus } from './apply-reply.ts';
import { joinEarlier, retriesSince, retryKeyOf, type Joining } from './priced-retries.ts';
import type { ReplicaOwnership } from './replica-ownership.ts';
import type { Retransmission } from './retransmission.ts';

/** What a caller's message that starts a task brings. */
export interface NewTask {
  agentId: string;
  agentAddress: string;
  message: Message;
  call: SkillCall;
  price: string;
  /** The agent's LEZ account (card `x-lez-identity`), needed when the price is above 0. */
  payee?: string;
  /** The API key the task was sent with: its budget is charged. */
  caller?: string;
  /** The client pays the agent itself (client-pays extension) instead of the gateway's wallet. */
  clientPays?: boolean;
  listener?: ChangeListener;
  /** Called with the task as submitted once it is on disk, before any payment: a stream can show it at once. */
  onRecorded?: (task: Task) => void;
  /** Called with the new task before its request leaves or any payment starts (push configs are attached here). */
  onCreated?: (task: Task) => Promise<unknown>;
  /**
   * Resolve once the task is on disk, leaving a priced task's payment to go on behind (SendMessage with
   * returnImmediately): a payment can wait on a slow sequencer for minutes. If it then throws, the task fails.
   */
  returnOnceRecorded?: boolean;
}

export interface TaskCreationOptions extends Joining {
  store: Pick<TaskStore, 'insert' | 'insertPriced'>;
  /** The id of a new task. */
  newTaskId: () => string;
  sender: Pick<AgentSender, 'address' | 'maxEnvelopeBytes' | 'assertFits' | 'sendEncoded'>;
  /** Makes the task live here: its agent's replies are heard from now on. */
  attach: (live: LiveTask) => void;
  replicas?: Pick<ReplicaOwnership, 'follow' | 'unfollow' | 'leases'>;
  paidSteps: Pick<PaidSteps, 'payNew' | 'askClientToPay' | 'failedBehind'>;
  resends: Pick<Retransmission, 'resendUntilAnswered'>;
  /** Ends a task here as it stands: saved, no longer live, then told (a creation step that failed). */
  finish: (live: LiveTask) => Promise<void>;
}

export class TaskCreation {
  readonly #options: TaskCreationOptions;

  constructor(options: TaskCreationOptions) {
    this.#options = options;
  }

  /**
   * Creates the task, records it, and sends the task_request. The listener, if any, is attached before the request
   * leaves so it cannot miss the first reply. Returns the task as submitted, once it is on disk.
   */
  async create(input: NewTask): Promise<Task> {
    const priced = BigInt(input.price) > 0n;
    const taskId = this.#options.newTaskId();
    const contextId = input.message.contextId || uuidV7();
    const userMessage: Message = { ...input.message, taskId, contextId };
    // What only some tasks have is set only on them (a conditional spread costs an object even when empty).
    const logos: LogosMetadata = { agentId: input.agentId, skill: input.call.skill, lezPrice: input.price };
    if (input.caller) logos.caller = input.caller;
    // A priced task says from the start whom it pays; a restarted gateway reads the payee back from here.
    const receipt: TaskReceipt | undefined = priced
      ? {
          amount: input.price,
          ...(input.payee ? { payee: input.payee } : {}),
          ...(input.caller ? { caller: input.caller } : {}),
          status: 'pending',
        }
      : undefined;
    const task: Task = {
      id: taskId,
      contextId,
      status: statusOf(TaskState.TASK_STATE_SUBMITTED),
      artifacts: [],
      history: [userMessage],
      metadata: receipt ? { logos, lez: receipt } : { logos },
    };
    addToLogContext({ taskId });
    const traceparent = handOver('bridge task_request', { 'a2a.task.id': taskId, 'a2a.agent.id': input.agentId });
    const request: TaskRequest = {
      ...(traceparent ? { traceparent } : {}),
      v: BINDING_VERSION,
      type: 'task_request',
      id: uuidV7(),
      task_id: taskId,
      from: this.#options.sender.address,
      to: input.agentAddress,
      status_key: newStatusKey(),
      context_id: contextId,
      skill: input.call.skill,
      params: input.call.params,
      lez_price: input.price,
      message: userMessageJson(userMessage),
    };
    // Encoded once: its size is checked here and, for a task without a price, the same bytes are sent below.
    const fitted = fittingText(request, this.#options.sender.maxEnvelopeBytes);
    const { json: requestJson, bytes: requestBytes } = fitted;
    this.#options.sender.assertFits(requestBytes.byteLength);
    const live = new LiveTask(input.agentId, task, input.agentAddress, 0, fitted.envelope);
    if (input.listener) live.listeners.add(input.listener);
    // The record is queued before the request leaves and committed before anyone hears of the task: the caller
    // awaits it here, and every change the agent's replies make is emitted only after its own commit. A task that
    // finishes within one store batch is thus written once. What is recorded is the snapshot the live task counts
    // as committed (one copy, not two).
    const snapshot = live.committed;
    const record: StoredTask = {
      agentId: input.agentId,
      task: snapshot,
      link: { agentAddress: input.agentAddress, lastSeq: 0, request: requestJson },
    };
    if (input.caller) record.owner = input.caller;
    if (priced) {
      // The same message to the same agent from the same caller (API key) is a retry: the store decides which of
      // several sent at once, here or on other replicas, creates the task; the others join it instead of paying.
      const retryKey = retryKeyOf(input.agentId, input.message, input.caller);
      const inserted = await this.#options.store.insertPriced({ ...record, retryKey }, retriesSince());
      if (inserted.kind === 'retry') return joinEarlier(this.#options, input.agentId, inserted.taskId, input.listener);
      // Live at once, before anything else awaits: an identical message arriving next finds it here.
      this.#options.attach(live);
      this.#options.replicas?.leases(taskId);
      if (input.onCreated) await this.created(live, input.onCreated);
      input.onRecorded?.(snapshot);
      // Recorded first, then paid (or held for approval), and only then forwarded.
      const paying = this.#options.tasks.mutate(live, () =>
        input.clientPays ? this.#options.paidSteps.askClientToPay(live) : this.#options.paidSteps.payNew(live),
      );
      if (input.returnOnceRecorded) {
        paying.catch((error: unknown) => this.#options.paidSteps.failedBehind(live, error));
        return snapshot;
      }
      await paying;
      return snapshot;
    }
    // On a store shared by replicas, the insert leases the task to this replica; a task that ended before it was
    // recorded has its lease ended by that same write. Without replicas there is nothing to note (nor a step to pay).
    const inserted = this.#options.store.insert(record);
    const replicas = this.#options.replicas;
    const recorded = replicas
      ? inserted.then(() => {
          if (this.#options.tasks.holds(live)) replicas.leases(taskId);
        })
      : inserted;
    // Awaited only when there is one: awaiting nothing still costs a promise and a turn.
    if (input.onCreated) {
      // Awaited below, unless the creation step fails first: then a failed insert must not go unhandled.
      recorded.catch(() => undefined);
      await this.created(live, input.onCreated);
    }
    this.#options.attach(live);
    try {
      await this.#options.sender.sendEncoded(live, requestBytes);
      this.#options.resends.resendUntilAnswered(live);
    } finally {
      await recorded;
    }
    input.onRecorded?.(snapshot);
    return snapshot;
  }

  /**
   * Runs the new task's creation step. If it fails (its webhook cannot be saved), the task ends failed before its
   * request leaves, and the caller hears why: recorded and not ended, it would wait for an agent never asked.
   */
  private async created(live: LiveTask, onCreated: (task: Task) => Promise<unknown>): Promise<void> {
    try {
      await onCreated(live.committed);
    } catch (error) {
      await this.#options.tasks.mutate(live, async () => {
        setStatus(
          live.task,
          TaskState.TASK_STATE_FAILED,
          'Its webhook could not be saved, so the agent was not asked.',
        );
        await this.#options.finish(live);
      });
      throw error;
    }
  }
}
