/**
 * An agent's money across restarts (agentPayments over a SQLite AgentPaymentStore and an in-process ledger): a
 * payment reference is accepted once ever, what the agent took for tasks it can no longer complete is paid back
 * at its next start, exactly once, and a refund that could not be made is made by a later retry.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { agentPayments } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import type { PaymentRail } from '../../src/lez/rail/payment-rail.ts';
import { SqliteAgentPaymentStore } from '../../src/store/sqlite/agent-payment-store.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

const cleanups: (() => void)[] = [];
afterEach(() =>
  cleanups
    .splice(0)
    .reverse()
    .forEach((cleanup) => cleanup()),
);

function world() {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-agent-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 1_000n);
  ledger.initialise(AGENT);
  ledger.initialise(GATEWAY);
  const gateway = new MemoryRail({ ledger, payer: GATEWAY });
  /** One run of the agent process: its rail is new, its store file is the same. */
  const run = () => {
    const store = new SqliteAgentPaymentStore(join(dir, 'agent-payments.db'));
    cleanups.push(() => store.close());
    const rail = new MemoryRail({ ledger, payer: AGENT });
    /** While true, the sequencer does not answer payments (nothing is sent). */
    const outage = { down: false };
    const reachable: PaymentRail = Object.assign(Object.create(rail) as PaymentRail, {
      verify: (...args: Parameters<PaymentRail['verify']>) =>
        outage.down
          ? Promise.resolve({
              kind: 'unconfirmed' as const,
              reason: 'sequencer-unavailable' as const,
              message: 'the sequencer does not answer',
            })
          : rail.verify(...args),
      pay: (request: Parameters<PaymentRail['pay']>[0]) =>
        outage.down
          ? Promise.resolve({
              kind: 'failed' as const,
              paymentId: request.paymentId,
              reason: 'sequencer-unavailable' as const,
              message: 'the sequencer does not answer',
            })
          : rail.pay(request),
    });
    return { store, outage, payments: agentPayments(reachable, store) };
  };
  const pay = async (id: string, amount: bigint) => {
    const outcome = await gateway.pay({ paymentId: id, to: AGENT, amount });
    if (outcome.kind !== 'paid') throw new Error(outcome.kind);
    return outcome.receipt.txHash;
  };
  return { ledger, run, pay };
}

it('a payment reference is accepted once, also after a restart', async () => {
  const { run, pay } = world();
  const tx = await pay('task:1', 10n);
  const first = run();
  expect(await first.payments.verify(tx, { from: GATEWAY, amount: 10n, taskId: 't1' })).toEqual({ ok: true });
  first.store.close();
  const second = run();
  expect(await second.payments.verify(tx, { from: GATEWAY, amount: 10n, taskId: 't2' })).toEqual({
    ok: false,
    message: `transaction ${tx} already paid for another task`,
  });
  // A reference that did not verify is not held against a later, valid use.
  const wrong = await pay('task:2', 10n);
  expect((await second.payments.verify(wrong, { from: GATEWAY, amount: 11n, taskId: 't3' })).ok).toBe(false);
  expect(await second.payments.verify(wrong, { from: GATEWAY, amount: 10n, taskId: 't3' })).toEqual({ ok: true });
});

