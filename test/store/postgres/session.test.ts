/**
 * A session connection (the one a replica holds its liveness lock on, or the payer lock) may be ended at any moment
 * of its start: a liveness check that times out on a loaded machine ends it while it is still connecting. That must
 * reject only the queries waiting on it, never leave a rejection nobody handles (which ends the whole process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Sql } from '../../../src/store/postgres/connection.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../../support/postgres.ts';

describe.skipIf(postgresAdminUrl === undefined)('a PostgreSQL session connection', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('ended as it sends its first statement, rejects its query and nothing else', async () => {
    const unhandled: unknown[] = [];
    const hear = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', hear);
    try {
      let ended: Promise<void> | undefined;
      const session: Sql = openPostgres(database.url, {
        max: 1,
        session: { onClose: () => {} },
        // Whatever goes out first (postgres.js used to fetch the server's array types before the query itself).
        onStatement: () => (ended ??= session.end({ timeout: 0 })),
      });
      // The query may beat the end to the server (then it is answered) or not (then it is rejected, and only it).
      await session`SELECT pg_try_advisory_lock(1, 2)`.catch((error: unknown) =>
        expect(String(error)).toMatch(/CONNECTION_DESTROYED/),
      );
      await ended;
      // A rejection nobody handles is reported once the microtasks and the next few turns have run.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', hear);
    }
  });
});
