/**
 * The tables' one definition: the D1 migrations (migrations/, applied by `wrangler d1 migrations apply`), which the
 * SQLite stores run too at open (every statement is `IF NOT EXISTS`). The folder ships beside dist/ in the package
 * and the image.
 */
import { readFileSync } from 'node:fs';

export function migrationSql(
  file: '0001_tasks.sql' | '0002_payments.sql' | '0004_priced_retries.sql' | '0005_ascending_time_indexes.sql',
): string {
  return readFileSync(new URL(`../../migrations/${file}`, import.meta.url), 'utf8');
}
