/**
 * Hearing a task's agent: subscribing to its replies the way its wire binding says, refusing what is not the task's
 * agent's (counted by reason), and applying the rest in order (reply-sequencer.ts), each change saved before it is
 * told. What a reply does to the task is apply-reply.ts's.
 */
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { wireBindingOf, WIRE_BINDINGS } from '../../logos/bindings/binding-of.ts';
import type { WireBinding } from '../../logos/bindings/wire-binding.ts';
import type { AgentEnvelope } from '../../logos/envelope.ts';
import type { LogosTransport } from '../../logos/transport.ts';
import { contextWithLog } from '../../observability/log-context.ts';
import { contextFrom, inSpan, SpanKind } from '../../observability/tracing.ts';
import type { LiveTask } from '../live-task.ts';
import { isInterrupted, isTerminal } from '../mapping.ts';
import { directAnswer, statusEvent } from '../task-events.ts';
import { applyReply, setStatus } from './apply-reply.ts';
import type { LiveTasks } from './live-tasks.ts';
import { ReplySequencer } from './reply-sequencer.ts';
import type { Retransmission } from './retransmission.ts';

/** Counters of replies the engine refused, by reason. */
export interface DropCounters {
  wrongSender: number;
  undecodable: number;
  wrongTask: number;
  duplicate: number;
}

export interface AgentRepliesOptions {
  transport: Pick<LogosTransport, 'subscribe'>;
  tasks: LiveTasks;
  maxEnvelopeBytes: number;
  /** How long a reply that arrived ahead of a missing one waits for the gap to fill. */
  reorderWaitMs: number;
  /** The wire binding the agent at an address speaks, as its card `agentId` says (task-engine.ts). */
  bindingOf?: (agentAddress: string, agentId: string) => WireBinding;
  /** Watches the agent's silence, and asks it again. */
  resends: Pick<Retransmission, 'watchSilence' | 'ignoreSilence' | 'askAgain'>;
  /** Sends bytes the engine sent before again, as they were. */
  resend: (live: LiveTask, payload: Uint8Array) => Promise<void>;
  /** A paid task ended without completing: its receipt says whether the agent paid the money back. */
  settleRefund: (live: LiveTask, envelope: AgentEnvelope) => Promise<void>;
  /** The task ended: it stops being live. */
  retire: (live: LiveTask) => void;
  log: (message: string) => void;
}

export class AgentReplies {
  readonly dropped: DropCounters = { wrongSender: 0, undecodable: 0, wrongTask: 0, duplicate: 0 };
  readonly #options: AgentRepliesOptions;
  readonly #sequencer: ReplySequencer;

