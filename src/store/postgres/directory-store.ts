/** The agent directory in PostgreSQL: every replica reads the agents any of them heard. */
import type { Sql } from './connection.ts';
import type { DirectoryStore, StoredAgent } from '../directory-store.ts';

export class PostgresDirectoryStore implements DirectoryStore {
  private readonly sql: Sql;

  /** The pool belongs to the caller, who ends it after the stores are closed. */
  constructor(sql: Sql) {
    this.sql = sql;
  }

  async save(agent: StoredAgent): Promise<void> {
    await this.sql`
      INSERT INTO agents (id, card_json, updated_at, last_seen_at)
      VALUES (${agent.id}, ${agent.cardJson}, ${agent.updatedAt}, ${agent.lastSeenAt})
      ON CONFLICT (id) DO UPDATE SET card_json = excluded.card_json, updated_at = excluded.updated_at,
        last_seen_at = excluded.last_seen_at`;
  }

  async touch(id: string, lastSeenAt: string): Promise<void> {
    await this.sql`UPDATE agents SET last_seen_at = ${lastSeenAt} WHERE id = ${id}`;
  }

  async forget(id: string, unheardSince: string): Promise<void> {
    // ISO 8601 times of one format, compared byte by byte whatever the database's collation.
    await this.sql`DELETE FROM agents WHERE id = ${id} AND last_seen_at < ${unheardSince} COLLATE "C"`;
  }

  async all(): Promise<StoredAgent[]> {
    const rows = await this.sql<{ id: string; card_json: string; updated_at: string; last_seen_at: string }[]>`
      SELECT * FROM agents ORDER BY id`;
    return rows.map((row) => ({
      id: row.id,
      cardJson: row.card_json,
      updatedAt: row.updated_at,
      lastSeenAt: row.last_seen_at,
    }));
  }

  async close(): Promise<void> {}
}
