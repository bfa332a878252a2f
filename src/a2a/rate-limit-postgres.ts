/**
 * Rate-limit counts in PostgreSQL, shared by every replica on the database: one row per subject and window, counted
 * by an upsert, rows of ended windows swept now and then. The table comes with the stores' migrations.
 */
import { migrate, openPostgres, type Sql } from '../store/postgres/connection.ts';
import type { RateLimitStore } from './rate-limit.ts';

const SWEEP_EVERY_MS = 60_000;

export class PostgresRateLimitStore implements RateLimitStore {
  #sweptAt = 0;

  readonly #sql: Sql;
  /** Whether `close` ends the pool: one it opened itself, not the gateway's stores' pool. */
  readonly #ownsPool: boolean;

  private constructor(sql: Sql, ownsPool: boolean) {
    this.#sql = sql;
    this.#ownsPool = ownsPool;
  }

  /** On the gateway's own pool, migrated already by its stores (open-stores.ts); closing it leaves the pool open. */
  static on(sql: Sql): PostgresRateLimitStore {
    return new PostgresRateLimitStore(sql, false);
  }

  /** `schema`: where the table lives (tests use a schema of their own); the connection's search path by default. */
  static async connect(connectionString: string, options: { schema?: string } = {}): Promise<PostgresRateLimitStore> {
    const sql = openPostgres(connectionString, { max: 4, ...(options.schema ? { schema: options.schema } : {}) });
    try {
      // The table is one of the versioned migrations: a rate limiter started before the stores finds it made.
      await migrate(sql);
    } catch (error) {
      await sql.end();
      throw error;
    }
    return new PostgresRateLimitStore(sql, true);
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    if (windowStart - this.#sweptAt >= SWEEP_EVERY_MS) {
      this.#sweptAt = windowStart;
      await this.#sql`DELETE FROM rate_limit_hits WHERE window_start < ${windowStart - windowMs}`;
    }
    const [row] = await this.#sql<{ hits: number }[]>`
      INSERT INTO rate_limit_hits (subject, window_start, hits) VALUES (${key}, ${windowStart}, 1)
      ON CONFLICT (subject, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
      RETURNING hits`;
    return row!.hits;
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#sql.end();
  }
}
