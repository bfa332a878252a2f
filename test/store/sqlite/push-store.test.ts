import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { SqlitePushStore } from '../../../src/store/sqlite/push-store.ts';

const config = (taskId: string, id: string) => ({
  taskId,
  id,
  url: `https://hook.example/${id}`,
  protocolVersion: '1.0' as const,
  createdAt: '2026-01-01T00:00:00.000Z',
});

// What every push store does is in contract.test.ts; here, that the SQLite store's "no config at all" shortcut
// never hides one.
describe('SQLite push store', () => {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it('lists the configs a file held when it was opened', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'push-store-'));
    folders.push(folder);
    const file = join(folder, 'gateway.db');
    const first = new SqlitePushStore(file);
    expect(first.mayHaveConfigs()).toBe(false);
    expect(await first.listConfigs('t1')).toEqual([]);
    await first.saveConfig(config('t1', 'c1'));
    expect(first.mayHaveConfigs()).toBe(true);
    await first.close();

    const reopened = new SqlitePushStore(file);
    expect(reopened.mayHaveConfigs()).toBe(true);
    expect((await reopened.listConfigs('t1')).map((c) => c.id)).toEqual(['c1']);
    await reopened.close();
  });

  it('lists a config saved after every earlier one was deleted', async () => {
    const store = new SqlitePushStore(':memory:');
    await store.saveConfig(config('t1', 'c1'));
    expect(await store.deleteConfig('t1', 'c1')).toBe(true);
    expect(await store.listConfigs('t1')).toEqual([]);
    await store.saveConfig(config('t2', 'c2'));
    expect((await store.listConfigs('t2')).map((c) => c.id)).toEqual(['c2']);
    await store.close();
  });

  it('upgrades an outbox made before its seqs were kept unique, keeping its deliveries and their seqs', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'push-store-'));
    folders.push(folder);
    const file = join(folder, 'gateway.db');
    // The table as earlier versions made it: seq a plain INTEGER PRIMARY KEY, which SQLite reuses.
    const before = new DatabaseSync(file);
    before.exec(`CREATE TABLE push_outbox (
      seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, task_id TEXT NOT NULL, config_id TEXT NOT NULL,
      url TEXT NOT NULL, headers TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
      next_attempt_at INTEGER NOT NULL, last_error TEXT, created_at TEXT NOT NULL, UNIQUE (event_id, config_id)
    ) STRICT;
    CREATE INDEX push_outbox_queues ON push_outbox (task_id, config_id, seq) WHERE state = 'pending';
    CREATE INDEX push_outbox_due ON push_outbox (next_attempt_at) WHERE state = 'pending';
    INSERT INTO push_outbox VALUES
      (7, 'e1', 't1', 'c1', 'https://hook.example/c1', '{}', '{"event":"e1"}', 'pending', 2, 1000, 'the receiver answered 503', '2026-01-01T00:00:00.000Z'),
      (9, 'e2', 't1', 'c1', 'https://hook.example/c1', '{}', '{"event":"e2"}', 'pending', 0, 1000, NULL, '2026-01-01T00:00:00.000Z');`);
    before.close();

    const store = new SqlitePushStore(file);
    expect((await store.deliveries('t1')).map((d) => [d.seq, d.eventId, d.attempts, d.lastError])).toEqual([
      [7, 'e1', 2, 'the receiver answered 503'],
      [9, 'e2', 0, undefined],
    ]);
    // Delivered in order (the queue index came along), and the largest seq is not given again once deleted.
    expect((await store.due(1000, 10)).map((d) => d.seq)).toEqual([7]);
    await store.markDelivered(7);
    await store.markDelivered(9);
    await store.enqueue(
      [{ eventId: 'e3', taskId: 't2', configId: 'c2', url: 'https://hook.example/c2', headers: {}, body: '{}' }],
      1000,
    );
    expect((await store.deliveries('t2')).map((d) => d.seq)).toEqual([10]);
    await store.close();

    // Opened again: nothing to upgrade, nothing lost.
    const reopened = new SqlitePushStore(file);
    expect((await reopened.deliveries('t2')).map((d) => d.eventId)).toEqual(['e3']);
    await reopened.close();
  });
});
