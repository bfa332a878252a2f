/**
 * /livez and /readyz: ready only when the store answers and the Logos node has the peers it waits for (those it
 * dials), never while draining.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.ts';
import { readiness } from '../../src/a2a/readiness.ts';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { eventually, startTestBed } from '../support/gateway.ts';
import { freePort } from '../support/free-port.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

async function readyz(gateway: Gateway): Promise<[number, unknown]> {
  const response = await fetch(`${gateway.url}/readyz`);
  return [response.status, await response.json()];
}

const answeringStore = { get: async () => undefined } as unknown as TaskStore;

describe('probes', () => {
  it('a gateway on the memory network is live and ready', async () => {
    const bed = await startTestBed();
    try {
      expect((await fetch(`${bed.gateway.url}/livez`)).status).toBe(200);
      const ready = await fetch(`${bed.gateway.url}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    } finally {
      await bed.close();
    }
  });

  it('a gateway on a Waku node that dials nobody is ready without peers: its agents dial it when they come', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-probes-'));
    const gateway = await startWakuGateway(dir);
    try {
      expect(gateway.network.gateway.peerCount!()).toBe(0);
      expect(await readyz(gateway)).toEqual([200, { status: 'ready' }]);
    } finally {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a gateway that dials configured peers is not ready until one is connected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-probes-'));
    const peerPort = await freePort();
    const transport = (name: string, listen: string, peers: string[]) => ({
      kind: 'waku' as const,
      listen: [listen],
      keyFile: join(dir, `${name}.key`),
      peers,
    });
    const gateway = await startWakuGateway(dir, {
      overrides: { transport: transport('gateway', '/ip4/127.0.0.1/tcp/0', [`/ip4/127.0.0.1/tcp/${peerPort}`]) },
    });
    let peer: Gateway | undefined;
    try {
      expect(await readyz(gateway)).toEqual([
        503,
        { status: 'not-ready', reason: 'The Logos node has no peers yet; agents cannot be reached.' },
      ]);
      // The peer comes up where the gateway dials; the gateway's redial finds it.
      peer = await startWakuGateway(dir, {
        overrides: {
          database: join(dir, 'peer.db'),
          transport: transport('peer', `/ip4/127.0.0.1/tcp/${peerPort}`, []),
        },
      });
      await eventually(async () => ((await readyz(gateway))[0] === 200 ? true : undefined), 20_000);
      expect(gateway.network.gateway.peerCount!()).toBeGreaterThan(0);
    } finally {
      await peer?.stop();
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says what is missing: Logos peers, a store that answers, or the gateway shutting down', async () => {
    const base = { store: answeringStore, logosPeers: () => 3, draining: () => false };
    expect(await readiness(base)).toEqual({ ready: true });
    expect(await readiness({ ...base, logosPeers: () => undefined })).toEqual({ ready: true });
    expect(await readiness({ ...base, logosPeers: () => 0 })).toEqual({
      ready: false,
      reason: expect.stringMatching(/no peers/),
    });
    expect(await readiness({ ...base, draining: () => true })).toEqual({
      ready: false,
      reason: expect.stringMatching(/shutting down/),
    });
    const failing = {
      get: () => Promise.reject(new Error('connection to db.internal:5432 refused')),
    } as unknown as TaskStore;
    const failed = await readiness({ ...base, store: failing });
    expect(failed).toEqual({ ready: false, reason: 'The task store failed to answer.' });
    const hanging = { get: () => new Promise(() => {}) } as unknown as TaskStore;
    expect(await readiness({ ...base, store: hanging, timeoutMs: 50 })).toEqual({
      ready: false,
      reason: expect.stringMatching(/did not answer within 50 ms/),
    });
  });
});
