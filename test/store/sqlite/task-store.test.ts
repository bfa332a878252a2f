import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { describe, expect, it, vi } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { migrationSql } from '../../../src/store/migration-sql.ts';
import { SqliteTaskStore } from '../../../src/store/sqlite/task-store.ts';
import { encodeCursor, TERMINAL_STATES, taskListSql } from '../../../src/store/task-rows.ts';
import type { TaskQuery } from '../../../src/store/task-store.ts';

const task = (id: string, state: string, timestamp: string, contextId = 'c') =>
  Task.fromJSON({
    id,
    contextId,
    status: { state, timestamp },
    history: [{ messageId: id, role: 'ROLE_USER', parts: [{ text: id }] }],
  });

// What every task store does is in contract.test.ts; here, what SQLite's group commit adds.
describe('SQLite task store writes', () => {
  it('coalesce a task inserted and updated in one batch into one row with the latest state, and settle both', async () => {
    const store = new SqliteTaskStore(':memory:');
    const link = { agentAddress: 'a', lastSeq: 0, request: '{"r":1}' };
    const inserted = store.insert({
      agentId: 'echo',
      task: task('t1', 'TASK_STATE_SUBMITTED', '2026-01-01T00:00:01.000Z'),
      link,
    });
    const updated = store.update('t1', task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:02.000Z'), 2);
    expect(await store.get('echo', 't1')).toBeUndefined(); // nothing is visible before the commit
    await Promise.all([inserted, updated]);
    const stored = await store.get('echo', 't1');
    expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Finished before it was written: it will never be resent, so its request is not kept.
    expect(stored?.link).toEqual({ agentAddress: 'a', lastSeq: 2, request: '' });
    expect(await store.listActive()).toEqual([]);
  });

  it('a failing write fails alone; the rest of its batch is committed', async () => {
    const store = new SqliteTaskStore(':memory:');
    const link = { agentAddress: 'a', lastSeq: 0, request: '{}' };
    await store.insert({ agentId: 'echo', task: task('dup', 'TASK_STATE_WORKING', '2026-01-01T00:00:01.000Z'), link });
    const duplicate = store.insert({
      agentId: 'echo',
      task: task('dup', 'TASK_STATE_WORKING', '2026-01-01T00:00:01.000Z'),
      link,
    });
    const fine = store.insert({
      agentId: 'echo',
      task: task('fine', 'TASK_STATE_WORKING', '2026-01-01T00:00:01.000Z'),
      link,
    });
    await expect(duplicate).rejects.toThrow(/UNIQUE/);
    await fine;
    expect(await store.get('echo', 'fine')).toBeDefined();
  });
});

describe('SQLite task store batches', () => {
  it('insert a batch’s new tasks many rows to a statement, beside its updates, each row as it was given', async () => {
    const store = new SqliteTaskStore(':memory:');
    const link = { agentAddress: 'a', lastSeq: 0, request: '{"r":1}' };
    const at = (i: number) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`;
    await store.insert({ agentId: 'echo', task: task('earlier', 'TASK_STATE_WORKING', at(0)), link });
    const runs = vi.spyOn(StatementSync.prototype, 'run');
    try {
      // 70 new tasks: two statements of 32 rows and one of 6; one of them also finished in the same batch.
      const ids = Array.from({ length: 70 }, (_, i) => `t${i}`);
      const writes = ids.map((id, i) =>
        store.insert({ agentId: 'echo', task: task(id, 'TASK_STATE_WORKING', at(i), `c${i}`), link }),
      );
      writes.push(store.update('t5', task('t5', 'TASK_STATE_COMPLETED', at(5), 'c5'), 3));
      writes.push(store.update('earlier', task('earlier', 'TASK_STATE_COMPLETED', at(1)), 1));
      await Promise.all(writes);
      // The three inserts and the one update of a task written before.
      expect(runs).toHaveBeenCalledTimes(4);
      for (const [i, id] of ids.entries()) {
        const stored = await store.get('echo', id);
        expect(stored?.task.contextId).toBe(`c${i}`);
        expect(stored?.task.status?.timestamp).toBe(at(i));
        expect(stored?.link).toEqual(id === 't5' ? { ...link, lastSeq: 3, request: '' } : link);
      }
      expect((await store.get('echo', 't5'))?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await store.get('echo', 'earlier'))?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await store.listActive()).length).toBe(69);
    } finally {
      runs.mockRestore();
      await store.close();
    }
  });
});

describe('the tasks table (migrations/0001_tasks.sql, for SQLite and D1)', () => {
  it('indexes the active tasks by leaving out exactly the terminal states the store asks for', () => {
    const ddl = migrationSql('0001_tasks.sql');
    const excluded = /tasks_active ON tasks \(state\) WHERE state NOT IN \(([\d, ]+)\)/.exec(ddl)?.[1];
    expect(excluded?.split(',').map(Number)).toEqual([...TERMINAL_STATES]);
  });
});

describe('the listings’ indexes (migrations/0005_ascending_time_indexes.sql)', () => {
  const cursor = encodeCursor('2026-01-01T00:00:00.000Z', 't');
  const queries: TaskQuery[] = [
    { pageSize: 50 },
    { pageSize: 50, pageToken: cursor },
    { pageSize: 50, statusAfter: '2026-01-01T00:00:00.000Z' },
    { pageSize: 50, contextId: 'c', state: TaskState.TASK_STATE_COMPLETED },
    { pageSize: 50, owner: 'k' },
    { pageSize: 50, owner: 'k', statusAfter: '2026-01-01T00:00:00.000Z', pageToken: cursor },
  ];

  it('serve every listing, newest first, read backwards: no statement sorts or scans the table', () => {
    const db = new DatabaseSync(':memory:');
    for (const file of ['0001_tasks.sql', '0004_priced_retries.sql', '0005_ascending_time_indexes.sql'] as const)
      db.exec(migrationSql(file));
    for (const query of queries) {
      const { count, page } = taskListSql('echo', query);
      for (const { sql, args } of [count, page]) {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...args)
          .map((row) => String(row.detail))
          .join('; ');
        const index = query.owner ? 'tasks_by_owner_status_ts' : 'tasks_by_agent_status_ts';
        expect(plan).toMatch(new RegExp(`^SEARCH tasks USING (COVERING )?INDEX ${index} `));
        expect(plan).not.toContain('TEMP B-TREE');
      }
    }
    db.close();
  });

  it('replace the descending ones of a database made before them, once, and list as before', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tasks-'));
    const path = join(folder, 'tasks.db');
    try {
      const old = new DatabaseSync(path);
      old.exec(migrationSql('0001_tasks.sql'));
      // The listings' indexes as 0001 made them before 0005.
      old.exec(`CREATE INDEX tasks_by_agent_time ON tasks (agent_id, status_ts DESC, id DESC);
        CREATE INDEX tasks_by_owner_time ON tasks (agent_id, owner, status_ts DESC, id DESC) WHERE owner IS NOT NULL;`);
      old.close();
      const store = new SqliteTaskStore(path);
      const link = { agentAddress: 'a', lastSeq: 1, request: '' };
      for (const [id, second] of [
        ['t1', 1],
        ['t2', 3],
        ['t3', 2],
      ] as const)
        await store.insert({
          agentId: 'echo',
          task: task(id, 'TASK_STATE_COMPLETED', `2026-01-01T00:00:0${second}.000Z`),
          link,
        });
      const first = await store.list('echo', { pageSize: 2 });
      expect(first.tasks.map((t) => t.id)).toEqual(['t2', 't3']);
      expect(
        (await store.list('echo', { pageSize: 2, pageToken: first.nextPageToken })).tasks.map((t) => t.id),
      ).toEqual(['t1']);
      await store.close();
      const reopened = new DatabaseSync(path);
      const indexes = reopened
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'tasks_by_%' ORDER BY name")
        .all()
        .map((row) => row.name);
      expect(indexes).toEqual([
        'tasks_by_agent_retry_key',
        'tasks_by_agent_status_ts',
        'tasks_by_owner_status_ts',
        'tasks_by_retry_key',
      ]);
      reopened.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
