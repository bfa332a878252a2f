/**
 * The gateway's Waku node keeps its peer id across restarts: agents started with its join address
 * (`/…/p2p/<peer id>`) reach a restarted gateway again, which a random peer id per start prevented.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openNetwork } from '../../src/logos/network.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-network-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a restarted gateway node keeps the peer id of its join address', async () => {
  const settings = {
    kind: 'waku' as const,
    entryNodes: [],
    peers: [],
    clusterId: 2,
    shards: 8,
    maxMessageBytes: 150_000,
    keyFile: join(dir, 'gateway.key'),
    listen: ['/ip4/127.0.0.1/tcp/0'],
  };
  const peerIdOf = async () => {
    const network = await openNetwork(settings);
    try {
      return network.joinAddresses()[0]!.split('/p2p/')[1];
    } finally {
      await network.stop();
    }
  };
  const first = await peerIdOf();
  expect(first).toMatch(/^16Uiu2/);
  expect(await peerIdOf()).toBe(first);
});