  constructor(options: AgentRepliesOptions) {
    this.#options = options;
    this.#sequencer = new ReplySequencer({
      tasks: options.tasks,
      reorderWaitMs: options.reorderWaitMs,
      apply: (live, envelope) => this.apply(live, envelope),
      log: options.log,
    });
  }

  /** The task is live here from now on: its agent's replies are heard, and its silence counts. */
  attach(live: LiveTask): void {
    const { tasks, transport, bindingOf } = this.#options;
    tasks.add(live);
    live.wireBinding = bindingOf?.(live.agentAddress, live.agentId) ?? wireBindingOf('binding');
    const { topic, options } = live.wireBinding.statusTopic(live.request);
    live.unsubscribe = (live.wireBinding.peer?.node ?? transport).subscribe(
      topic,
      (payload, { sender }) => this.hear(live, payload, sender),
      options,
    );
    if (!isInterrupted(live.task.status?.state)) this.#options.resends.watchSilence(live);
  }

  /** A 1:1 message: a reply, for one of the live tasks of an agent whose binding answers 1:1. */
  hearDirect(payload: Uint8Array, sender: string | undefined): void {
    for (const binding of WIRE_BINDINGS) {
      const taskId = binding.directReplyTaskId?.(payload, this.#options.maxEnvelopeBytes);
      const live = taskId === undefined ? undefined : this.#options.tasks.get(taskId);
      if (live?.wireBinding === binding) {
        this.hear(live, payload, sender);
        return;
      }
    }
    this.dropped.wrongTask++;
  }

  private hear(live: LiveTask, payload: Uint8Array, sender: string | undefined): void {
    // Only the task's agent speaks for it; a transport that cannot tell (sender undefined) is trusted as is.
    if (sender !== undefined && sender !== live.agentAddress) {
      this.dropped.wrongSender++;
      return;
    }
    // The task's log fields and its span are entered as one async context, not two nested ones.
    this.#options.tasks.enqueue(live, 'a reply', () =>
      inSpan(
        'logos receive',
        {
          kind: SpanKind.CONSUMER,
          parent: contextFrom(live.request, contextWithLog({ taskId: live.task.id, agentId: live.agentId })),
        },
        () => this.receive(live, payload, sender),
      ),
    );
  }

  /**
   * Not async: a reply in sequence, the usual one, is the sequencer's promise as it is (an async frame and its await
   * would add two promises, each with its async hook, to every reply).
   */
  private receive(live: LiveTask, payload: Uint8Array, sender: string | undefined): Promise<void> {
    const { tasks, resends } = this.#options;
    if (!tasks.holds(live)) return Promise.resolve(); // finished meanwhile
    const decoded = live.wireBinding.decodeReply(
      payload,
      this.#options.maxEnvelopeBytes,
      live.lastSeq + 1,
      live.request,
    );
    if (!decoded.ok) {
      this.dropped.undecodable++;
      return Promise.resolve();
    }
    const envelope = decoded.envelope;
    if (sender === undefined && !live.wireBinding.acceptsUnauthenticated(envelope)) {
      this.dropped.wrongSender++;
      return Promise.resolve();
    }
    if (envelope.task_id !== live.task.id) {
      this.dropped.wrongTask++;
      return Promise.resolve();
    }
    // Any well-formed reply, even a repeat, proves the agent is alive.
    if (!isInterrupted(live.task.status?.state)) resends.watchSilence(live);
    const lostTask = envelope.type === 'task_result' && envelope.error?.code === 'unknown_task';
    if (lostTask && live.lastSeq === 0 && live.request.payment && live.wireBinding.replaysRepeatedRequest) {
      // A paid task the agent never heard of (the request was lost, or came before a restart it never noted): it
      // holds the money and knows nothing of it. The request goes again; the agent runs it, or, if it took this
      // payment before, refuses it, and its refund is then on chain. So also after a cancel (unlike the resends of
      // a request no reply answered, resendUntilAnswered): only the request tells the agent of the money, and the
      // repeated cancel that follows (keepCancelling) then stops the run and has the payment refunded.
      resends.askAgain(live);
      return Promise.resolve();
    }
    if (lostTask && envelope.seq <= live.lastSeq) {
      // The agent lost the task (it restarted) and numbers its answer after the question, not after what it sent
      // before: it ends the task whatever its seq, or the task would wait on an agent that will never answer it.
      return this.#sequencer.offerAsNext(live, envelope);
    }
    if (this.#sequencer.isRepeat(live, envelope)) return this.repeated(live, envelope);
    return this.#sequencer.offer(live, envelope);
  }

  /** A reply had before: dropped, unless it shows that what we sent it was lost. */
  private async repeated(live: LiveTask, envelope: AgentEnvelope): Promise<void> {
    const { tasks, resends } = this.#options;
    this.dropped.duplicate++;
    // The agent still says it waits for input that we forwarded: the task_input was lost on the way.
    const stillWaiting =
      envelope.seq === live.lastSeq && envelope.type === 'task_status' && envelope.state === 'input-required';
    if (stillWaiting && live.sentInput) await this.#options.resend(live, live.sentInput);
    else if (stillWaiting && live.task.status?.state === TaskState.TASK_STATE_WORKING) {
      // The input was lost before a restart, and with it the envelope to resend: ask the caller again.
      setStatus(
        live.task,
        TaskState.TASK_STATE_INPUT_REQUIRED,
        envelope.message ?? 'The agent did not receive the input; please send it again.',
      );
      resends.ignoreSilence(live);
      tasks.emit(live, await tasks.persist(live, { events: [statusEvent(live.task)] }));
    }
  }

  /**
   * The next reply in sequence: the task changes, is saved, and then its listeners hear of it. Steps on the store's
   * promise rather than async frames: every reply comes through here (a throw still reaches the sequencer, whose
   * drain awaits this).
   */
  private apply(live: LiveTask, envelope: AgentEnvelope): Promise<void> {
    live.sentInput = undefined;
    const { task } = live;
    const events = applyReply(task, envelope);
    if (isTerminal(task.status?.state) && task.status?.state !== TaskState.TASK_STATE_COMPLETED)
      return this.#options.settleRefund(live, envelope).then(() => this.save(live, envelope, events));
    return this.save(live, envelope, events);
  }

  /** Saves what a reply changed, then moves the task's silence timer on (or retires it), then tells its listeners. */
  private save(live: LiveTask, envelope: AgentEnvelope, events: StreamResponse[]): Promise<void> {
    const { tasks, resends } = this.#options;
    const { task } = live;
    // An agent that answered a new task with a message (`as_message`): the blocking send returns that message.
    const answer = envelope.type === 'task_result' && envelope.as_message ? directAnswer(task) : undefined;
    return tasks.persist(live, { events, ...(answer ? { directAnswer: answer } : {}) }, (change) => {
      if (isTerminal(task.status?.state)) this.#options.retire(live);
      else if (isInterrupted(task.status?.state)) resends.ignoreSilence(live);
      else resends.watchSilence(live); // working again, perhaps after an interruption the agent ended itself
      tasks.emit(live, change);
    });
  }
}
