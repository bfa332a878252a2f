/**
 * The spending gate on D1, where every task's Durable Object charges its own task: objects charging at the same
 * moment must not together pass a limit that only some of them fit. Real D1 (local-d1.ts), one store per task
 * object.
 */
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TaskPayments, type TaskToPay } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { D1PaymentStore } from '../../src/store/d1/payment-store.ts';
import { openLocalD1 } from './local-d1.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

let d1: Awaited<ReturnType<typeof openLocalD1>>;
let db: D1Database;

beforeAll(async () => {
  d1 = await openLocalD1();
  db = d1.db;
}, 60_000);
afterAll(async () => {
  await d1?.dispose();
});

it('tasks charged at once by their own objects together stay under the period limit', async () => {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 2_000n);
  ledger.initialise(AGENT);
  const payer = gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY }));
  const limits = { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 };
  const charge = (taskId: string) => {
    // Each task's object has its own store and its own TaskPayments: they share nothing but D1.
    const payments = new TaskPayments({
      payer,
      store: new D1PaymentStore(db, { onlyTask: taskId }),
      limits,
      network: 'memory',
    });
    const task: TaskToPay = { taskId, agentId: 'shop', payee: AGENT, amount: 100n };
    return payments.charge(task);
  };
  const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => charge(`d1-task-${i}`)));
  expect(outcomes.filter((o) => o.kind === 'paid')).toHaveLength(10);
  expect(outcomes.filter((o) => o.kind === 'needs-approval')).toHaveLength(2);
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
});
