/**
 * Push configs and the delivery outbox in PostgreSQL, shared by every replica. `due` claims what it returns: the
 * rows are locked while chosen (others skip them) and pushed `claimMs` into the future, so no other replica starts
 * the same delivery; if the claiming replica dies mid-attempt, the row falls due again when the claim runs out.
 */
import type { TransactionSql } from 'postgres';
import type { Sql } from './connection.ts';
import type { NewDelivery, OutboxDelivery, PushConfigRecord, PushStore } from '../push-store.ts';
import { configFromRow, deliveryFromRow, type ConfigRow, type OutboxRow } from '../push-rows.ts';

/** Tasks whose marked changes one look queues (queueMarked): a backlog goes a part at a time. */
const MARKED_TASKS_PER_LOOK = 1_000;
/** Tasks whose marked changes one transaction queues: one task's trouble holds back few others. */
const MARKED_TASKS_PER_TRANSACTION = 50;
/** Outbox rows one statement inserts (ten parameters each). */
const DELIVERIES_PER_INSERT = 1_000;

export class PostgresPushStore implements PushStore {
  private readonly sql: Sql;
  private readonly claimMs: number;
  readonly shared = true;
  /** Config lookups waiting for this turn's query, by task. */
  private lookups:
    Map<string, { resolve: (configs: PushConfigRecord[]) => void; reject: (error: unknown) => void }[]> | undefined;

  /**
   * The pool belongs to the caller, who ends it after the stores are closed. `claimMs` must outlast one delivery
   * attempt (the push service's timeout). Default 60 s.
   */
  constructor(sql: Sql, options: { claimMs?: number } = {}) {
    this.sql = sql;
    this.claimMs = options.claimMs ?? 60_000;
  }

  async saveConfig(record: PushConfigRecord): Promise<void> {
    await this.sql`
      INSERT INTO push_configs (task_id, config_id, url, token, auth_scheme, auth_credentials, protocol_version, owner, created_at)
      VALUES (${record.taskId}, ${record.id}, ${record.url}, ${record.token ?? null},
              ${record.authentication?.scheme ?? null}, ${record.authentication?.credentials ?? null},
              ${record.protocolVersion}, ${record.owner ?? null}, ${record.createdAt})
      ON CONFLICT (task_id, config_id) DO UPDATE SET url = excluded.url, token = excluded.token,
        auth_scheme = excluded.auth_scheme, auth_credentials = excluded.auth_credentials,
        protocol_version = excluded.protocol_version, owner = excluded.owner, created_at = excluded.created_at`;
  }

  async getConfig(taskId: string, configId: string): Promise<PushConfigRecord | undefined> {
    const [row] = await this.sql<ConfigRow[]>`
      SELECT * FROM push_configs WHERE task_id = ${taskId} AND config_id = ${configId}`;
    return row && configFromRow(row);
  }

  /** Other replicas add configs of this one's tasks: always worth a look. */
  mayHaveConfigs(): boolean {
    return true;
  }

  /**
   * Asked for every change of every task (to queue its webhooks), and most tasks have none: the lookups made within
   * one turn of the event loop are answered by one query.
   */
  listConfigs(taskId: string): Promise<PushConfigRecord[]> {
    return new Promise((resolve, reject) => {
      if (!this.lookups) {
        this.lookups = new Map();
        setImmediate(() => void this.lookUp());
      }
      const waiting = this.lookups.get(taskId) ?? [];
      waiting.push({ resolve, reject });
      this.lookups.set(taskId, waiting);
    });
  }

  private async lookUp(): Promise<void> {
    const lookups = this.lookups!;
    this.lookups = undefined;
    try {
      const rows = await this.sql<ConfigRow[]>`
        SELECT * FROM push_configs WHERE task_id = ANY(${[...lookups.keys()]}::text[]) ORDER BY created_at, config_id`;
      const configs = rows.map(configFromRow);
      for (const [taskId, waiting] of lookups) {
        const mine = configs.filter((config) => config.taskId === taskId);
        for (const { resolve } of waiting) resolve(mine);
      }
    } catch (error) {
      for (const waiting of lookups.values()) for (const { reject } of waiting) reject(error);
    }
  }

