/** What the engine holds in memory for a task that is not finished: the task, its Logos side, its timers. */
import type { Task } from '@a2a-js/sdk';
import type { AgentEnvelope, TaskRequest } from '../logos/envelope.ts';
import type { Dialect } from '../logos/seed-dialect.ts';
import type { Unsubscribe } from '../logos/transport.ts';
import type { ChangeListener } from './task-change.ts';
import { snapshotTask } from './task-events.ts';

export class LiveTask {
  readonly listeners = new Set<ChangeListener>();
  readonly pending = new Map<number, AgentEnvelope>();
  /** Serialises everything that changes this task. */
  chain: Promise<void> = Promise.resolve();
  unsubscribe?: Unsubscribe;
  silenceTimer?: NodeJS.Timeout;
  gapTimer?: NodeJS.Timeout;
  /** The last task_input sent, until the agent replies past the input-required it answered. */
  sentInput?: Uint8Array;

  readonly agentId: string;
  readonly agentAddress: string;
  /** The task_request as sent (with its payment, once paid): resent when the agent may never have had it. */
  request: TaskRequest;
  approvalTimer?: NodeJS.Timeout;
  /** Set while the task waits for the client's own payment (client-pays extension). */
  clientPaymentTimer?: NodeJS.Timeout;
  task: Task;
  /** The task as last committed to the store: what readers get, so nobody sees a state not yet on disk. */
  committed: Task;
  lastSeq: number;
  /** What the agent speaks: this binding, or the seed's dialect (its requests and replies are mapped). */
  dialect: Dialect = 'binding';

  constructor(agentId: string, task: Task, agentAddress: string, lastSeq: number, request: TaskRequest) {
    this.committed = snapshotTask(task);
    this.agentId = agentId;
    this.request = request;
    this.task = task;
    this.agentAddress = agentAddress;
    this.lastSeq = lastSeq;
  }
}
