/**
 * Tasks in PostgreSQL, written by group commit: the writes made within one turn of the event loop go out in one
 * transaction, and each caller's promise settles once its write is committed. One transaction, one WAL flush,
 * whatever the number of tasks in it; a task's writes within it coalesce into one row write, and the batch's
 * inserts, updates, feed entries and lease changes are one statement (so one round trip). A few transactions are on
 * their way at once (a commit waits on the network and the disk, not on this process), but never two holding the
 * same task: a task's writes, and so its change-feed entries, commit in the order they were made.
 *
 * Replicas: a task is leased to the replica that inserts it, in the same transaction; its lease ends with the write
 * of a terminal state. Every write of a task is fenced by the lease's epoch (`lease_epoch`, raised by each takeover):
 * a replica that stalled past its lease, and whose task another replica took over meanwhile, has its writes refused
 * (LeaseLostError), even after the new owner has finished the task and let the lease go.
 */
import type { Task } from '@a2a-js/sdk';
import type { TransactionSql } from 'postgres';
import type { Sql } from './connection.ts';
import { LeaseLostError } from '../replica-store.ts';
import type { PricedInsert, StoredTask, TaskPage, TaskQuery, TaskStore } from '../task-store.ts';
import {
  decodeCursor,
  fromRow,
  insertPricedOnce,
  serialize,
  stateOf,
  taskPageOf,
  taskRowOf,
  TERMINAL_STATES,
  timestampOf,
  type RetryKeyHolder,
  type TaskRow,
} from '../task-rows.ts';

/** The lease epoch under which this replica writes each task it runs: shared with the replica store's takeovers. */
export type LeaseFences = Map<string, number>;

/** The channel that says which tasks have new entries in the change feed (payload: task ids, space-separated). */
export const CHANGES_CHANNEL = 'logos_a2a_task_changes';
/**
 * The channel a command's answer is announced on (payload: the command's id), for the replica that asked and waits
 * (replica-store.ts `request`). A task's terminal write announces its unanswered commands too: no owner is left to
 * answer them, and their askers answer them from the ended task.
 */
export const ANSWERS_CHANNEL = 'logos_a2a_command_answers';
/** Task ids per notification: NOTIFY payloads end at 8000 bytes. */
const IDS_PER_NOTIFY = 100;
/**
 * Transactions on their way at once. One leaves the pool's other connections idle while a commit travels; more than
 * a few only splits the same writes into more, smaller commits. Within the pool's ten connections, leaving room for
 * reads, renewals and payments.
 */
const FLUSHES_IN_FLIGHT = 4;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A task's writes waiting for the next transaction, coalesced. */
interface PendingWrite {
  /** Not yet in the table: inserted whole, with the state its later writes gave it. */
  insert?: StoredTask;
  /** The newest state, for a task already in the table. */
  state?: { task: Task; lastSeq: number };
  /** A new task_request to keep for resending. */
  request?: string;
  /** Change-feed entries, in order. */
  feed: string[];
  waiters: Waiter[];
}

/**
 * The JSON escapes jsonb refuses: U+0000 and surrogates (a regular expression of PostgreSQL's). Each is replaced by
 * the escape of U+FFFD, which stays valid after an escaped backslash too (`\\u0000` in a text is `\` then `u0000`).
 */
const UNREADABLE_ESCAPES = String.raw`\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})`;

export class PostgresTaskStore implements TaskStore {
  readonly #sql: Sql;
  readonly #replicaId: string;
  readonly #leaseInterval: string;
  readonly #fences: LeaseFences;
  #pending = new Map<string, PendingWrite>();
  /** Tasks with writes in a transaction on its way: their next writes wait for it. */
  readonly #inFlight = new Set<string>();
  readonly #flushes = new Set<Promise<void>>();
  /** A flush is due at the end of this turn of the event loop. */
  #scheduled = false;

  /** The pool belongs to the caller, who ends it after the stores are closed. */
  constructor(sql: Sql, options: { replicaId: string; leaseMs: number; fences: LeaseFences }) {
    this.#sql = sql;
    this.#replicaId = options.replicaId;
    this.#leaseInterval = `${options.leaseMs} milliseconds`;
    this.#fences = options.fences;
  }

