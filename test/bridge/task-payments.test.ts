/**
 * TaskPayments after a crash, on an in-process ledger and a real SQLite payment store: a record written but never
 * signed is paid once (or failed, charging nothing), a refund whose reference never reached the gateway is found
 * on chain before anything is recorded as `refund-missing`, and one that lands later corrects the record.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskPayments, type TaskToPay } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import type { PaymentStore } from '../../src/store/payment-store.ts';
import { migrate, openPostgres } from '../../src/store/postgres/connection.ts';
import { PostgresPaymentStore } from '../../src/store/postgres/payment-store.ts';
import { SqlitePaymentStore } from '../../src/store/sqlite/payment-store.ts';
import { createTestDatabase, postgresAdminUrl } from '../support/postgres.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

const stores: SqlitePaymentStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function world(budgets?: Map<string, bigint>) {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 1_000n);
  ledger.initialise(AGENT);
  ledger.initialise(GATEWAY);
  const store = new SqlitePaymentStore(':memory:');
  stores.push(store);
  const payments = paymentsOn(ledger, store, budgets);
  const agentRail = new MemoryRail({ ledger, payer: AGENT });
  return { ledger, store, payments, agentRail };
}

function paymentsOn(ledger: MemoryLedger, store: PaymentStore, budgets?: Map<string, bigint>) {
  return new TaskPayments({
    payer: gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY })),
    store,
    limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 },
    network: 'memory',
    ...(budgets ? { budgets } : {}),
  });
}

const task = (taskId: string, amount = 10n): TaskToPay => ({ taskId, agentId: 'shop', payee: AGENT, amount });

/** What a gateway killed between recording the task and signing its transfer leaves behind. */
async function unsignedRecord(store: SqlitePaymentStore, taskId: string, amount = 10n): Promise<void> {
  const now = new Date().toISOString();
  await store.create({
    taskId,
    agentId: 'shop',
    amount: amount.toString(),
    payee: AGENT,
    rail: 'memory',
    railState: null,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  });
}

describe('the spending gate, with tasks charged at once', () => {
  it('lets through only what fits under the period limit: the rest waits for an operator', async () => {
    const { ledger, payments } = world();
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => payments.charge(task(`t${i}`, 100n))));
    expect(outcomes.filter((o) => o.kind === 'paid')).toHaveLength(10);
    expect(outcomes.filter((o) => o.kind === 'needs-approval')).toHaveLength(2);
    expect(ledger.balanceOf(GATEWAY)).toBe(0n);
  });

  it('and under an API key’s budget', async () => {
    const { payments } = world(new Map([['key', 250n]]));
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => payments.charge({ ...task(`k${i}`, 100n), caller: 'key' })),
    );
    expect(outcomes.map((o) => o.kind).sort()).toEqual([
      'needs-approval',
      'needs-approval',
      'needs-approval',
      'paid',
      'paid',
    ]);
  });
});

describe.skipIf(postgresAdminUrl === undefined)('the spending gate of replicas on one PostgreSQL database', () => {
  it('holds across them: tasks charged at once on two replicas together stay under the period limit', async () => {
    const database = await createTestDatabase();
    const pools = [openPostgres(database.url), openPostgres(database.url)];
    try {
      await migrate(pools[0]!);
      const ledger = new MemoryLedger();
      ledger.fund(GATEWAY, 2_000n);
      ledger.initialise(AGENT);
      const replicas = pools.map((sql) => paymentsOn(ledger, new PostgresPaymentStore(sql)));
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => replicas[i % 2]!.charge(task(`r${i}`, 100n))),
      );
      expect(outcomes.filter((o) => o.kind === 'paid')).toHaveLength(10);
      expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
    } finally {
      await Promise.all(pools.map((sql) => sql.end()));
      await database.drop();
    }
  });
});

describe('a payment record that was never signed', () => {
  it('is paid, once, when its task goes on', async () => {
    const { ledger, store, payments } = world();
    await unsignedRecord(store, 't1');
    const outcome = await payments.charge(task('t1'));
    expect(outcome).toMatchObject({ kind: 'paid', receipt: { status: 'paid', amount: '10' } });
    expect(await payments.charge(task('t1'))).toMatchObject({ kind: 'paid' });
    expect(ledger.balanceOf(AGENT)).toBe(10n);
  });

  it('fails cleanly when its task ended: nothing was sent, nothing charged', async () => {
    const { ledger, store, payments } = world();
    await unsignedRecord(store, 't2');
    const settled = await payments.settleStranded(() => false);
    expect(settled.get('t2')?.outcome).toMatchObject({
      kind: 'failed',
      message: expect.stringContaining('before it signed the transfer, so nothing was sent. Nothing was charged.'),
      receipt: { status: 'failed' },
    });
    expect((await store.get('t2'))!.status).toBe('failed');
    expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
  });
});

