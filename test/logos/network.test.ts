/**
 * The gateway's Waku node keeps its peer id across restarts when given a node key file (a single gateway is, by
 * default: src/gateway/gateway.ts): agents started with its join address (`/…/p2p/<peer id>`) reach a restarted
 * gateway again. Without one (replicas sharing a party key), each start has a peer id of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { defaultNodeKeyFile, openNetwork, type WakuNetworkSettings } from '../../src/logos/network.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-network-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings: WakuNetworkSettings = {
  kind: 'waku',
  entryNodes: [],
  peers: [],
  clusterId: 2,
  shards: 8,
  maxMessageBytes: 150_000,
  keyFile: join(dir, 'gateway.key'),
  listen: ['/ip4/127.0.0.1/tcp/0'],
};

const peerIdOf = async (nodeKeyFile?: string) => {
  const network = await openNetwork({ ...settings, nodeKeyFile });
  try {
    return network.joinAddresses()[0]!.split('/p2p/')[1];
  } finally {
    await network.stop();
  }
};

it('a restarted gateway node keeps the peer id of its join address, an Ed25519 one', async () => {
  const nodeKeyFile = defaultNodeKeyFile(settings.keyFile);
  expect(nodeKeyFile).toBe(join(dir, 'gateway-node.key'));
  const first = await peerIdOf(nodeKeyFile);
  expect(first).toMatch(/^12D3KooW/);
  expect(await peerIdOf(nodeKeyFile)).toBe(first);
});

it('without a node key file, each start has a peer id of its own', async () => {
  expect(await peerIdOf()).not.toBe(await peerIdOf());
});
