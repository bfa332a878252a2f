/**
 * What the engine holds in memory for a task that is not finished: the task, its Logos side, its timers. A gateway
 * holds one for every open stream (bench/streams.ts), so what most tasks leave empty is not allocated: the replies
 * held for a gap in the sequence, and a set for more than one listener.
 */
import type { Task } from '@a2a-js/sdk';
import type { AgentEnvelope, TaskRequest } from '../logos/envelope.ts';
import { wireBindingOf } from '../logos/bindings/binding-of.ts';
import type { WireBinding } from '../logos/bindings/wire-binding.ts';
import type { Unsubscribe } from '../logos/transport.ts';
import type { ChangeListener } from './task-change.ts';
import { snapshotTask } from './task-events.ts';

/**
 * Who hears a task's changes: usually one (the stream or the blocking send that started it), so one is held as it
 * is, and a set only for more. Iterating goes over the listeners as they were, so one may leave meanwhile.
 */
export class ChangeListeners {
  private one: ChangeListener | undefined;
  private many: Set<ChangeListener> | undefined;

  add(listener: ChangeListener): void {
    if (this.many) this.many.add(listener);
    else if (this.one === undefined || this.one === listener) this.one = listener;
    else {
      this.many = new Set([this.one, listener]);
      this.one = undefined;
    }
  }

  delete(listener: ChangeListener): boolean {
    if (this.many) return this.many.delete(listener);
    if (this.one !== listener) return false;
    this.one = undefined;
    return true;
  }

  get size(): number {
    return this.many ? this.many.size : this.one ? 1 : 0;
  }

  [Symbol.iterator](): Iterator<ChangeListener> {
    return (this.many ? [...this.many] : this.one ? [this.one] : []).values();
  }
}

const SETTLED: Promise<void> = Promise.resolve();

export class LiveTask {
  readonly listeners = new ChangeListeners();
  /** Replies that came ahead of one still missing, by seq; undefined while there are none. */
  pending?: Map<number, AgentEnvelope>;
  /** The last of what changes this task, until it settles (see `queue`). */
  private tail: Promise<void> | undefined;
  unsubscribe?: Unsubscribe;
  /** The silence timer that runs is the paid task's last chance: the agent was asked once more already. */
  lastChance = false;
  gapTimer?: NodeJS.Timeout;
  /**
   * The next resend of the request while it goes unanswered, after the first (Retransmission.resendUntilAnswered):
   * cleared as the task leaves, which then need not stay in memory until the timer fires.
   */
  resendTimer?: NodeJS.Timeout;
  /** A cancel went out to the agent: the request is no longer sent again (it would start what was cancelled). */
  cancelSent?: boolean;
  /** Aborted when the caller cancels: a payment waiting for an unreachable sequencer stops waiting. */
  readonly cancelling = new AbortController();
  /** The last task_input sent, until the agent replies past the input-required it answered. */
  sentInput?: Uint8Array;

  readonly agentId: string;
  readonly agentAddress: string;
  /** The request went out before its payment, as the agent's binding wants (`paymentTiming: after-publishing`). */
  publishedUnpaid?: boolean;
  /** The task_request as sent (with its payment, once paid): resent when the agent may never have had it. */
  request: TaskRequest;
  approvalTimer?: NodeJS.Timeout;
  /** Set while the task waits for the client's own payment (client-pays extension). */
  clientPaymentTimer?: NodeJS.Timeout;
  task: Task;
  /** The task as last committed to the store: what readers get, so nobody sees a state not yet on disk. */
  committed: Task;
  lastSeq: number;
  /** The agent's wire binding (chosen as the task attaches): what goes to the agent and comes back passes it. */
  wireBinding: WireBinding = wireBindingOf('binding');

  /**
   * Serialises everything that changes this task: `change` runs after the change before it, and the answer settles
   * with it. `failed`, if given, hears its failure, which is then handled (nobody else need wait for the answer). A
   * task idle between replies (an open stream's, most of its life) keeps no promise of its own: a settled one is 150
   * bytes on Node 22, where the async hooks of AsyncLocalStorage add two fields to every promise (bench/streams.ts,
   * heap snapshots). Two promises a change: each also costs such a hook, and the reply path queues one per reply.
   */
  queue(change: () => Promise<void>, failed?: (error: unknown) => void): Promise<void> {
    const run = (this.tail ?? SETTLED).then(change);
    // Settles after `run` whatever it came to, and never rejects: what the next change waits for.
    const tail: Promise<void> = run.then(
      () => this.release(tail),
      (error: unknown) => {
        this.release(tail);
        failed?.(error);
      },
    );
    this.tail = tail;
    return run;
  }

  private release(tail: Promise<void>): void {
    if (this.tail === tail) this.tail = undefined;
  }

  /** Holds a reply until the ones before it have come. */
  holdReply(seq: number, envelope: AgentEnvelope): void {
    (this.pending ??= new Map()).set(seq, envelope);
  }

  /** A held reply is applied: the map goes with the last one. */
  dropReply(seq: number): void {
    if (this.pending?.delete(seq) && this.pending.size === 0) this.pending = undefined;
  }

  constructor(agentId: string, task: Task, agentAddress: string, lastSeq: number, request: TaskRequest) {
    this.committed = snapshotTask(task);
    this.agentId = agentId;
    this.request = request;
    this.task = task;
    this.agentAddress = agentAddress;
    this.lastSeq = lastSeq;
  }
}
