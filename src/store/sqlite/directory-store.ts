/**
 * The agent directory on disk (same SQLite file as the tasks, own connection): a restarted gateway serves every
 * agent it knew at once, as offline until it hears from it again.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqlite, statementCache } from './file.ts';
import type { DirectoryStore, StoredAgent } from '../directory-store.ts';

export class SqliteDirectoryStore implements DirectoryStore {
  private readonly db: DatabaseSync;
  private readonly prepare: (sql: string) => StatementSync;

  constructor(path: string) {
    this.db = openSqlite(path);
    this.prepare = statementCache(this.db);
    this.db.exec(`CREATE TABLE IF NOT EXISTS agents (
      id TEXT PRIMARY KEY, card_json TEXT NOT NULL, updated_at TEXT NOT NULL, last_seen_at TEXT NOT NULL
    ) STRICT`);
  }

  async save(agent: StoredAgent): Promise<void> {
    this.prepare(
      `INSERT INTO agents (id, card_json, updated_at, last_seen_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET card_json = excluded.card_json, updated_at = excluded.updated_at, last_seen_at = excluded.last_seen_at`,
    ).run(agent.id, agent.cardJson, agent.updatedAt, agent.lastSeenAt);
  }

  async touch(id: string, lastSeenAt: string): Promise<void> {
    this.prepare('UPDATE agents SET last_seen_at = ? WHERE id = ?').run(lastSeenAt, id);
  }

  async forget(id: string, unheardSince: string): Promise<void> {
    this.prepare('DELETE FROM agents WHERE id = ? AND last_seen_at < ?').run(id, unheardSince);
  }

  async all(): Promise<StoredAgent[]> {
    const rows = this.prepare('SELECT * FROM agents ORDER BY id').all() as {
      id: string;
      card_json: string;
      updated_at: string;
      last_seen_at: string;
    }[];
    return rows.map((row) => ({
      id: row.id,
      cardJson: row.card_json,
      updatedAt: row.updated_at,
      lastSeenAt: row.last_seen_at,
    }));
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}