  insert(record: StoredTask): Promise<void> {
    this.#fences.set(record.task.id, 0);
    return this.#enqueue(record.task.id, (pending) => {
      pending.insert ??= record;
      return pending;
    });
  }

  /**
   * One statement inserts the task and its lease, or neither: ON CONFLICT on the unique (agent, retry key) index
   * waits for a racing insert of the same key to commit, then loses to it. Outside the batch: the answer decides
   * what the caller does next.
   */
  async insertPriced(record: StoredTask & { retryKey: string }, sinceIso: string): Promise<PricedInsert> {
    const sql = this.#sql;
    const { agentId, retryKey } = record;
    const outcome = await insertPricedOnce(
      {
        insert: async () => {
          const inserted = await sql`
            WITH added AS (
              INSERT INTO tasks ${sql(taskRowOf(record))}
              ON CONFLICT (agent_id, retry_key) WHERE retry_key IS NOT NULL DO NOTHING RETURNING id
            ), leased AS (${this.#lease(sql, sql`added`)})
            SELECT id FROM added`;
          return inserted.length > 0;
        },
        holder: async () =>
          (
            await sql<RetryKeyHolder[]>`
              SELECT id, state, status_ts FROM tasks WHERE agent_id = ${agentId} AND retry_key = ${retryKey}`
          )[0],
        giveUp: async (holderId) =>
          void (await sql`UPDATE tasks SET retry_key = NULL WHERE id = ${holderId} AND retry_key = ${retryKey}`),
      },
      sinceIso,
    );
    if (outcome.kind === 'created') this.#fences.set(record.task.id, 0);
    return outcome;
  }

  updateRequest(taskId: string, request: string): Promise<void> {
    return this.#enqueue(taskId, (pending) => {
      if (pending.insert) pending.insert = { ...pending.insert, link: { ...pending.insert.link, request } };
      else pending.request = request;
      return pending;
    });
  }

  async correctEnded(taskId: string, task: Task, statusBefore: string | null): Promise<boolean> {
    // Outside the batch and its fence (TaskStore.correctEnded): the condition on the row decides. jsonb cannot hold
    // U+0000 nor a lone surrogate, which a message's text may escape (`\u0000`, `\ud800`): such escapes (surrogates
    // paired or not) are replaced before the cast, as only the receipt's status is read from it (without, the task's
    // receipt could never be corrected).
    const rows = await this.#sql`
      UPDATE tasks SET task_json = ${serialize(task)}
        WHERE id = ${taskId} AND state IN ${this.#sql(TERMINAL_STATES)}
          AND (regexp_replace(task_json, ${UNREADABLE_ESCAPES}, ${String.raw`\\ufffd`}, 'g')::jsonb #>> '{metadata,lez,status}')
            IS NOT DISTINCT FROM ${statusBefore}
      RETURNING id`;
    return rows.length > 0;
  }

  update(taskId: string, task: Task, lastSeq: number, feed?: string): Promise<void> {
    return this.#enqueue(taskId, (pending) => {
      if (pending.insert) {
        const { link } = pending.insert;
        pending.insert = { ...pending.insert, task, link: { ...link, lastSeq } };
      } else pending.state = { task, lastSeq };
      if (feed !== undefined) pending.feed.push(feed);
      return pending;
    });
  }

  #enqueue(taskId: string, merge: (pending: PendingWrite) => PendingWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      const write = merge(this.#pending.get(taskId) ?? { feed: [], waiters: [] });
      write.waiters.push({ resolve, reject });
      this.#pending.set(taskId, write);
      // Writes made within this turn of the event loop join one transaction.
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          this.#startFlushes();
        });
      }
    });
  }

  /** Sends what waits and is free to go, as far as transactions may be on their way. */
  #startFlushes(): void {
    if (this.#flushes.size >= FLUSHES_IN_FLIGHT) return;
    const batch = new Map<string, PendingWrite>();
    for (const [taskId, write] of this.#pending) {
      if (this.#inFlight.has(taskId)) continue;
      batch.set(taskId, write);
      this.#pending.delete(taskId);
      this.#inFlight.add(taskId);
    }
    if (batch.size === 0) return;
    const flush = this.#flush(batch).finally(() => {
      for (const taskId of batch.keys()) this.#inFlight.delete(taskId);
      this.#flushes.delete(flush);
      this.#startFlushes();
    });
    this.#flushes.add(flush);
  }

  async #flush(batch: Map<string, PendingWrite>): Promise<void> {
    try {
      const refused = await this.#write(batch);
      for (const [taskId, write] of batch) this.#settle(taskId, write, refused);
    } catch {
      // One write failed the transaction: each task alone, so that only the faulty one fails.
      for (const [taskId, write] of batch) {
        try {
          const refused = await this.#write(new Map([[taskId, write]]));
          this.#settle(taskId, write, refused);
        } catch (error) {
          for (const waiter of write.waiters) waiter.reject(error);
        }
      }
    }
  }

  #settle(taskId: string, write: PendingWrite, refused: Set<string>): void {
    if (refused.has(taskId)) {
      for (const waiter of write.waiters) waiter.reject(new LeaseLostError(taskId));
      return;
    }
    const state = write.insert ? stateOf(write.insert.task) : write.state && stateOf(write.state.task);
    // Ended: no more fenced writes (a late receipt correction is written by whichever replica settles it).
    if (state !== undefined && TERMINAL_STATES.includes(state)) this.#fences.delete(taskId);
    for (const waiter of write.waiters) waiter.resolve();
  }

  /** One transaction for the batch; returns the tasks whose writes the fence refused. */
  async #write(batch: Map<string, PendingWrite>): Promise<Set<string>> {
    const inserts: Record<string, unknown>[] = [];
    const leased: string[] = [];
    const updates = {
      id: [] as string[],
      state: [] as (number | null)[],
      ts: [] as (string | null)[],
      json: [] as (string | null)[],
      seq: [] as (number | null)[],
      request: [] as (string | null)[],
      epoch: [] as (number | null)[],
    };
    const feed = { id: [] as string[], change: [] as string[] };
    for (const [taskId, write] of batch) {
      if (write.insert) {
        const row = taskRowOf(write.insert);
        inserts.push(row);
        if (!TERMINAL_STATES.includes(row.state)) leased.push(taskId);
      } else {
        const { state, request } = write;
        const task = state?.task;
        updates.id.push(taskId);
        updates.state.push(task ? stateOf(task) : null);
        updates.ts.push(task ? timestampOf(task) : null);
        updates.json.push(task ? serialize(task) : null);
        updates.seq.push(state ? state.lastSeq : null);
        updates.request.push(request ?? null);
        updates.epoch.push(this.#fences.get(taskId) ?? null);
      }
      for (const change of write.feed) {
        feed.id.push(taskId);
        feed.change.push(change);
      }
    }
    const notified = [...new Set(feed.id)];
    const notices: string[] = [];
    for (let start = 0; start < notified.length; start += IDS_PER_NOTIFY) {
      notices.push(notified.slice(start, start + IDS_PER_NOTIFY).join(' '));
    }
    const sql = this.#sql;
    // One statement, so one implicit transaction and one round trip, where BEGIN, the writes and COMMIT took three.
    // Its parts share one snapshot: none reads what another writes, but the updates' rows, which no insert of the
    // same batch touches (a task's writes coalesce into its insert). The fence: a row whose epoch moved on (another
    // replica took the task over) is not written, nor are its feed entries (those of tasks inserted here need none);
    // a terminal write ends this replica's lease. A task that ended keeps no request: it will never be resent (as in
    // the SQLite store), whether it ends in this write or ended before a late one. A feed entry of a task with a
    // webhook is marked `unqueued`, so that its notifications are queued even if this replica dies right after the
    // commit (push-store.ts, queueMarked). The notifications (one per hundred tasks, and one per command still
    // unanswered for a task that ends here) go out once it commits.
    const written = await sql<{ id: string | null }[]>`
      WITH added AS (
        ${inserts.length > 0 ? sql`INSERT INTO tasks ${sql(inserts)} RETURNING id` : sql`SELECT NULL::text AS id WHERE false`}
      ), leased AS (
        ${this.#lease(sql, sql`unnest(${leased}::text[]) AS id`)}
      ), written AS (
        UPDATE tasks t SET
          state = coalesce(u.state, t.state), status_ts = coalesce(u.ts, t.status_ts),
          task_json = coalesce(u.json, t.task_json), last_seq = coalesce(u.seq, t.last_seq),
          request = CASE WHEN coalesce(u.state, t.state) IN ${sql(TERMINAL_STATES)} THEN '' ELSE coalesce(u.request, t.request) END
        FROM unnest(${updates.id}::text[], ${updates.state}::int[], ${updates.ts}::text[], ${updates.json}::text[],
                    ${updates.seq}::bigint[], ${updates.request}::text[], ${updates.epoch}::int[])
          AS u(id, state, ts, json, seq, request, epoch)
        WHERE t.id = u.id AND (u.epoch IS NULL OR t.lease_epoch = u.epoch)
        RETURNING t.id, t.state
      ), fed AS (
        INSERT INTO task_changes (task_id, change, unqueued)
        SELECT f.id, f.change, EXISTS (SELECT 1 FROM push_configs c WHERE c.task_id = f.id)
        FROM unnest(${feed.id}::text[], ${feed.change}::text[]) WITH ORDINALITY AS f(id, change, n)
        WHERE f.id IN (SELECT id FROM written) OR NOT (f.id = ANY(${updates.id}::text[]))
        ORDER BY f.n
      ), ended AS (
        DELETE FROM task_leases WHERE owner = ${this.#replicaId}
          AND task_id IN (SELECT id FROM written WHERE state IN ${sql(TERMINAL_STATES)})
      ), notified AS (
        SELECT pg_notify(${CHANGES_CHANNEL}, n) FROM unnest(${notices}::text[]) AS n
      ), woken AS (
        SELECT pg_notify(${ANSWERS_CHANNEL}, c.id::text) FROM task_commands c
        WHERE c.result IS NULL AND c.task_id IN (SELECT id FROM written WHERE state IN ${sql(TERMINAL_STATES)})
      )
      SELECT id FROM written UNION ALL SELECT NULL FROM notified UNION ALL SELECT NULL FROM woken`;
    // A row of nulls per notification: selecting them is what sends them.
    const done = new Set(written.map((row) => row.id).filter((id) => id !== null));
    const refused = new Set<string>();
    updates.id.forEach((id, index) => {
      if (updates.epoch[index] !== null && !done.has(id)) refused.add(id);
    });
    return refused;
  }

  /**
   * The lease of the tasks `ids` yields (a column `id`) to this replica, whoever held it before; on `sql`, the
   * transaction it belongs to.
   */
  #lease(sql: Sql | TransactionSql, ids: ReturnType<Sql>) {
    return sql`
      INSERT INTO task_leases (task_id, owner, expires_at)
      SELECT id, ${this.#replicaId}, now() + ${this.#leaseInterval}::interval FROM ${ids}
      ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`;
  }

  async get(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const [row] = await this.#sql<TaskRow[]>`SELECT * FROM tasks WHERE id = ${taskId} AND agent_id = ${agentId}`;
    return row && fromRow(row);
  }

  async list(agentId: string, query: TaskQuery): Promise<TaskPage> {
    const sql = this.#sql;
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

  async listActive(): Promise<StoredTask[]> {
    const rows = await this.#sql<TaskRow[]>`SELECT * FROM tasks WHERE state NOT IN ${this.#sql(TERMINAL_STATES)}`;
    return rows.map(fromRow);
  }

  /** Commits what is still waiting. */
  async close(): Promise<void> {
    while (this.#flushes.size > 0 || this.#scheduled) {
      await (this.#flushes.size > 0 ? Promise.race(this.#flushes) : new Promise((next) => setImmediate(next)));
    }
  }
}
