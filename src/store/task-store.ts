/**
 * Durable state of the gateway's tasks behind one interface, so that SQLite (the embedded default) can later be
 * joined by PostgreSQL or D1. Tasks are kept in the SDK's v1.0 model; the Logos side of each task (which agent,
 * which replies were applied, the request to resend) is its `link`.
 */
import type { Task, TaskState } from '@a2a-js/sdk';

export interface LogosLink {
  /** Where task envelopes go. */
  agentAddress: string;
  /** Highest agent reply `seq` applied to the task. */
  lastSeq: number;
  /** The task_request envelope as sent, resent verbatim if no reply had arrived before a restart. */
  request: string;
}

export interface StoredTask {
  agentId: string;
  task: Task;
  link: LogosLink;
  /** Priced tasks: what identifies a retry of the same message (see TaskEngine). */
  retryKey?: string;
  /** The API key (by name) that created the task: with keys configured, only it sees the task. */
  owner?: string;
}

export interface TaskQuery {
  /** Only tasks created with this API key. */
  owner?: string;
  contextId?: string;
  state?: TaskState;
  /** ISO 8601: only tasks whose status changed after this instant. */
  statusAfter?: string;
  pageSize: number;
  /** Opaque cursor from a previous page. */
  pageToken?: string;
}

export interface TaskPage {
  tasks: Task[];
  totalSize: number;
  /** "" on the last page. */
  nextPageToken: string;
}

export class InvalidPageTokenError extends Error {
  override readonly name = 'InvalidPageTokenError';
}

/** What inserting a priced task came to: the task is new, or an earlier identical message's task holds its key. */
export type PricedInsert = { kind: 'created' } | { kind: 'retry'; taskId: string };

/**
 * A store may keep the task (and record) it is given until the write is committed, and serialize it only then: the
 * caller hands over a task it no longer changes (the engine passes a snapshot).
 *
 * A store shared by replicas (PostgreSQL) leases each task it inserts to its own replica, in the same transaction,
 * ends the lease with the write of a terminal state, and fences every write by the lease: a write made after another
 * replica took the task over fails with LeaseLostError (replica-store.ts).
 */
export interface TaskStore {
  insert(record: StoredTask): Promise<void>;
  /**
   * Inserts a priced task unless another task of the same agent holds its retry key: the database decides, so that
   * identical messages sent at once, to one gateway or to several replicas, create one task and pay once. A holder
   * gives its key up once it has ended and its status has not changed since `sinceIso`; until then, it is the
   * answer.
   */
  insertPriced(record: StoredTask & { retryKey: string }, sinceIso: string): Promise<PricedInsert>;
  /** Replaces the task_request kept for resending (once the task is paid, it carries the payment). */
  updateRequest(taskId: string, request: string): Promise<void>;
  /**
   * Saves the task's new state and the seq of the reply that produced it. `feed`: the change as the replicas' change
   * feed carries it, appended in the same transaction (a store that no replica shares ignores it).
   */
  update(taskId: string, task: Task, lastSeq: number, feed?: string): Promise<void>;
  /**
   * Rewrites a task that has ended, to correct its receipt (`metadata.lez`) with what the chain says now; false,
   * writing nothing, when the task has not ended or its receipt's status is no longer `statusBefore` (null: it had
   * no receipt). Not fenced by a lease: an ended task has none, and the correction comes from the payment row, which
   * every replica shares, so whichever settles it may write it. Conditional on the status it corrects, so that a
   * correction is applied once however many replicas (or stale readers) make it, and never overwrites a later one.
   */
  correctEnded(taskId: string, task: Task, statusBefore: string | null): Promise<boolean>;
  get(agentId: string, taskId: string): Promise<StoredTask | undefined>;
  list(agentId: string, query: TaskQuery): Promise<TaskPage>;
  /** Every task not yet in a terminal state: the work a restarted gateway picks up again. */
  listActive(): Promise<StoredTask[]>;
  close(): Promise<void>;
}