  async deleteConfig(taskId: string, configId: string): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      await tx`DELETE FROM push_outbox WHERE task_id = ${taskId} AND config_id = ${configId}`;
      const deleted = await tx`DELETE FROM push_configs WHERE task_id = ${taskId} AND config_id = ${configId}`;
      return deleted.count === 1;
    });
  }

  async enqueue(deliveries: NewDelivery[], nowMs: number): Promise<void> {
    if (deliveries.length === 0) return;
    // One statement (all of them or none), or a transaction of a few where there are more than one may bind.
    if (deliveries.length <= DELIVERIES_PER_INSERT) {
      await this.sql`INSERT INTO push_outbox ${this.sql(outboxRows(deliveries, nowMs))}`;
      return;
    }
    await this.sql.begin((tx) => insertDeliveries(tx, deliveries, nowMs));
  }

  /** The task store marks the feed entry of every change of a task with a webhook (task-store.ts, `#write`). */
  readonly marksChanges = true;

  async queueMarked(
    scope: { taskIds: readonly string[] } | { olderThanMs: number },
    build: (change: string, configs: PushConfigRecord[]) => NewDelivery[],
    nowMs: number,
  ): Promise<number> {
    const sql = this.sql;
    // A look outside any transaction first: nearly always, nothing is marked. A backlog (after an outage) is taken
    // a bounded part at a time: the next look takes the rest.
    const marked = await sql<{ task_id: string }[]>`
      SELECT DISTINCT task_id FROM task_changes WHERE unqueued AND ${
        'taskIds' in scope
          ? sql`task_id = ANY(${scope.taskIds as string[]}::text[])`
          : sql`created_at < now() - ${`${scope.olderThanMs} milliseconds`}::interval`
      } LIMIT ${MARKED_TASKS_PER_LOOK}`;
    let queued = 0;
    for (let start = 0; start < marked.length; start += MARKED_TASKS_PER_TRANSACTION) {
      const taskIds = marked.slice(start, start + MARKED_TASKS_PER_TRANSACTION).map((row) => row.task_id);
      queued += await this.queueMarkedOf(taskIds, build, nowMs);
    }
    return queued;
  }

  /** The marked changes of `taskIds` queued, in one transaction. */
  private queueMarkedOf(
    taskIds: string[],
    build: (change: string, configs: PushConfigRecord[]) => NewDelivery[],
    nowMs: number,
  ): Promise<number> {
    return this.sql.begin(async (tx) => {
      // Every marked change of these tasks, in order, locked: another replica queuing the same changes waits, then
      // finds them cleared. Locked in id order by everyone, so no two transactions wait for each other.
      const changes = await tx<{ id: string; task_id: string; change: string }[]>`
        SELECT id, task_id, change FROM task_changes WHERE unqueued AND task_id = ANY(${taskIds}::text[])
        ORDER BY id FOR UPDATE`;
      if (changes.length === 0) return 0;
      const configs = (
        await tx<ConfigRow[]>`
          SELECT * FROM push_configs WHERE task_id = ANY(${taskIds}::text[]) ORDER BY created_at, config_id`
      ).map(configFromRow);
      const deliveries = changes.flatMap((row) =>
        build(
          row.change,
          configs.filter((config) => config.taskId === row.task_id),
        ),
      );
      await insertDeliveries(tx, deliveries, nowMs);
      await tx`UPDATE task_changes SET unqueued = false WHERE id = ANY(${changes.map((row) => row.id)}::int8[])`;
      return deliveries.length;
    });
  }

  async due(nowMs: number, limit: number): Promise<OutboxDelivery[]> {
    // A delivery is due only when no earlier pending delivery of the same config exists (a claimed one is still
    // pending): a config's deliveries go out one at a time, in order, whichever replica sends them.
    const rows = await this.sql<OutboxRow[]>`
      UPDATE push_outbox SET next_attempt_at = ${nowMs + this.claimMs}
      WHERE seq IN (
        SELECT o.seq FROM push_outbox AS o
        WHERE o.state = 'pending' AND o.next_attempt_at <= ${nowMs}
          AND NOT EXISTS (SELECT 1 FROM push_outbox AS e
                          WHERE e.task_id = o.task_id AND e.config_id = o.config_id AND e.state = 'pending' AND e.seq < o.seq)
        ORDER BY o.seq LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING *`;
    return rows.map(deliveryFromRow).sort((a, b) => a.seq - b.seq);
  }

  async nextAttemptAfter(nowMs: number): Promise<number | undefined> {
    const [row] = await this.sql<{ next: number | null }[]>`
      SELECT min(next_attempt_at) AS next FROM push_outbox WHERE state = 'pending' AND next_attempt_at > ${nowMs}`;
    return row?.next ?? undefined;
  }

  async markDelivered(seq: number): Promise<void> {
    await this.sql`DELETE FROM push_outbox WHERE seq = ${seq}`;
  }

  async scheduleRetry(seq: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
    await this.sql`
      UPDATE push_outbox SET attempts = ${attempts}, next_attempt_at = ${nextAttemptAt}, last_error = ${error}
      WHERE seq = ${seq}`;
  }

  async markFailed(seq: number, attempts: number, error: string): Promise<void> {
    await this.sql`
      UPDATE push_outbox SET state = 'failed', attempts = ${attempts}, last_error = ${error} WHERE seq = ${seq}`;
  }

  async deliveries(taskId: string): Promise<OutboxDelivery[]> {
    const rows = await this.sql<OutboxRow[]>`SELECT * FROM push_outbox WHERE task_id = ${taskId} ORDER BY seq`;
    return rows.map(deliveryFromRow);
  }

  async close(): Promise<void> {}
}

/** Inserts the deliveries in statements of a bounded number of rows: a statement binds 65,535 parameters at most. */
async function insertDeliveries(tx: TransactionSql, deliveries: NewDelivery[], nowMs: number): Promise<void> {
  for (let start = 0; start < deliveries.length; start += DELIVERIES_PER_INSERT) {
    await tx`INSERT INTO push_outbox ${tx(outboxRows(deliveries.slice(start, start + DELIVERIES_PER_INSERT), nowMs))}`;
  }
}

/** New deliveries' rows, pending and due at `nowMs`. */
function outboxRows(deliveries: NewDelivery[], nowMs: number) {
  const createdAt = new Date(nowMs).toISOString();
  return deliveries.map((delivery) => ({
    event_id: delivery.eventId,
    task_id: delivery.taskId,
    config_id: delivery.configId,
    url: delivery.url,
    headers: JSON.stringify(delivery.headers),
    body: delivery.body,
    state: 'pending',
    attempts: 0,
    next_attempt_at: nowMs,
    created_at: createdAt,
  }));
}
