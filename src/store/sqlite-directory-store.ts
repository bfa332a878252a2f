/**
 * The agent directory on disk (same SQLite file as the tasks, own connection): a restarted gateway serves every
 * agent it knew at once, as offline until it hears from it again.
 */
import type { DatabaseSync } from 'node:sqlite';
import { openSqlite } from './sqlite-file.ts';
import { LogosAgentCard } from '../logos/card.ts';

export interface StoredAgent {
  card: LogosAgentCard;
  /** ISO 8601. */
  updatedAt: string;
  lastSeenAt: string;
}

export interface DirectoryStore {
  save(card: LogosAgentCard, updatedAt: string, lastSeenAt: string): void;
  touch(id: string, lastSeenAt: string): void;
  all(): StoredAgent[];
  close(): void;
}

export class SqliteDirectoryStore implements DirectoryStore {
  private readonly db: DatabaseSync;

  constructor(path: string) {
    this.db = openSqlite(path);
    this.db.exec(`CREATE TABLE IF NOT EXISTS agents (
      id TEXT PRIMARY KEY, card_json TEXT NOT NULL, updated_at TEXT NOT NULL, last_seen_at TEXT NOT NULL
    ) STRICT`);
  }

  save(card: LogosAgentCard, updatedAt: string, lastSeenAt: string): void {
    this.db
      .prepare(
        `INSERT INTO agents (id, card_json, updated_at, last_seen_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET card_json = excluded.card_json, updated_at = excluded.updated_at, last_seen_at = excluded.last_seen_at`,
      )
      .run(card.id, JSON.stringify(card), updatedAt, lastSeenAt);
  }

  touch(id: string, lastSeenAt: string): void {
    this.db.prepare('UPDATE agents SET last_seen_at = ? WHERE id = ?').run(lastSeenAt, id);
  }

  all(): StoredAgent[] {
    const rows = this.db.prepare('SELECT * FROM agents ORDER BY id').all() as { card_json: string; updated_at: string; last_seen_at: string }[];
    const agents: StoredAgent[] = [];
    for (const row of rows) {
      // A row from an older version that no longer parses is skipped, not fatal: the agent re-announces itself.
      const parsed = LogosAgentCard.safeParse(JSON.parse(row.card_json));
      if (parsed.success) agents.push({ card: parsed.data, updatedAt: row.updated_at, lastSeenAt: row.last_seen_at });
    }
    return agents;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
