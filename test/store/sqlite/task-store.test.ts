import { describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { migrationSql } from '../../../src/store/migration-sql.ts';
import { SqliteTaskStore } from '../../../src/store/sqlite/task-store.ts';
import { TERMINAL_STATES } from '../../../src/store/task-rows.ts';

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

describe('the tasks table (migrations/0001_tasks.sql, for SQLite and D1)', () => {
  it('indexes the active tasks by leaving out exactly the terminal states the store asks for', () => {
    const ddl = migrationSql('0001_tasks.sql');
    const excluded = /tasks_active ON tasks \(state\) WHERE state NOT IN \(([\d, ]+)\)/.exec(ddl)?.[1];
    expect(excluded?.split(',').map(Number)).toEqual([...TERMINAL_STATES]);
  });
});
