/**
 * The listings' indexes on PostgreSQL (src/store/postgres/migrations.ts, version 5): ascending in status time, read
 * backwards for the newest first. Each statement `list` sends is explained on a table of some thousands of tasks, as
 * the planner sees it once vacuumed and analysed: each is planned as under the descending indexes before them, read
 * the other way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { TaskState } from '@a2a-js/sdk';
import { migrate } from '../../../src/store/postgres/connection.ts';
import { PostgresTaskStore } from '../../../src/store/postgres/task-store.ts';
import { encodeCursor } from '../../../src/store/task-rows.ts';
import type { TaskQuery } from '../../../src/store/task-store.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../../support/postgres.ts';

const TASKS = 20_000;
/** Tasks a millisecond apart, one agent in ten `other`, every other task with one of four owners. */
const FILL = `
INSERT INTO tasks (id, agent_id, context_id, state, status_ts, task_json, agent_addr, last_seq, request, owner)
SELECT 't' || g, CASE WHEN g % 10 = 0 THEN 'other' ELSE 'echo' END, 'c' || (g % 500), ${TaskState.TASK_STATE_COMPLETED},
  to_char(timestamp '2026-01-01' + g * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), json_build_object('id', 't' || g, 'history', repeat('x', 1000))::text, 'a', 1, '',
  CASE WHEN g % 2 = 0 THEN 'k' || (g % 8) END
FROM generate_series(1, ${TASKS}) g`;

describe.skipIf(postgresAdminUrl === undefined)('the listings’ indexes on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  const cursor = encodeCursor('2026-01-01T00:00:10.000Z', 't10000');
  const queries: TaskQuery[] = [
    { pageSize: 50 },
    { pageSize: 50, pageToken: cursor },
    { pageSize: 50, statusAfter: '2026-01-01T00:00:19.000Z' },
    { pageSize: 50, contextId: 'c7', state: TaskState.TASK_STATE_COMPLETED },
    { pageSize: 50, owner: 'k2' },
    { pageSize: 50, owner: 'k2', statusAfter: '2026-01-01T00:00:05.000Z', pageToken: cursor },
  ];

  /** The plan of each statement `list` sends for each query, costs left out. */
  async function plans(sql: postgres.Sql, sent: { query: string; parameters: unknown[] }[]): Promise<string[][]> {
    const store = new PostgresTaskStore(sql, { replicaId: 'r', leaseMs: 15_000, fences: new Map() });
    const all: string[][] = [];
    for (const query of queries) {
      sent.length = 0;
      expect((await store.list('echo', query)).tasks.length).toBeGreaterThan(0);
      const statements = sent.filter(({ query: text }) => text.includes('FROM tasks'));
      expect(statements).toHaveLength(2); // the count and the page
      const explained: string[] = [];
      for (const { query: text, parameters } of statements) {
        const rows = await sql.unsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN (COSTS OFF) ${text}`, parameters as never[]);
        explained.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
      }
      all.push(explained);
    }
    return all;
  }

  it('serve every listing as the descending ones did, read backwards, and the plain listings without a sort', async () => {
    const sent: { query: string; parameters: unknown[] }[] = [];
    const sql = postgres(database.url, {
      max: 1,
      onnotice: () => {},
      debug: (_connection, query, parameters) => sent.push({ query, parameters }),
    });
    try {
      await migrate(sql);
      await sql.unsafe(FILL);
      await sql`VACUUM ANALYZE tasks`;
      const ascending = await plans(sql, sent);
      // A page of all of an agent's tasks, or of an owner's, comes off the listing's index newest first, unsorted.
      for (const [index, at] of [
        ['tasks_by_agent_status_ts', [0, 1, 2]],
        ['tasks_by_owner_status_ts', [4, 5]],
      ] as const) {
        for (const query of at) {
          expect(ascending[query]![1]).toMatch(
            new RegExp(`^Limit\\n +-> +Index Scan Backward using ${index} on tasks`),
          );
          expect(ascending[query]!.join('\n')).not.toContain('Sort');
        }
      }
      // Every statement is planned as under version 1's descending indexes, bar the direction read: a filter the
      // indexes do not cover (a context) is the planner's to serve by a scan of the table either way.
      await sql.unsafe(`DROP INDEX tasks_by_agent_status_ts; DROP INDEX tasks_by_owner_status_ts;
        CREATE INDEX tasks_by_agent_time ON tasks (agent_id, status_ts DESC, id DESC);
        CREATE INDEX tasks_by_owner_time ON tasks (agent_id, owner, status_ts DESC, id DESC) WHERE owner IS NOT NULL;
        ANALYZE tasks`);
      const descending = await plans(sql, sent);
      const asBefore = (plan: string) =>
        plan
          .replaceAll('Index Scan Backward using', 'Index Scan using')
          .replaceAll('tasks_by_agent_status_ts', 'tasks_by_agent_time')
          .replaceAll('tasks_by_owner_status_ts', 'tasks_by_owner_time');
      expect(ascending.map((statements) => statements.map(asBefore))).toEqual(descending);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('replace the descending ones of a database made before them, once', async () => {
    const old = await createTestDatabase();
    const sql = postgres(old.url, { max: 1, onnotice: () => {} });
    try {
      // A database migrated before version 5, as version 1 left its listings' indexes.
      await migrate(sql);
      await sql.unsafe(`DROP INDEX tasks_by_agent_status_ts; DROP INDEX tasks_by_owner_status_ts;
        CREATE INDEX tasks_by_agent_time ON tasks (agent_id, status_ts DESC, id DESC);
        CREATE INDEX tasks_by_owner_time ON tasks (agent_id, owner, status_ts DESC, id DESC) WHERE owner IS NOT NULL;
        DELETE FROM logos_a2a_migrations WHERE version = 5`);
      const indexes = async () =>
        (
          await sql<
            { indexdef: string }[]
          >`SELECT indexdef FROM pg_indexes WHERE tablename = 'tasks' AND indexdef LIKE '%status_ts%'
          ORDER BY indexname`
        ).map((row) => row.indexdef.replace(/^.* USING btree /, ''));
      expect(await indexes()).toEqual([
        '(agent_id, status_ts DESC, id DESC)',
        '(agent_id, owner, status_ts DESC, id DESC) WHERE (owner IS NOT NULL)',
      ]);
      expect(await migrate(sql)).toEqual([5]);
      expect(await migrate(sql)).toEqual([]);
      expect(await indexes()).toEqual([
        '(agent_id, status_ts, id)',
        '(agent_id, owner, status_ts, id) WHERE (owner IS NOT NULL)',
      ]);
    } finally {
      await sql.end({ timeout: 1 });
      await old.drop();
    }
  });
});