describe('one task paid by two replicas at once', () => {
  it('is paid once: the replica that records its signed transfer second submits nothing and finishes the first', async () => {
    // A stalled past its lease, its transfer not yet signed; B took the task over and pays for it meanwhile.
    const { ledger, store, payments: taken } = world();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rail = gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY }));
    const stalled = new TaskPayments({
      payer: { ...rail, pay: async (...args) => released.then(() => rail.pay(...args)) },
      store,
      limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 },
      network: 'memory',
    });
    const first = stalled.charge(task('t3'));
    await vi.waitFor(async () => expect(await store.get('t3')).toBeDefined());
    const byNewOwner = await taken.charge(task('t3'));
    release();
    const byStalled = await first;

    expect(byNewOwner).toMatchObject({ kind: 'paid', receipt: { status: 'paid' } });
    expect(byStalled).toEqual(byNewOwner);
    expect(ledger.balanceOf(AGENT)).toBe(10n);
    expect(ledger.balanceOf(GATEWAY)).toBe(990n);
  });
});

describe('a refund without a reference', () => {
  it('is found on chain, and counted for one task only', async () => {
    const { ledger, store, payments, agentRail } = world();
    for (const id of ['a', 'b']) expect((await payments.charge(task(id))).kind).toBe('paid');
    // The agent refunded task a, then crashed before it could say so.
    const refund = await agentRail.pay({ paymentId: 'refund:a', to: GATEWAY, amount: 10n });
    if (refund.kind !== 'paid') throw new Error(refund.kind);

    expect(await payments.settleRefund('a', undefined)).toMatchObject({
      status: 'refunded',
      refundTxHash: refund.receipt.txHash,
    });
    // The same transfer cannot also be task b's refund.
    expect(await payments.settleRefund('b', undefined)).toMatchObject({ status: 'refund-missing' });
    expect((await store.get('b'))!.refundTxHash).toBeUndefined();
    expect(ledger.balanceOf(GATEWAY)).toBe(1_000n - 10n);
  });

  it('two tasks ending together do not both claim the one refund on chain', async () => {
    const { payments, agentRail } = world();
    for (const id of ['x', 'y']) expect((await payments.charge(task(id))).kind).toBe('paid');
    const refund = await agentRail.pay({ paymentId: 'refund:x', to: GATEWAY, amount: 10n });
    if (refund.kind !== 'paid') throw new Error(refund.kind);
    const settled = await Promise.all([payments.settleRefund('x', undefined), payments.settleRefund('y', undefined)]);
    expect(settled.map((receipt) => receipt!.status).sort()).toEqual(['refund-missing', 'refunded']);
  });

  it('a wrong reference does not hide the right transfer', async () => {
    const { payments, agentRail } = world();
    const paid = await payments.charge(task('c', 20n));
    if (paid.kind !== 'paid') throw new Error(paid.kind);
    const refund = await agentRail.pay({ paymentId: 'refund:c', to: GATEWAY, amount: 20n });
    if (refund.kind !== 'paid') throw new Error(refund.kind);
    const wrong = { ...paid.reference, tx_hash: paid.reference.tx_hash }; // the payment itself, not a refund
    expect(await payments.settleRefund('c', wrong)).toMatchObject({
      status: 'refunded',
      refundTxHash: refund.receipt.txHash,
    });
  });
});

describe('a refund recorded missing', () => {
  /** No task runs any longer. */
  const ended = () => false;

  it('that lands later is found by the recheck and recorded, once', async () => {
    const { store, payments, agentRail } = world();
    for (const id of ['late', 'never']) expect((await payments.charge(task(id))).kind).toBe('paid');
    for (const id of ['late', 'never'])
      expect(await payments.settleRefund(id, undefined)).toMatchObject({ status: 'refund-missing' });
    expect(await payments.recheckMissingRefunds(ended)).toEqual([]);
    // The agent's retry lands after the task ended: one refund of the amount, for one of the two tasks.
    const refund = await agentRail.pay({ paymentId: 'refund:late', to: GATEWAY, amount: 10n });
    if (refund.kind !== 'paid') throw new Error(refund.kind);

    // Not while its task still runs (its receipt is corrected only once it has ended): the refund waits for then.
    expect(await payments.recheckMissingRefunds(() => true)).toEqual([]);
    expect((await store.get('late'))!.status).toBe('refund-missing');
    const corrected = await payments.recheckMissingRefunds(ended);
    expect(corrected).toHaveLength(1);
    expect(corrected[0]).toMatchObject({
      agentId: 'shop',
      receipt: { status: 'refunded', refundTxHash: refund.receipt.txHash },
    });
    const stillMissing = corrected[0]!.taskId === 'late' ? 'never' : 'late';
    expect((await store.get(stillMissing))!.status).toBe('refund-missing');
    expect(await payments.recheckMissingRefunds(ended)).toEqual([]);
  });
});
