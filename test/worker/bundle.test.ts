/**
 * What wrangler bundles for the Worker: the Worker's own modules, the payment rail over fetch, and none of the
 * modules that only work on Node (files, SQLite, the embedded relay node, the wallet key file, push delivery).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './wrangler-dev.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-worker-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('bundles the payment rail over fetch and none of the Node-only modules', async () => {
  await bundleWorker(dir);
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
  const sources = Object.keys(meta.inputs).filter((path) => path.startsWith('src/'));
  expect(sources).toEqual(
    expect.arrayContaining([
      'src/worker/wallet-object.ts',
      'src/lez/rail/lez-rail.ts',
      'src/store/d1/payment-store.ts',
    ]),
  );
  for (const nodeOnly of [
    'src/lez/wallet-key-file.ts',
    'src/gateway/wallet-payer.ts',
    'src/store/migration-sql.ts',
    'src/store/sqlite/file.ts',
    'src/logos/transports/waku.ts',
    'src/gateway/gateway.ts',
    // Push delivery (the Worker offers no push notifications): undici and its DNS-checking dispatcher.
    'src/push/push-service.ts',
    'src/push/undici.ts',
  ]) {
    expect(sources).not.toContain(nodeOnly);
  }
  expect(Object.keys(meta.inputs).filter((path) => path.includes('node_modules/undici/'))).toEqual([]);
}, 60_000);
