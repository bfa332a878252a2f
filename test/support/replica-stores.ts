/**
 * The stores of two replicas on one PostgreSQL database of their own, as two gateway processes open them: opened before
 * a file's tests and closed, the database dropped, after them. Nothing is opened where no server answers (the tests
 * skip then; see postgres.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { openStores, type Stores } from '../../src/store/open-stores.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from './postgres.ts';

export function twoReplicaStores(leaseMs: number): { a: Stores; b: Stores } {
  const replicas = {} as { a: Stores; b: Stores };
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (postgresAdminUrl === undefined) return;
    database = await createTestDatabase();
    const open = () => openStores(database!.url, { leaseMs, log: () => {} });
    [replicas.a, replicas.b] = await Promise.all([open(), open()]);
  });
  afterAll(async () => {
    await Promise.all([replicas.a?.close(), replicas.b?.close()]);
    await database?.drop();
  });
  return replicas;
}
