/**
 * Payments to agents whose binding has no refunds (the peer bindings, docs/bindings/), on an in-process ledger and
 * a real SQLite payment store: the operator may have every such payment wait for approval whatever its price, and a
 * paid task of such an agent that does not complete is recorded `no-refund` at once, its money still counted as
 * spent by the limits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TaskPayments, type TaskToPay } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { SqlitePaymentStore } from '../../src/store/sqlite/payment-store.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

const stores: SqlitePaymentStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function paymentsWith(approveWithoutRefunds: boolean) {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 1_000n);
  ledger.initialise(AGENT);
  ledger.initialise(GATEWAY);
  const store = new SqlitePaymentStore(':memory:');
  stores.push(store);
  const payments = new TaskPayments({
    payer: gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY })),
    store,
    limits: { perTransaction: 100n, perPeriod: 25n, periodMs: 86_400_000 },
    network: 'memory',
    approveWithoutRefunds,
  });
  return { ledger, payments };
}

const task = (taskId: string, refunds?: 'none'): TaskToPay => ({
  taskId,
  agentId: 'peer',
  payee: AGENT,
  amount: 10n,
  ...(refunds ? { refunds } : {}),
});

describe('paying agents that never refund', () => {
  it('waits for an operator when the gateway asks for it, for such agents only', async () => {
    const { payments, ledger } = paymentsWith(true);
    const held = await payments.charge(task('t-peer', 'none'));
    expect(held).toMatchObject({ kind: 'needs-approval', reason: expect.stringContaining('never pays back') });
    expect(ledger.balanceOf(AGENT)).toBe(0n);
    expect(await payments.charge(task('t-ours'))).toMatchObject({ kind: 'paid' });
    // Approved, it is paid.
    expect(await payments.charge(task('t-peer', 'none'), true)).toMatchObject({ kind: 'paid' });
    expect(ledger.balanceOf(AGENT)).toBe(20n);
  });

  it('pays such agents within the limits when the gateway does not ask', async () => {
    const { payments } = paymentsWith(false);
    expect(await payments.charge(task('t-peer', 'none'))).toMatchObject({ kind: 'paid' });
  });

  it('records a paid task that did not complete no-refund at once, and counts its money as spent', async () => {
    const { payments } = paymentsWith(false);
    await payments.charge(task('t-1', 'none'));
    await payments.charge(task('t-2', 'none'));
    const receipt = await payments.settleRefund('t-1', undefined, 'none');
    expect(receipt).toMatchObject({ amount: '10', status: 'no-refund' });
    // 10 + 10 spent of the period's 25: a third task of 10 no longer fits, the no-refund one included.
    expect(await payments.gate(10n)).toMatchObject({ kind: 'needs-approval' });
  });
});
