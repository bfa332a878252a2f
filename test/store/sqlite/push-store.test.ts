import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
