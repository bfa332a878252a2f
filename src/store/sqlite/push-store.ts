/**
 * Push-notification configs and the delivery outbox in SQLite, in the same file as the tasks (own connection).
 * Writes are synchronous and committed before they return: an event is in the outbox before any attempt to send it.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqlite, statementCache } from './file.ts';
import type { NewDelivery, OutboxDelivery, PushConfigRecord, PushStore } from '../push-store.ts';
import { configFromRow, deliveryFromRow, type ConfigRow, type OutboxRow } from '../push-rows.ts';

const INSERT_DELIVERY_SQL = `INSERT INTO push_outbox (event_id, task_id, config_id, url, headers, body, state, attempts, next_attempt_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`;

/**
 * A delivery is due only when no earlier pending delivery of the same config exists: a retried event holds back the
 * later ones, so a receiver never sees "completed" before "working".
 */
const DUE_SQL = `SELECT * FROM push_outbox AS o
  WHERE o.state = 'pending' AND o.next_attempt_at <= ?
    AND NOT EXISTS (SELECT 1 FROM push_outbox AS e
                    WHERE e.task_id = o.task_id AND e.config_id = o.config_id AND e.state = 'pending' AND e.seq < o.seq)
  ORDER BY o.seq LIMIT ?`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS push_configs (
  task_id           TEXT NOT NULL,
  config_id         TEXT NOT NULL,
  url               TEXT NOT NULL,
  token             TEXT,
  auth_scheme       TEXT,
  auth_credentials  TEXT,
  protocol_version  TEXT NOT NULL,
  owner             TEXT,
  created_at        TEXT NOT NULL,
  PRIMARY KEY (task_id, config_id)
) STRICT;
CREATE TABLE IF NOT EXISTS push_outbox (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id         TEXT NOT NULL,
  task_id          TEXT NOT NULL,
  config_id        TEXT NOT NULL,
  url              TEXT NOT NULL,
  headers          TEXT NOT NULL,
  body             TEXT NOT NULL,
  state            TEXT NOT NULL,
  attempts         INTEGER NOT NULL,
  next_attempt_at  INTEGER NOT NULL,
  last_error       TEXT,
  created_at       TEXT NOT NULL,
  UNIQUE (event_id, config_id)
) STRICT;
CREATE INDEX IF NOT EXISTS push_outbox_queues ON push_outbox (task_id, config_id, seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS push_outbox_due ON push_outbox (next_attempt_at) WHERE state = 'pending';
`;

export class SqlitePushStore implements PushStore {
  readonly shared = false;
  private readonly db: DatabaseSync;
  private readonly prepare: (sql: string) => StatementSync;
  /**
   * False only while the table holds no config at all. A SQLite file has one gateway, and this store is the only
   * writer of its configs (replicas, which add configs of each other's tasks, share PostgreSQL instead), so the flag
   * is read from the table once and set by each save; while it is false (a gateway whose clients never asked for a
   * webhook), `listConfigs`, which runs at every task change, answers without a query.
   */
  private hasConfigs: boolean;

  /** `path` is a file, or ":memory:". */
  constructor(path: string) {
    this.db = openSqlite(path);
    this.db.exec(SCHEMA);
    this.upgradeOutbox();
    this.prepare = statementCache(this.db);
    this.hasConfigs = this.prepare('SELECT 1 FROM push_configs LIMIT 1').get() !== undefined;
  }

  /**
   * A delivery's seq names it for good, as PostgreSQL's identity column does: the push service marks a delivery by
   * its seq once its attempt ends, and the delivery may have been deleted meanwhile (its config deleted). Without
   * AUTOINCREMENT SQLite gives the largest seq of a deleted row to the next insert, so that late mark deleted or
   * failed another webhook's delivery. A file made before has its table rebuilt once, rows and seqs kept.
   */
  private upgradeOutbox(): void {
    const { sql } = this.db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'push_outbox'")
      .get() as {
      sql: string;
    };
    if (/AUTOINCREMENT/i.test(sql)) return;
    this.transaction(() => {
      this.db.exec('ALTER TABLE push_outbox RENAME TO push_outbox_before_autoincrement');
      this.db.exec('DROP INDEX IF EXISTS push_outbox_queues; DROP INDEX IF EXISTS push_outbox_due;');
      this.db.exec(SCHEMA);
      this.db.exec('INSERT INTO push_outbox SELECT * FROM push_outbox_before_autoincrement');
      this.db.exec('DROP TABLE push_outbox_before_autoincrement');
    });
  }

  async saveConfig(record: PushConfigRecord): Promise<void> {
    this.prepare(
      `INSERT OR REPLACE INTO push_configs (task_id, config_id, url, token, auth_scheme, auth_credentials, protocol_version, owner, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      record.taskId,
      record.id,
      record.url,
      record.token ?? null,
      record.authentication?.scheme ?? null,
      record.authentication?.credentials ?? null,
      record.protocolVersion,
      record.owner ?? null,
      record.createdAt,
    );
    this.hasConfigs = true;
  }

  async getConfig(taskId: string, configId: string): Promise<PushConfigRecord | undefined> {
    const row = this.prepare('SELECT * FROM push_configs WHERE task_id = ? AND config_id = ?').get(taskId, configId) as
      ConfigRow | undefined;
    return row && configFromRow(row);
  }

  mayHaveConfigs(): boolean {
    return this.hasConfigs;
  }

  async listConfigs(taskId: string): Promise<PushConfigRecord[]> {
    if (!this.hasConfigs) return [];
    const rows = this.prepare('SELECT * FROM push_configs WHERE task_id = ? ORDER BY created_at, config_id').all(
      taskId,
    ) as unknown as ConfigRow[];
    return rows.map(configFromRow);
  }

  async deleteConfig(taskId: string, configId: string): Promise<boolean> {
    return this.transaction(() => {
      this.prepare('DELETE FROM push_outbox WHERE task_id = ? AND config_id = ?').run(taskId, configId);
      return (
        this.prepare('DELETE FROM push_configs WHERE task_id = ? AND config_id = ?').run(taskId, configId).changes === 1
      );
    });
  }

  async enqueue(deliveries: NewDelivery[], nowMs: number): Promise<void> {
    const createdAt = new Date(nowMs).toISOString();
    this.transaction(() => {
      for (const delivery of deliveries) {
        this.prepare(INSERT_DELIVERY_SQL).run(
          delivery.eventId,
          delivery.taskId,
          delivery.configId,
          delivery.url,
          JSON.stringify(delivery.headers),
          delivery.body,
          nowMs,
          createdAt,
        );
      }
    });
  }

  /** A SQLite file has one gateway, whose changes' notifications are queued right after their commit. */
  readonly marksChanges = false;

  async queueMarked(): Promise<number> {
    return 0;
  }

  async due(nowMs: number, limit: number): Promise<OutboxDelivery[]> {
    return (this.prepare(DUE_SQL).all(nowMs, limit) as unknown as OutboxRow[]).map(deliveryFromRow);
  }

  async nextAttemptAfter(nowMs: number): Promise<number | undefined> {
    const row = this.prepare(
      "SELECT MIN(next_attempt_at) AS next FROM push_outbox WHERE state = 'pending' AND next_attempt_at > ?",
    ).get(nowMs) as { next: number | null };
    return row.next ?? undefined;
  }

  async markDelivered(seq: number): Promise<void> {
    this.prepare('DELETE FROM push_outbox WHERE seq = ?').run(seq);
  }

  async scheduleRetry(seq: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
    this.prepare('UPDATE push_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?').run(
      attempts,
      nextAttemptAt,
      error,
      seq,
    );
  }

  async markFailed(seq: number, attempts: number, error: string): Promise<void> {
    this.prepare("UPDATE push_outbox SET state = 'failed', attempts = ?, last_error = ? WHERE seq = ?").run(
      attempts,
      error,
      seq,
    );
  }

  async deliveries(taskId: string): Promise<OutboxDelivery[]> {
    return (
      this.prepare('SELECT * FROM push_outbox WHERE task_id = ? ORDER BY seq').all(taskId) as unknown as OutboxRow[]
    ).map(deliveryFromRow);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }

  private transaction<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }
}
