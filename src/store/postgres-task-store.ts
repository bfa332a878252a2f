/**
 * Tasks in PostgreSQL: each write is one statement, committed before its promise settles, so any replica reading
 * the task afterwards sees it. A task's writes go out one after another, in the order they were made: the engine
 * does not wait for a task's insert before its request leaves, and the pool would otherwise let the first reply's
 * update overtake it on another connection.
 */
import type { Task } from '@a2a-js/sdk';
import type { Sql } from './postgres-connection.ts';
import { LeaseLostError } from './replica-store.ts';
import type { StoredTask, TaskPage, TaskQuery, TaskStore } from './task-store.ts';
import {
  decodeCursor,
  fromRow,
  serialize,
  stateOf,
  taskPageOf,
  TERMINAL_STATES,
  timestampOf,
  type TaskRow,
} from './task-rows.ts';

export class PostgresTaskStore implements TaskStore {
  private readonly sql: Sql;
  /** Each task's last write still in flight. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly replicaId: string;

  /**
   * The pool belongs to the caller, who ends it after the stores are closed. Updates are fenced by the task's lease,
   * held by `replicaId`: one made while another replica holds a live lease on the task fails with LeaseLostError.
   */
  constructor(sql: Sql, options: { replicaId: string }) {
    this.sql = sql;
    this.replicaId = options.replicaId;
  }

  insert({ agentId, task, link, retryKey, owner }: StoredTask): Promise<void> {
    return this.inOrder(
      task.id,
      this.sql`
      INSERT INTO tasks (id, agent_id, context_id, state, status_ts, task_json, agent_addr, last_seq, request, retry_key, owner)
      VALUES (${task.id}, ${agentId}, ${task.contextId}, ${stateOf(task)}, ${timestampOf(task)}, ${serialize(task)},
              ${link.agentAddress}, ${link.lastSeq}, ${link.request}, ${retryKey ?? null}, ${owner ?? null})`,
    );
  }

  updateRequest(taskId: string, request: string): Promise<void> {
    return this.inOrder(taskId, this.sql`UPDATE tasks SET request = ${request} WHERE id = ${taskId}`);
  }

  update(taskId: string, task: Task, lastSeq: number): Promise<void> {
    const state = stateOf(task);
    // A task that ended will never be resent: its request need not be kept (as in the SQLite store).
    const set = this.sql`state = ${state}, status_ts = ${timestampOf(task)}, task_json = ${serialize(task)},
      last_seq = ${lastSeq}, request = CASE WHEN ${TERMINAL_STATES.includes(state)} THEN '' ELSE request END`;
    const me = this.replicaId;
    // One statement that reads the task's lease row, whoever holds it, under a share lock: a takeover running
    // meanwhile either waits for this write or has committed first, and then this write is refused.
    const fenced = this.sql<{ refused: boolean }[]>`
      WITH lease AS (
        SELECT owner, expires_at FROM task_leases WHERE task_id = ${taskId} FOR SHARE
      ), elsewhere AS (
        SELECT 1 FROM lease WHERE owner <> ${me} AND expires_at > now()
      ), written AS (
        UPDATE tasks SET ${set} WHERE id = ${taskId} AND NOT EXISTS (SELECT 1 FROM elsewhere) RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM elsewhere) AND NOT EXISTS (SELECT 1 FROM written) AS refused`;
    return this.inOrder(taskId, async () => {
      const [row] = await fenced;
      if (row?.refused) throw new LeaseLostError(taskId);
    });
  }

  /**
   * Sends `query` once the task's previous write is done. A postgres.js query is lazy: it goes out when first awaited
   * (here, by `then`), so its values are taken now and the statement waits its turn.
   */
  private inOrder(taskId: string, query: PromiseLike<unknown> | (() => Promise<void>)): Promise<void> {
    const previous = this.writes.get(taskId) ?? Promise.resolve();
    const write = previous
      .catch(() => undefined)
      .then(async () => void (await (typeof query === 'function' ? query() : query)));
    this.writes.set(taskId, write);
    const forget = () => {
      if (this.writes.get(taskId) === write) this.writes.delete(taskId);
    };
    write.then(forget, forget);
    return write;
  }

  async get(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const [row] = await this.sql<TaskRow[]>`SELECT * FROM tasks WHERE id = ${taskId} AND agent_id = ${agentId}`;
    return row && fromRow(row);
  }

  async list(agentId: string, query: TaskQuery): Promise<TaskPage> {
    const sql = this.sql;
    const filter = sql`agent_id = ${agentId}
      ${query.owner !== undefined ? sql`AND owner = ${query.owner}` : sql``}
      ${query.contextId ? sql`AND context_id = ${query.contextId}` : sql``}
      ${query.state !== undefined ? sql`AND state = ${query.state}` : sql``}
      ${query.statusAfter ? sql`AND status_ts > ${query.statusAfter}` : sql``}`;
    const cursor = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const [[count], rows] = await Promise.all([
      sql<{ total: number }[]>`SELECT count(*) AS total FROM tasks WHERE ${filter}`,
      sql<TaskRow[]>`SELECT * FROM tasks WHERE ${filter}
        ${cursor ? sql`AND (status_ts, id) < (${cursor[0]}, ${cursor[1]})` : sql``}
        ORDER BY status_ts DESC, id DESC LIMIT ${query.pageSize + 1}`,
    ]);
    return taskPageOf(rows, count?.total ?? 0, query.pageSize);
  }

  async findByRetryKey(agentId: string, retryKey: string, sinceIso: string): Promise<string | undefined> {
    const [row] = await this.sql<{ id: string }[]>`
      SELECT id FROM tasks WHERE retry_key = ${retryKey} AND agent_id = ${agentId} AND status_ts >= ${sinceIso}
      ORDER BY status_ts DESC LIMIT 1`;
    return row?.id;
  }

  async listActive(): Promise<StoredTask[]> {
    const rows = await this.sql<TaskRow[]>`SELECT * FROM tasks WHERE state NOT IN ${this.sql(TERMINAL_STATES)}`;
    return rows.map(fromRow);
  }

  async close(): Promise<void> {}
}
