/**
 * Tasks on Cloudflare D1 (the Workers deployment): the SQLite store's table (migrations/0001_tasks.sql, applied with
 * `wrangler d1 migrations apply`), reached through the D1 binding. Every D1 call is a round trip, so writes are not
 * batched across tasks as in SQLite; they are chained instead, so that a task's rows are written in the order the
 * engine made them (an update never overtakes the insert it follows), and each caller's promise settles once its
 * write is committed.
 */
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import type { Task } from '@a2a-js/sdk';
import type { PricedInsert, StoredTask, TaskPage, TaskQuery, TaskStore } from '../task-store.ts';
import {
  CORRECT_ENDED_TASK_SQL,
  ACTIVE_TASKS_SQL,
  GIVE_UP_RETRY_KEY_SQL,
  INSERT_PRICED_TASK_SQL,
  INSERT_TASK_SQL,
  insertPricedOnce,
  RETRY_KEY_HOLDER_SQL,
  type RetryKeyHolder,
  insertValues,
  fromRow,
  serialize,
  stateOf,
  taskListSql,
  taskPageOf,
  timestampOf,
  type TaskRow,
  updateTaskSql,
  UPDATE_REQUEST_SQL,
} from '../task-rows.ts';

export class D1TaskStore implements TaskStore {
  /** The last write queued: the next one starts after it settles. */
  private tail: Promise<unknown> = Promise.resolve();

  private readonly db: D1Database;
  private readonly onlyTask: string | undefined;

  /**
   * `onlyTask`: the store of one task's Durable Object, which resumes that task alone (`listActive` finds at most
   * it); all tasks stay readable and listable.
   */
  constructor(db: D1Database, options: { onlyTask?: string } = {}) {
    this.db = db;
    this.onlyTask = options.onlyTask;
  }

  insert(record: StoredTask): Promise<void> {
    // Values are taken now: the caller goes on changing the task before the write runs.
    const statement = this.db.prepare(INSERT_TASK_SQL).bind(...insertValues(record));
    return this.write(() => statement.run());
  }

  /** Each statement in the chain of writes, so that the task's later writes follow its insert. */
  insertPriced(record: StoredTask & { retryKey: string }, sinceIso: string): Promise<PricedInsert> {
    const values = insertValues(record);
    let outcome!: PricedInsert;
    const run = async () => {
      outcome = await insertPricedOnce(
        {
          insert: async () =>
            ((
              await this.db
                .prepare(INSERT_PRICED_TASK_SQL)
                .bind(...values)
                .run()
            ).meta.changes ?? 0) > 0,
          holder: async () =>
            (await this.db
              .prepare(RETRY_KEY_HOLDER_SQL)
              .bind(record.agentId, record.retryKey)
              .first<RetryKeyHolder>()) ?? undefined,
          giveUp: async (holderId) =>
            void (await this.db.prepare(GIVE_UP_RETRY_KEY_SQL).bind(holderId, record.retryKey).run()),
        },
        sinceIso,
      );
    };
    return this.write(run).then(() => outcome);
  }

  update(taskId: string, task: Task, lastSeq: number): Promise<void> {
    const state = stateOf(task);
    const statement = this.db
      .prepare(updateTaskSql(state))
      .bind(state, timestampOf(task), serialize(task), lastSeq, taskId);
    return this.write(() => statement.run());
  }

  async correctEnded(taskId: string, task: Task, statusBefore: string | null): Promise<boolean> {
    const statement = this.db.prepare(CORRECT_ENDED_TASK_SQL).bind(serialize(task), taskId, statusBefore);
    let changed = false;
    await this.write(async () => (changed = (await statement.run()).meta.changes > 0));
    return changed;
  }

  updateRequest(taskId: string, request: string): Promise<void> {
    const statement = this.db.prepare(UPDATE_REQUEST_SQL).bind(request, taskId);
    return this.write(() => statement.run());
  }

  private write(run: () => Promise<unknown>): Promise<void> {
    const done = this.tail.then(run, run).then(() => undefined);
    this.tail = done.catch(() => undefined);
    return done;
  }

  async get(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    await this.tail;
    const row = await this.db
      .prepare('SELECT * FROM tasks WHERE id = ? AND agent_id = ?')
      .bind(taskId, agentId)
      .first<TaskRow>();
    return row ? fromRow(row) : undefined;
  }

  async list(agentId: string, query: TaskQuery): Promise<TaskPage> {
    const { count, page } = taskListSql(agentId, query);
    await this.tail;
    const [counted, rows] = await this.db.batch<unknown>([
      this.db.prepare(count.sql).bind(...count.args),
      this.db.prepare(page.sql).bind(...page.args),
    ]);
    const total = (counted?.results[0] as { total: number } | undefined)?.total ?? 0;
    return taskPageOf((rows?.results ?? []) as TaskRow[], total, query.pageSize);
  }

  async listActive(): Promise<StoredTask[]> {
    const active = this.db.prepare(this.onlyTask ? `${ACTIVE_TASKS_SQL} AND id = ?` : ACTIVE_TASKS_SQL);
    const { results } = await (this.onlyTask ? active.bind(this.onlyTask) : active).all<TaskRow>();
    return results.map(fromRow);
  }

  async close(): Promise<void> {
    await this.tail;
  }
}
