/**
 * A paid task's payment reference (the request the agent gets) and its receipt are written together: a replica that
 * loses the task's lease after paying cannot leave the request saying "paid" beside a receipt still "pending". The
 * replica that takes such a task over would forward it as paid and never correct the receipt (found by the
 * replicas' crash suite: a completed task whose receipt stayed pending for good). Here the lease is lost the moment
 * the first write naming the payment has committed; every later write is refused, as the fence refuses it.
 */
import { afterEach, expect, it } from 'vitest';
import { Message } from '@a2a-js/sdk';
import { TaskEngine } from '../../src/bridge/task-engine.ts';
import { TaskPayments } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { LeaseLostError } from '../../src/store/replica-store.ts';
import { SqlitePaymentStore } from '../../src/store/sqlite/payment-store.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import type { TaskStore } from '../../src/store/task-store.ts';
import { eventually } from '../support/gateway.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

let engine: TaskEngine | undefined;
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await engine?.stop();
  for (const store of closing.splice(0)) await store.close();
});

/** `store`, except that once a request naming a payment has been written, every write is refused (lease lost). */
function losingLeaseAfterPayment(store: TaskStore): TaskStore {
  let lost = false;
  return {
    insert: (record) => store.insert(record),
    insertPriced: (record, since) => store.insertPriced(record, since),
    get: (agentId, taskId) => store.get(agentId, taskId),
    list: (agentId, query) => store.list(agentId, query),
    listActive: () => store.listActive(),
    correctEnded: (taskId, task, statusBefore) => store.correctEnded(taskId, task, statusBefore),
    close: () => store.close(),
    updateRequest: async (taskId, request) => {
      if (lost) throw new LeaseLostError(taskId);
      await store.updateRequest(taskId, request);
      if ('payment' in JSON.parse(request)) lost = true;
    },
    update: async (taskId, task, lastSeq, feed) => {
      if (lost) throw new LeaseLostError(taskId);
      await store.update(taskId, task, lastSeq, feed);
    },
  };
}

it('commits the payment reference and the paid receipt together, so a lease lost between them leaves neither', async () => {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 1_000n);
  ledger.initialise(AGENT);
  const tasks = new SqliteTaskStore(':memory:');
  const payments = new SqlitePaymentStore(':memory:');
  closing.push(tasks, payments);
  const transport = new MemoryNetwork().node('gateway');
  await transport.start();
  engine = new TaskEngine({
    store: losingLeaseAfterPayment(tasks),
    transport,
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
  await engine.start();
  const task = await engine.createTask({
    agentId: 'shop',
    agentAddress: 'agent:shop',
    message: Message.fromJSON({ messageId: 'm-paid', role: 'ROLE_USER', parts: [{ text: 'hi' }] }),
    call: { skill: 'quick', params: {} },
    price: '10',
    payee: AGENT,
    returnOnceRecorded: true,
  });
  await eventually(() => (ledger.balanceOf(AGENT) === 10n ? true : undefined));
  // Whatever was written before the lease went: the request names the payment only beside a paid receipt.
  await eventually(async () => ((await payments.get(task.id))?.status === 'paid' ? true : undefined));
  const stored = (await tasks.get('shop', task.id))!;
  const paidRequest = 'payment' in JSON.parse(stored.link.request);
  const receipt = (stored.task.metadata as { lez: { status: string } }).lez;
  expect({ paidRequest, receipt: receipt.status }).toEqual({ paidRequest: true, receipt: 'paid' });
});
