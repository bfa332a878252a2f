/** /livez and /readyz: ready only when the store answers and the Logos node has peers, never while draining. */
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.ts';
import { readiness } from '../../src/a2a/readiness.ts';
import { startTestBed } from '../support/gateway.ts';

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
