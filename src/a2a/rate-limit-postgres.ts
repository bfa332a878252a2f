/**
 * Rate-limit counts in PostgreSQL, shared by every replica on the database: one row per subject and window, counted
 * by an upsert, rows of ended windows swept now and then.
 */
import pg from 'pg';
import type { RateLimitStore } from './rate-limit.ts';

/** The table's migration step: idempotent, run at start. */
const MIGRATION = `
CREATE TABLE IF NOT EXISTS rate_limit_hits (
  subject text NOT NULL,
  window_start bigint NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (subject, window_start)
)`;

const SWEEP_EVERY_MS = 60_000;

export class PostgresRateLimitStore implements RateLimitStore {
  #sweptAt = 0;

  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** `schema`: where the table lives (tests use a schema of their own); the connection's search path by default. */
  static async connect(connectionString: string, options: { schema?: string } = {}): Promise<PostgresRateLimitStore> {
    const pool = new pg.Pool({
      connectionString,
      max: 4,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    try {
      await pool.query(MIGRATION);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresRateLimitStore(pool);
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    if (windowStart - this.#sweptAt >= SWEEP_EVERY_MS) {
      this.#sweptAt = windowStart;
      await this.#pool.query('DELETE FROM rate_limit_hits WHERE window_start < $1', [windowStart - windowMs]);
    }
    const result = await this.#pool.query<{ hits: number }>(
      `INSERT INTO rate_limit_hits (subject, window_start, hits) VALUES ($1, $2, 1)
       ON CONFLICT (subject, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
       RETURNING hits`,
      [key, windowStart],
    );
    return result.rows[0]!.hits;
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}
