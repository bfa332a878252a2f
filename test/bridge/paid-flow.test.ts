/**
 * The paid flow's decisions on their own (PaidTasks over TaskPayments, on an in-process ledger): each answer is a
 * step for the engine to apply; nothing here touches a task.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PaidTasks, type PricedTask } from '../../src/bridge/paid-tasks.ts';
import { TaskPayments } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { SqlitePaymentStore } from '../../src/store/sqlite/payment-store.ts';

const WALLET = 'gateway-wallet';
const AGENT = 'agent-account-on-the-memory-ledger';
let store: SqlitePaymentStore;
afterEach(() => store?.close());

function flow(options: { payments?: boolean } = {}) {
  const ledger = new MemoryLedger();
  ledger.fund(WALLET, 1_000n);
  ledger.initialise(AGENT);
  store = new SqlitePaymentStore(':memory:');
  const payments = new TaskPayments({
    payer: gatewayPayer(new MemoryRail({ ledger, payer: WALLET })),
    store,
    limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 3_600_000 },
    network: 'memory',
  });
  return { ledger, payments, paid: new PaidTasks(options.payments === false ? undefined : payments, 60_000) };
}

const priced = (price: string, extra: Partial<PricedTask> = {}): PricedTask => ({
  taskId: `task-${price}`,
  agentId: 'shop',
  price,
  payee: AGENT,
  receipt: { amount: price, payee: AGENT, status: 'pending' },
  ...extra,
});

describe('the paid flow', () => {
  it('pays within the limits and forwards with the wire reference', async () => {
    const { ledger, paid } = flow();
    const step = await paid.pay(priced('10'), false);
    expect(step).toMatchObject({
      kind: 'forward',
      payment: { rail: 'memory', from: WALLET, to: AGENT, amount: '10' },
      receipt: { status: 'paid' },
    });
    if (step.kind !== 'forward') throw new Error('not forwarded');
    expect(step.payment.tx_hash).toBe(step.receipt.txHash);
    expect(ledger.balanceOf(AGENT)).toBe(10n);
  });

  it('holds a task above the limits for an operator, then pays it once approved', async () => {
    const { ledger, payments, paid } = flow();
    const task = priced('500');
    const held = await paid.pay(task, false);
    expect(held).toMatchObject({
      kind: 'hold',
      receipt: { rail: 'memory', amount: '500', payee: AGENT, status: 'awaiting-approval' },
    });
    expect((await payments.approvals('pending')).map((a) => a.taskId)).toEqual([task.taskId]);
    expect(await paid.recordDecision(task.taskId, true)).toBe(true);
    expect(await paid.recordDecision(task.taskId, true)).toBe(false);
    expect(paid.decided(task, true)).toEqual({
      kind: 'paying',
      note: 'An operator approved the payment; paying the agent.',
    });
    expect(await paid.pay(task, true)).toMatchObject({ kind: 'forward' });
    expect(ledger.balanceOf(AGENT)).toBe(500n);
  });

  it('ends a rejected or expired approval without paying', async () => {
    const { paid } = flow();
    const task = priced('500');
    await paid.pay(task, false);
    expect(await paid.approvalExpired(task)).toMatchObject({
      kind: 'end',
      state: 'failed',
      receipt: { status: 'expired' },
    });
    // Decided already: nothing more happens.
    expect(await paid.approvalExpired(task)).toBeUndefined();
    expect(paid.decided(task, false)).toMatchObject({
      kind: 'end',
      state: 'rejected',
      receipt: { status: 'rejected' },
    });
  });

  it('asks the client to pay, and refuses a transaction that does not pay the price', async () => {
    const { ledger, paid } = flow();
    const task = priced('10');
    const asked = await paid.askClient(task);
    expect(asked).toMatchObject({ kind: 'await-payment', receipt: { status: 'awaiting-payment' } });
    if (asked.kind !== 'await-payment' || typeof asked.request === 'string') throw new Error('no payment request');
    expect(asked.request.metadata).toMatchObject({
      'lez.payment.status': 'payment-required',
      'lez.payment.required': { payTo: AGENT, amount: '10' },
    });
    ledger.fund('client', 100n);
    const client = new MemoryRail({ ledger, payer: 'client' });
    const tooLittle = await client.pay({ paymentId: 'p', to: AGENT, amount: 9n });
    if (tooLittle.kind !== 'paid') throw new Error('setup');
    const refused = await paid.acceptClientPayment(task, { txHash: tooLittle.receipt.txHash, from: 'client' });
    expect(refused).toMatchObject({
      kind: 'await-payment',
      request: { metadata: { 'lez.payment.status': 'payment-rejected' } },
    });
    expect(refused).not.toHaveProperty('receipt');
  });

  it('takes one transaction for one task, also when the client sends it for two at once', async () => {
    const { ledger, payments } = flow();
    ledger.fund('client', 100n);
    const tx = await new MemoryRail({ ledger, payer: 'client' }).pay({ paymentId: 'p', to: AGENT, amount: 10n });
    if (tx.kind !== 'paid') throw new Error('setup');
    const task = (taskId: string) => ({ taskId, agentId: 'shop', payee: AGENT, amount: 10n });
    const payment = { txHash: tx.receipt.txHash, from: 'client' };
    const outcomes = await Promise.all([
      payments.acceptClientPayment(task('one'), payment),
      payments.acceptClientPayment(task('two'), payment),
    ]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['paid', 'rejected']);
    // The loser is told why: the transaction, not its own task, was paid already.
    expect(outcomes.find((outcome) => outcome.kind === 'rejected')).toEqual({
      kind: 'rejected',
      message: `transaction ${tx.receipt.txHash} already paid for something else`,
    });
    expect(await payments.acceptClientPayment(task('one'), payment)).toMatchObject({ kind: 'rejected' });
  });

  it('fails a priced task when there is no rail or nobody to pay', async () => {
    expect(await flow({ payments: false }).paid.pay(priced('10'), false)).toMatchObject({
      kind: 'end',
      state: 'failed',
      note: expect.stringMatching(/no payment rail/),
    });
    const { payee: _payee, ...noPayee } = priced('10');
    expect(await flow().paid.pay(noPayee, false)).toMatchObject({
      kind: 'end',
      state: 'failed',
      note: expect.stringMatching(/x-lez-identity/),
    });
  });
});
