/**
 * A payment record left unsigned (its replica died before it signed) is settled as failed only once its task has
 * ended. A task a dead replica ran is, until another replica takes it over, neither live anywhere nor leased: its
 * payment is still to be made by whoever takes it, not a stranded one. Settled as failed meanwhile, it left the
 * task waiting (submitted) for good beside a failed receipt (found by the replicas' crash suite).
 */
import { afterEach, expect, it } from 'vitest';
import { Task } from '@a2a-js/sdk';
import { TaskEngine } from '../../src/bridge/task-engine.ts';
import { TaskPayments } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { SqlitePaymentStore } from '../../src/store/sqlite/payment-store.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import { eventually } from '../support/gateway.ts';
import { idleReplicaStore } from '../support/idle-replica-store.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

let engine: TaskEngine | undefined;
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await engine?.stop();
  for (const store of closing.splice(0)) await store.close();
});

it('fails an unsigned payment of an ended task, and leaves that of a task still to be taken over', async () => {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 1_000n);
  ledger.initialise(AGENT);
  const tasks = new SqliteTaskStore(':memory:');
  const payments = new SqlitePaymentStore(':memory:');
  closing.push(tasks, payments);
  const now = new Date().toISOString();
  // Two priced tasks of a replica that died before signing their payments: one had ended, one had not.
  for (const [id, state] of [
    ['orphaned', 'TASK_STATE_SUBMITTED'],
    ['ended', 'TASK_STATE_CANCELED'],
  ] as const) {
    await tasks.insert({
      agentId: 'shop',
      task: Task.fromJSON({
        id,
        contextId: 'c',
        status: { state, timestamp: now },
        history: [],
        metadata: { lez: { amount: '10', payee: AGENT, status: 'pending' } },
      }),
      link: { agentAddress: 'agent:shop', lastSeq: 0, request: JSON.stringify({ lez_price: '10' }) },
    });
    await payments.create({
      taskId: id,
      agentId: 'shop',
      amount: '10',
      payee: AGENT,
      rail: 'memory',
      railState: null,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    });
  }
  const transport = new MemoryNetwork().node('gateway');
  await transport.start();
  engine = new TaskEngine({
    store: tasks,
    transport,
    // Nobody holds a lease and this replica takes nothing over: the orphaned task waits for the next taker.
    replicas: idleReplicaStore(60_000),
    agentTimeoutMs: 3_000,
    cancelTimeoutMs: 200,
    payments: new TaskPayments({
      payer: gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY })),
      store: payments,
      limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 },
      network: 'memory',
    }),
    log: () => undefined,
  });
  // Its start settles the money of ended tasks.
  await engine.start();
  await eventually(async () => ((await payments.get('ended'))?.status === 'failed' ? true : undefined));
  expect((await payments.get('orphaned'))?.status).toBe('pending');
  const orphaned = await tasks.get('shop', 'orphaned');
  expect(orphaned?.task.metadata?.lez).toMatchObject({ status: 'pending' });
});
