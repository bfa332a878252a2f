import { describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.ts';

const task = (id: string, state: string, timestamp: string, contextId = 'c') =>
  Task.fromJSON({ id, contextId, status: { state, timestamp }, history: [{ messageId: id, role: 'ROLE_USER', parts: [{ text: id }] }] });

async function seeded() {
  const store = new SqliteTaskStore(':memory:');
  const link = { agentAddress: 'a', lastSeq: 0, request: '{}' };
  await store.insert({ agentId: 'echo', task: task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:01.000Z'), link });
  await store.insert({ agentId: 'echo', task: task('t2', 'TASK_STATE_WORKING', '2026-01-01T00:00:02.000Z', 'd'), link });
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
    expect((await store.list('echo', { pageSize: 10, statusAfter: '2026-01-01T00:00:01.500Z' })).tasks.map((t) => t.id)).toEqual(['t3', 't2']);
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
