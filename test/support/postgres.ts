/**
 * A PostgreSQL database of its own for a test: created with a unique name on the server at 127.0.0.1:5432 (trust
 * authentication, as user `postgres` or `root`, administered through the `test` database) and dropped afterwards.
 * `LOGOS_A2A_TEST_POSTGRES` names another server to administer through. Tests skip when no server answers, except
 * under CI (`CI` set): there a missing server fails every file that needs one, so that no PostgreSQL test passes by
 * being skipped.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

const ADMIN_URLS = process.env.LOGOS_A2A_TEST_POSTGRES
  ? [process.env.LOGOS_A2A_TEST_POSTGRES]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];

/** The first admin URL that answers, or undefined: found once per test file. */
export const postgresAdminUrl: string | undefined = await (async () => {
  for (const url of ADMIN_URLS) {
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`SELECT 1`;
      return url;
    } catch {
      // try the next user
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  if (process.env.CI) throw new Error(`CI is set and no PostgreSQL server answers at ${ADMIN_URLS.join(' or ')}`);
  // Loudly, as the browser test does: a skipped replica test must not pass for a run that checked it.
  console.warn(
    `No PostgreSQL server answers at ${ADMIN_URLS.join(' or ')}: this file's PostgreSQL tests are SKIPPED ` +
      '(under CI they fail instead). Start one, or set LOGOS_A2A_TEST_POSTGRES.',
  );
  return undefined;
})();

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database with a unique name; `drop` ends whatever is still connected to it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!postgresAdminUrl) throw new Error('no PostgreSQL server answers');
  const name = `logos_a2a_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 1 });
    },
  };
}