it('the same task asked again after a restart runs again on the payment it earned; not on one refunded', async () => {
  const { run, pay } = world();
  const [earned, refunded] = [await pay('e', 10n), await pay('r', 10n)];
  const before = run();
  expect(await before.payments.verify(earned, { from: GATEWAY, amount: 10n, taskId: 'done' })).toEqual({ ok: true });
  expect(await before.payments.verify(refunded, { from: GATEWAY, amount: 10n, taskId: 'back' })).toEqual({ ok: true });
  // The first task completed, but the process died before the gateway heard its result; the second was refunded.
  before.payments.earned!(earned);
  expect(await before.payments.refund(`refund:${refunded}`, GATEWAY, 10n, refunded)).toMatchObject({ ok: true });
  before.store.close();

  const after = run();
  await after.payments.refundOwed!();
  // The gateway sends the request again: one result for one payment, so the task runs again on it.
  expect(await after.payments.verify(earned, { from: GATEWAY, amount: 10n, taskId: 'done' })).toEqual({ ok: true });
  expect(after.store.get(earned)).toMatchObject({ status: 'held', taskId: 'done' });
  // The same reference for another task, or a refunded one for its own, pays for nothing.
  expect(await after.payments.verify(earned, { from: GATEWAY, amount: 10n, taskId: 'other' })).toMatchObject({
    ok: false,
  });
  expect(await after.payments.verify(refunded, { from: GATEWAY, amount: 10n, taskId: 'back' })).toEqual({
    ok: false,
    message: `transaction ${refunded} paid for task back, and is refunded (or being refunded)`,
  });
});

it('at start, the agent refunds every payment it took and neither earned nor refunded, once', async () => {
  const { ledger, run, pay } = world();
  const [earned, refunded, stranded] = [await pay('e', 10n), await pay('r', 20n), await pay('s', 30n)];
  const before = run();
  for (const [tx, amount] of [
    [earned, 10n],
    [refunded, 20n],
    [stranded, 30n],
  ] as const)
    expect(await before.payments.verify(tx, { from: GATEWAY, amount, taskId: tx })).toEqual({ ok: true });
  before.payments.earned!(earned);
  expect(await before.payments.refund(`refund:${refunded}`, GATEWAY, 20n, refunded)).toMatchObject({ ok: true });
  // The process dies with the stranded task running.
  before.store.close();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n - 60n + 20n);

  const after = run();
  await after.payments.refundOwed!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n - 10n);
  expect(after.store.get(stranded)!.status).toBe('refunded');
  await after.payments.refundOwed!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n - 10n);
});

it('a refund that fails while the task ends is made by a retry, and the payment stays owed until then', async () => {
  const { ledger, run, pay } = world();
  const tx = await pay('t', 10n);
  const agent = run();
  expect(await agent.payments.verify(tx, { from: GATEWAY, amount: 10n, taskId: 't' })).toEqual({ ok: true });
  expect(agent.store.get(tx)!.status).toBe('held');
  agent.outage.down = true;
  expect(await agent.payments.refund(`refund:${tx}`, GATEWAY, 10n, tx)).toMatchObject({ ok: false });
  expect(agent.store.get(tx)!.status).toBe('owed');
  await agent.payments.retryRefunds!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n - 10n);
  agent.outage.down = false;
  await agent.payments.retryRefunds!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
  expect(agent.store.get(tx)!.status).toBe('refunded');
  await agent.payments.retryRefunds!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
});

it('a reference the previous run died checking is refunded if it is money, and never if the chain lacks it', async () => {
  const { ledger, run, pay } = world();
  const real = await pay('real', 10n);
  const before = run();
  // The process dies between reserving the references and hearing the chain's answer.
  before.store.reserve(real, GATEWAY, '10', 'real');
  before.store.reserve('f'.repeat(64), GATEWAY, '10', 'not-money');
  before.store.close();
  const after = run();
  await after.payments.refundOwed!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
  expect(after.store.get(real)!.status).toBe('refunded');
  // Not on chain (yet): nothing is paid for it, and it is asked about again at the next retry.
  expect(after.store.get('f'.repeat(64))!.status).toBe('checking');
  await after.payments.retryRefunds!();
  expect(ledger.balanceOf(GATEWAY)).toBe(1_000n);
});

it('a payment the sequencer cannot confirm for a moment is asked about again, not refused', async () => {
  const { run, pay } = world();
  const tx = await pay('t', 10n);
  const agent = run();
  agent.outage.down = true;
  setTimeout(() => (agent.outage.down = false), 300);
  expect(await agent.payments.verify(tx, { from: GATEWAY, amount: 10n, taskId: 't' })).toEqual({ ok: true });
  expect(agent.store.get(tx)!.status).toBe('held');
});
