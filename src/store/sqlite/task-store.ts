/**
 * The embedded store: one SQLite file through Node's built-in `node:sqlite` (no native addon to build). WAL mode and
 * `synchronous = NORMAL` survive a process crash; only a power loss can lose the last transactions.
 *
 * Writes are group-committed: every write made while the event loop is busy joins one transaction, committed on the
 * next turn, and each caller's promise settles only once its write is committed. Writes to the same task within a
 * batch coalesce into one row write (a task created and finished in the same turn is inserted once, finished).
 * Under load this turns thousands of tiny transactions into a few larger ones, and callers that wait for their
 * promise still never tell anyone about a state that is not on disk.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqlite, statementCache } from './file.ts';
import type { Task } from '@a2a-js/sdk';
import type { PricedInsert, StoredTask, TaskPage, TaskQuery, TaskStore } from '../task-store.ts';
import {
  CORRECT_ENDED_TASK_SQL,
  ACTIVE_TASKS_SQL,
  GIVE_UP_RETRY_KEY_SQL,
  INSERT_PRICED_TASK_SQL,
  INSERT_TASK_SQL,
  insertPricedOnce,
  insertTasksSql,
  RETRY_KEY_HOLDER_SQL,
  type RetryKeyHolder,
  insertValues,
  fromRow,
  serialize,
  stateOf,
  timestampOf,
  taskListSql,
  taskPageOf,
  type TaskRow,
  updateTaskSql,
  UPDATE_REQUEST_SQL,
} from '../task-rows.ts';
import { migrationSql } from '../migration-sql.ts';

/** A row's promise, settled when its batch commits (or its write fails). */
interface Settling {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function committed(): Settling {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * The most rows one statement inserts. A batch's new tasks go in statements of many rows: a statement's setup (its
 * cursors on the table and each index) and its call from JavaScript are then paid once for them all (measured: about
 * 1 µs less per task, a tenth of its insert). 32 rows bind 352 values, far below SQLite's limit on a statement's.
 */
const ROWS_PER_INSERT = 32;

/**
 * The row a task's pending writes come to: an insert stays an insert when updates follow it in the same batch. The
 * task is serialized when the batch commits, once per row however many changes it coalesced (callers hand the store
 * tasks they no longer change: see TaskStore). Every write the row coalesced is answered by the row's one promise:
 * they commit, or fail, together (a task created and finished in one turn costs one promise, not two).
 */
type PendingWrite = (
  { kind: 'insert'; record: StoredTask } | { kind: 'update'; taskId: string; task: Task; lastSeq: number }
) & { done: Settling };

export class SqliteTaskStore implements TaskStore {
  private readonly db: DatabaseSync;
  private readonly prepare: (sql: string) => StatementSync;
  private pending = new Map<string, PendingWrite>();
  /** The insert of n rows, at n - 1, prepared at its first use (insertTasksSql). */
  private readonly insertsOfRows: StatementSync[] = [];

  /** `path` is a file, or ":memory:". */
  constructor(path: string) {
    this.db = openSqlite(path);
    // A larger WAL before each automatic checkpoint: a page changed many times is copied back once (measured: about
    // a quarter less time per task than the default of 1000 pages).
    this.db.exec('PRAGMA wal_autocheckpoint = 4000;');
    this.db.exec(migrationSql('0001_tasks.sql'));
    this.db.exec(migrationSql('0004_priced_retries.sql'));
    this.db.exec(migrationSql('0005_ascending_time_indexes.sql'));
    this.prepare = statementCache(this.db);
  }

  insert(record: StoredTask): Promise<void> {
    return this.enqueue(record.task.id, (pending) => pending ?? { kind: 'insert', record, done: committed() });
  }

  /**
   * Written at once, outside the batch: the unique index must see every insert that came before, and no other
   * writer shares this file. Priced tasks are few (each waits on a payment anyway).
   */
  insertPriced(record: StoredTask & { retryKey: string }, sinceIso: string): Promise<PricedInsert> {
    return insertPricedOnce(
      {
        insert: async () => this.prepare(INSERT_PRICED_TASK_SQL).run(...insertValues(record)).changes > 0,
        holder: async () =>
          this.prepare(RETRY_KEY_HOLDER_SQL).get(record.agentId, record.retryKey) as RetryKeyHolder | undefined,
        giveUp: async (holderId) => void this.prepare(GIVE_UP_RETRY_KEY_SQL).run(holderId, record.retryKey),
      },
      sinceIso,
    );
  }

