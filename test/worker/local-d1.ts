/**
 * Real D1 (workerd's, through wrangler's platform proxy), with the schema of migrations/ applied as
 * `wrangler d1 migrations apply` applies it, kept in memory: for tests of the D1 stores themselves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import { getPlatformProxy } from 'wrangler';

const migrations = new URL('../../migrations/', import.meta.url);

export async function openLocalD1(): Promise<{ db: D1Database; dispose: () => Promise<void> }> {
  const proxy = await getPlatformProxy({ configPath: 'wrangler.toml', persist: false });
  const db = (proxy.env as { DB: D1Database }).DB;
  for (const file of readdirSync(migrations)
    .filter((name) => name.endsWith('.sql'))
    .sort()) {
    const statements = readFileSync(new URL(file, migrations), 'utf8')
      .replace(/^--.*$/gm, '')
      .split(';')
      .map((statement) => statement.trim())
      .filter(Boolean);
    await db.batch(statements.map((statement) => db.prepare(statement)));
  }
  return { db, dispose: () => proxy.dispose() };
}
