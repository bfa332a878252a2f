/**
 * Where the demo keeps what lives beside its database (the devnet's chain, the paid agent's books): the SQLite
 * file's folder, or for a PostgreSQL server a folder of .data/ named by a hash of the server and database. The URL
 * itself never becomes a path: it may hold a password.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { isPostgresUrl } from '../store/database-url.ts';

/** The folder for `database` (a SQLite file or a PostgreSQL URL); undefined for ":memory:", which keeps nothing. */
export function demoStateDir(database: string): string | undefined {
  if (database === ':memory:') return undefined;
  if (!isPostgresUrl(database)) return dirname(database);
  const digest = createHash('sha256').update(serverAndDatabase(database)).digest('hex');
  return join('.data', `postgres-${digest.slice(0, 16)}`);
}

/**
 * `host:port/database` as written: the user and password (`user:password@`) are dropped, and so is the query, where
 * a password may be given too (`?password=`). The same database reached as another user keeps the same folder,
 * as its chain belongs to the database's payments, not to a login.
 */
function serverAndDatabase(url: string): string {
  const [, server = '', path = ''] = /^postgres(?:ql)?:\/\/(?:[^/?#]*@)?([^/?#]*)([^?#]*)/.exec(url) ?? [];
  return `${server}${path}`;
}
