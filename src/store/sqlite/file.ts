/** Opening the gateway's SQLite file: one place for the directory creation and the pragmas every store wants. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

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

/**
 * `db.prepare` that prepares each SQL text once and hands out the same statement after: preparing parses and plans
 * the SQL, which costs several times what running a lookup by key does (a push-config lookup at every task change
 * was mostly its prepare). The texts are the stores' own, a fixed set (a list's filters make a few dozen), so the
 * cache stays small. A statement is reset at each run, so one statement serves every caller.
 */
export function statementCache(db: DatabaseSync): (sql: string) => StatementSync {
  const statements = new Map<string, StatementSync>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}
