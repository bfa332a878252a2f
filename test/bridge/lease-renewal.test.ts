/**
 * A replica's lease renewal that never settles (a database gone silent without closing its connections, as in a
 * failover) is given up before the next beat, so that later beats renew: the leases never run out behind it. And a
 * renewal lets go only of leases it could have renewed: those held when it began.
 */
import { afterEach, expect, it } from 'vitest';
import { Message } from '@a2a-js/sdk';
import { TaskEngine } from '../../src/bridge/task-engine.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import type { ReplicaStore } from '../../src/store/replica-store.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import { eventually } from '../support/gateway.ts';
import { idleReplicaStore } from '../support/idle-replica-store.ts';

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
    ...idleReplicaStore(LEASE_MS),
    renewals: 0,
    renew: () => (++replicas.renewals === 1 ? new Promise<Set<string>>(() => {}) : Promise.resolve(new Set<string>())),
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

it('keeps a task leased while a renewal was under way, which that renewal’s answer cannot name', async () => {
  // A renewal whose answer the test holds back, while a new task is created and leased: the answer then names only
  // the leases held when it read the table. Before, the engine took the new task for lost to another replica and let
  // it go, while its lease stayed this replica's for good: nobody ever ran it again.
  let answer!: (held: Set<string>) => void;
  let renewing = false;
  const replicas = silentOnceReplicaStore();
  replicas.renew = () => {
    renewing = true;
    return new Promise<Set<string>>((resolve) => (answer = resolve));
  };
  const messages: string[] = [];
  store = new SqliteTaskStore(':memory:');
  const network = new MemoryNetwork();
  const agent = network.node('agent:quiet');
  await agent.start();
  const transport = network.node('gateway');
  await transport.start();
  engine = new TaskEngine({
    store,
    transport,
    // Beats every 1.5 s, each given up after 1.1 s: time enough to create a task while one waits.
    replicas: { ...replicas, leaseMs: 4_500 },
    agentTimeoutMs: 30_000,
    cancelTimeoutMs: 200,
    log: (message) => messages.push(message),
  });
  await engine.start();
  await eventually(() => renewing || undefined, 3_000);
  await engine.createTask({
    agentId: 'quiet',
    agentAddress: 'agent:quiet',
    message: Message.fromJSON({ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] }),
    call: { skill: 's', params: { text: 'hi' } },
    price: '0',
  });
  answer(new Set());
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(messages.filter((message) => message.includes('went to another replica'))).toEqual([]);
  expect(engine.activeTaskCount).toBe(1);
});
