/**
 * Opening the gateway's PostgreSQL database: one pool per process, shared by every store (and by whatever else keeps
 * state beside them, such as rate limits), with the schema brought up to date before anything reads it.
 */
import postgres from 'postgres';
import { MIGRATIONS } from './migrations.ts';

export type Sql = postgres.Sql;

export { isPostgresUrl } from '../database-url.ts';

export interface PostgresOptions {
  /** Connections in the pool. Default 10. */
  max?: number;
  /** The schema tables are found and made in (tests use one of their own); the server's search path by default. */
  schema?: string;
  /**
   * For a session-level advisory lock, which lives and dies with its connection: connections are never recycled
   * (by default they are after 30 to 60 minutes), and `onClose` hears when one is lost.
   */
  session?: { onClose: () => void };
  /** Hears each statement sent (its text): the cost of a task, in statements, is counted from here. */
  onStatement?: (statement: string) => void;
}

/**
 * A pool on `url` (`postgres://user@host:port/database`). Counts come back as numbers: every count and sequence the
 * stores read stays far below 2^53. Notices (such as "relation already exists, skipping") are not printed.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    ...(options.onStatement
      ? { debug: (_connection: number, statement: string) => options.onStatement!(statement) }
      : {}),
    ...(options.schema ? { connection: { search_path: options.schema } } : {}),
    // A session runs advisory-lock statements only, so it needs none of the server's array types; and postgres.js
    // (3.4.9) leaves the rejection of that fetch unhandled when the connection is ended during it, which ends the
    // process: a liveness check that timed out while its session was still connecting did so (seen in the replicas'
    // crash suite).
    ...(options.session ? { max_lifetime: 0, onclose: options.session.onClose, fetch_types: false } : {}),
    types: { int8: { to: 20, from: [20], serialize: (value: number) => String(value), parse: Number } },
  });
}

/** Key of the advisory lock migrations run under: replicas starting together migrate one after another. */
const MIGRATION_LOCK = 0x6c6f676f;

/**
 * Applies the migrations this database has not seen yet, in order, in one transaction (PostgreSQL's DDL is
 * transactional: a failed start leaves the schema as it was). Returns the versions applied.
 */
export async function migrate(sql: Sql): Promise<number[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS logos_a2a_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
    )`;
    const done = new Set(
      (await tx<{ version: number }[]>`SELECT version FROM logos_a2a_migrations`).map((row) => row.version),
    );
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO logos_a2a_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    }
    return applied;
  });
}
