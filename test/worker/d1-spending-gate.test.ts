/**
 * The spending gate on D1, where every task's Durable Object charges its own task: objects charging at the same
 * moment must not together pass a limit that only some of them fit. Real D1 (workerd's, through wrangler's
 * platform proxy), the migrations as `wrangler d1 migrations apply` runs them, one store per task object.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getPlatformProxy } from 'wrangler';
import { TaskPayments, type TaskToPay } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { D1PaymentStore } from '../../src/store/d1-payment-store.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';
const migrations = new URL('../../migrations/', import.meta.url);

let proxy: Awaited<ReturnType<typeof getPlatformProxy>>;
let db: D1Database;

beforeAll(async () => {
  proxy = await getPlatformProxy({ configPath: 'wrangler.toml', persist: false });
  db = (proxy.env as { DB: D1Database }).DB;
  for (const file of readdirSync(migrations)
    .filter((name) => name.endsWith('.sql'))
    .sort()) {
    const statements = readFileSync(new URL(file, migrations), 'utf8')
      .replace(/^--.*$/gm, '')
      .split(';')
      .map((statement) => statement.trim())
      .filter(Boolean);
    await db.batch(statements.map((statement) => db.prepare(statement)));
  }
}, 60_000);
afterAll(async () => {
  await proxy?.dispose();
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
