import { describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.ts';

const task = (id: string, state: string, timestamp: string, contextId = 'c') =>
  Task.fromJSON({
    id,
    contextId,
    status: { state, timestamp },
    history: [{ messageId: id, role: 'ROLE_USER', parts: [{ text: id }] }],
  });

async function seeded() {
  const store = new SqliteTaskStore(':memory:');
  const link = { agentAddress: 'a', lastSeq: 0, request: '{}' };
  await store.insert({ agentId: 'echo', task: task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:01.000Z'), link });
  await store.insert({
    agentId: 'echo',
    task: task('t2', 'TASK_STATE_WORKING', '2026-01-01T00:00:02.000Z', 'd'),
    link,
  });
  await store.insert({ agentId: 'echo', task: task('t3', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:03.000Z'), link });
  await store.insert({ agentId: 'other', task: task('t4', 'TASK_STATE_WORKING', '2026-01-01T00:00:04.000Z'), link });
  return store;
}

describe('SQLite task store', () => {
  it('lists one agent’s tasks newest first, with filters and stable paging', async () => {
    const store = await seeded();
    const all = await store.list('echo', { pageSize: 2 });
    expect(all.tasks.map((t) => t.id)).toEqual(['t3', 't2']);
    expect(all.totalSize).toBe(3);
    const next = await store.list('echo', { pageSize: 2, pageToken: all.nextPageToken });
    expect(next.tasks.map((t) => t.id)).toEqual(['t1']);
    expect(next.nextPageToken).toBe('');
    expect((await store.list('echo', { pageSize: 10, contextId: 'd' })).tasks.map((t) => t.id)).toEqual(['t2']);
    expect((await store.list('echo', { pageSize: 10, state: TaskState.TASK_STATE_COMPLETED })).totalSize).toBe(2);
    expect(
      (await store.list('echo', { pageSize: 10, statusAfter: '2026-01-01T00:00:01.500Z' })).tasks.map((t) => t.id),
    ).toEqual(['t3', 't2']);
    await expect(store.list('echo', { pageSize: 2, pageToken: 'bogus' })).rejects.toThrow(/not one this server issued/);
  });

  it('scopes reads by agent and finds the unfinished tasks of every agent', async () => {
    const store = await seeded();
    expect(await store.get('other', 't1')).toBeUndefined();
    expect((await store.get('echo', 't1'))?.task.history[0]?.messageId).toBe('t1');
    expect((await store.listActive()).map((s) => s.task.id).sort()).toEqual(['t2', 't4']);
    const updated = task('t2', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:05.000Z', 'd');
    await store.update('t2', updated, 3);
    expect((await store.get('echo', 't2'))?.link.lastSeq).toBe(3);
    expect((await store.listActive()).map((s) => s.task.id)).toEqual(['t4']);
  });
});

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
