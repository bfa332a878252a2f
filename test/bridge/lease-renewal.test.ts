/**
 * A replica's lease renewal that never settles (a database gone silent without closing its connections, as in a
 * failover) is given up before the next beat, so that later beats renew: the leases never run out behind it.
 */
import { afterEach, it } from 'vitest';
import { TaskEngine } from '../../src/bridge/task-engine.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import type { ReplicaStore } from '../../src/store/replica-store.ts';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.ts';
import { eventually } from '../support/gateway.ts';

const LEASE_MS = 300;
let engine: TaskEngine | undefined;
let store: SqliteTaskStore | undefined;
afterEach(async () => {
  await engine?.stop();
  await store?.close();
});

/** A replica store whose first renewal never answers; every later one does. */
function silentOnceReplicaStore(): ReplicaStore & { renewals: number } {
  const replicas = {
    replicaId: 'live:test',
    leaseMs: LEASE_MS,
    renewals: 0,
    renew: () => (++replicas.renewals === 1 ? new Promise<Set<string>>(() => {}) : Promise.resolve(new Set<string>())),
    releaseAll: async () => {},
    takeOver: async () => [],
    leasedElsewhere: async () => new Set<string>(),
    follow: async () => () => {},
    request: async () => undefined,
    serve: async () => {},
    runWaiting: async () => {},
    close: async () => {},
  };
  return replicas;
}

it('gives up a renewal that never answers, and renews at the next beats, within the lease', async () => {
  const replicas = silentOnceReplicaStore();
  store = new SqliteTaskStore(':memory:');
  const transport = new MemoryNetwork().node('gateway');
  await transport.start();
  engine = new TaskEngine({
    store,
    transport,
    replicas,
    agentTimeoutMs: 3_000,
    cancelTimeoutMs: 200,
    log: () => undefined,
  });
  await engine.start();
  // Beats every third of a lease: the hung first renewal is given up after a quarter of one, and later beats renew
  // again (before, every beat after the first was skipped while it waited, for as long as it waited).
  await eventually(() => (replicas.renewals >= 3 ? true : undefined), 2_000);
});
