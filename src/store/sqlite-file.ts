/** Opening the gateway's SQLite file: one place for the directory creation and the pragmas every store wants. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * WAL lets the stores' connections read while one writes; `synchronous` is NORMAL (a crash loses nothing, a power
 * loss perhaps the last transactions) unless a store needs FULL; a busy connection waits rather than fails.
 */
export function openSqlite(path: string, synchronous: 'NORMAL' | 'FULL' = 'NORMAL'): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}; PRAGMA busy_timeout = 5000;`);
  return db;
}
