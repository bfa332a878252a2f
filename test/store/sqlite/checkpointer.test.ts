import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, expect, it } from 'vitest';
import { Task } from '@a2a-js/sdk';
import { openStores } from '../../../src/store/open-stores.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const link = { agentAddress: 'a', lastSeq: 1, request: '{}' };
const task = (id: string) =>
  Task.fromJSON({
    id,
    contextId: 'c',
    status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:01.000Z' },
    history: [{ messageId: id, role: 'ROLE_USER', parts: [{ text: 'x'.repeat(500) }] }],
  });

it("copies the stores' WAL into the database file from a thread of its own, and loses nothing on close", async () => {
  const path = join(dir, 'tasks.db');
  const stores = await openStores(path);
  // About 2 MB of rows: in WAL mode the database file grows only when a checkpoint copies pages into it, and the
  // task store's own connection would not checkpoint before 4,000 pages (16 MB).
  for (let batch = 0; batch < 10; batch++)
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        stores.tasks.insert({ agentId: 'echo', task: task(`t${batch}-${i}`), link }),
      ),
    );
  const fileBytes = () => statSync(path).size;
  expect(fileBytes()).toBeLessThan(1024 * 1024);
  const deadline = Date.now() + 20_000;
  while (fileBytes() < 1024 * 1024 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(fileBytes()).toBeGreaterThanOrEqual(1024 * 1024);

  await stores.tasks.insert({ agentId: 'echo', task: task('last'), link });
  await stores.close();
  // The last connection to close (the checkpointer's) copied the rest and removed the WAL.
  expect(existsSync(`${path}-wal`)).toBe(false);
  const db = new DatabaseSync(path);
  expect(db.prepare('SELECT count(*) AS n FROM tasks').get()).toEqual({ n: 3001 });
  db.close();
}, 30_000);