  update(taskId: string, task: Task, lastSeq: number): Promise<void> {
    return this.enqueue(taskId, (pending) => {
      if (pending?.kind === 'insert') {
        // Not yet written: write the row once, as it is now (taskRowOf leaves out the request of one that ended).
        const { link } = pending.record;
        pending.record = { ...pending.record, task, link: { ...link, lastSeq } };
        return pending;
      }
      return { kind: 'update', taskId, task, lastSeq, done: pending?.done ?? committed() };
    });
  }

  async correctEnded(taskId: string, task: Task, statusBefore: string | null): Promise<boolean> {
    return this.prepare(CORRECT_ENDED_TASK_SQL).run(serialize(task), taskId, statusBefore).changes > 0;
  }

  updateRequest(taskId: string, request: string): Promise<void> {
    const pending = this.pending.get(taskId);
    if (pending?.kind === 'insert') {
      // Not yet written: the row is written with it (taskRowOf leaves it out of one that ended).
      pending.record = { ...pending.record, link: { ...pending.record.link, request } };
      return pending.done.promise;
    }
    // Rare (once per priced task): written at once, before any update still in the batch, as it was asked.
    this.prepare(UPDATE_REQUEST_SQL).run(request, taskId);
    return Promise.resolve();
  }

  private enqueue(taskId: string, merge: (pending: PendingWrite | undefined) => PendingWrite): Promise<void> {
    if (this.pending.size === 0) setImmediate(() => this.commit());
    const write = merge(this.pending.get(taskId));
    this.pending.set(taskId, write);
    return write.done.promise;
  }

  private run(write: PendingWrite): void {
    if (write.kind === 'insert') this.prepare(INSERT_TASK_SQL).run(...insertValues(write.record));
    else {
      const { task } = write;
      const state = stateOf(task);
      this.prepare(updateTaskSql(state)).run(state, timestampOf(task), serialize(task), write.lastSeq, write.taskId);
    }
  }

  /** The batch's writes: its updates one by one, its inserts many rows to a statement (each task has one write). */
  private writeAll(batch: PendingWrite[]): void {
    const values: (string | number | null)[] = [];
    let rows = 0;
    for (const write of batch) {
      if (write.kind === 'update') this.run(write);
      else {
        values.push(...insertValues(write.record));
        if (++rows === ROWS_PER_INSERT) {
          this.insertRows(rows, values);
          values.length = 0;
          rows = 0;
        }
      }
    }
    if (rows > 0) this.insertRows(rows, values);
  }

  private insertRows(rows: number, values: (string | number | null)[]): void {
    (this.insertsOfRows[rows - 1] ??= this.db.prepare(insertTasksSql(rows))).run(...values);
  }

  private commit(): void {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    const settle = (write: PendingWrite, error?: unknown) =>
      error === undefined ? write.done.resolve() : write.done.reject(error);
    if (!this.db.isOpen) {
      for (const write of batch) settle(write, new Error('the task store is closed'));
      return;
    }
    try {
      this.db.exec('BEGIN');
      this.writeAll(batch);
      this.db.exec('COMMIT');
    } catch {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      // One write failed: apply them one by one so that only the faulty one fails.
      for (const write of batch) {
        try {
          this.run(write);
          settle(write);
        } catch (error) {
          settle(write, error);
        }
      }
      return;
    }
    for (const write of batch) settle(write);
  }

  async get(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const row = this.prepare('SELECT * FROM tasks WHERE id = ? AND agent_id = ?').get(taskId, agentId) as
      TaskRow | undefined;
    return row && fromRow(row);
  }

  async list(agentId: string, query: TaskQuery): Promise<TaskPage> {
    const { count, page } = taskListSql(agentId, query);
    const { total } = this.prepare(count.sql).get(...count.args) as { total: number };
    return taskPageOf(this.prepare(page.sql).all(...page.args) as unknown as TaskRow[], total, query.pageSize);
  }

  async listActive(): Promise<StoredTask[]> {
    return (this.prepare(ACTIVE_TASKS_SQL).all() as unknown as TaskRow[]).map(fromRow);
  }

  async close(): Promise<void> {
    if (this.pending.size > 0) this.commit();
    if (this.db.isOpen) this.db.close();
  }
}
