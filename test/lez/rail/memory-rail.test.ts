/**
 * MemoryRail: the PaymentRail semantics (docs/lez.md §7) on an in-process ledger: quote, pay once per paymentId,
 * LEZ's refusals, the durability hook and resume, verification and refunds.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../../src/lez/rail/memory-rail.ts';
import type { RailPaymentRecord } from '../../../src/lez/rail/payment-record.ts';
import { TransferReceiptSchema } from '../../../src/lez/rail/receipt.ts';

function setup(balance = 1_000n) {
  const ledger = new MemoryLedger();
  ledger.fund('gateway', balance);
  ledger.initialise('agent');
  const rail = new MemoryRail({ ledger, payer: 'gateway' });
  return { ledger, rail };
}

describe('MemoryRail: quote', () => {
  it('prices whole base units and refuses anything else', async () => {
    const { rail } = setup();
    expect(await rail.quote('150')).toEqual({
      kind: 'quoted',
      rail: 'memory',
      network: 'memory',
      amount: '150',
      fee: '0',
      total: '150',
    });
    expect(await rail.quote(0n)).toMatchObject({ kind: 'quoted', total: '0' });
    for (const bad of ['1.5', '-1', '01', '', '1e3', (1n << 128n).toString()]) {
      expect(await rail.quote(bad)).toMatchObject({ kind: 'invalid', reason: 'invalid-price' });
    }
  });
});

describe('MemoryRail: pay', () => {
  it('moves the money and answers a §7d receipt', async () => {
    const { ledger, rail } = setup();
    const outcome = await rail.pay({ paymentId: 'task:1', to: 'agent', amount: '150' });
    expect(outcome.kind).toBe('paid');
    if (outcome.kind !== 'paid') return;
    expect(TransferReceiptSchema.parse(outcome.receipt)).toEqual(outcome.receipt);
    expect(outcome.receipt).toMatchObject({
      rail: 'memory',
      network: 'memory',
      from: 'gateway',
      to: 'agent',
      amount: '150',
      nonce: '0',
      status: 'included',
    });
    expect(ledger.balanceOf('gateway')).toBe(850n);
    expect(ledger.balanceOf('agent')).toBe(150n);
    expect(await rail.balance()).toEqual({ kind: 'ok', account: 'gateway', balance: '850' });
  });

  it('pays once per paymentId, concurrent or repeated, and refuses other terms under the same id', async () => {
    const { ledger, rail } = setup();
    const [a, b] = await Promise.all([
      rail.pay({ paymentId: 'task:1', to: 'agent', amount: 100n }),
      rail.pay({ paymentId: 'task:1', to: 'agent', amount: 100n }),
    ]);
    const c = await rail.pay({ paymentId: 'task:1', to: 'agent', amount: '100' });
    expect(a).toEqual(b);
    expect(c).toEqual(a);
    expect(ledger.balanceOf('agent')).toBe(100n);
    expect(await rail.pay({ paymentId: 'task:1', to: 'agent', amount: 101n })).toMatchObject({
      kind: 'failed',
      reason: 'conflict',
    });
  });

  it('gives concurrent payments consecutive nonces', async () => {
    const { rail } = setup();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => rail.pay({ paymentId: `p${i}`, to: 'agent', amount: 1n })),
    );
    const nonces = outcomes.map((o) => (o.kind === 'paid' ? Number(o.receipt.nonce) : -1)).sort((x, y) => x - y);
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('takes turns with the other rails paying from the same account, as two replicas sharing a wallet', async () => {
    const { ledger, rail } = setup();
    const other = new MemoryRail({ ledger, payer: 'gateway' });
    // Each record takes a moment to write, as a database's would: the rails must not sign under one nonce meanwhile.
    const slowRecord = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? other : rail).pay({ paymentId: `task:${i}`, to: 'agent', amount: '10', onSigned: slowRecord }),
      ),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(Array(6).fill('paid'));
    expect(ledger.nonceOf('gateway')).toBe(6n);
  });

  it('refuses an overdraft and changes nothing; the same id may be tried again once funded', async () => {
    const { ledger, rail } = setup(50n);
    expect(await rail.pay({ paymentId: 'task:1', to: 'agent', amount: 60n })).toMatchObject({
      kind: 'failed',
      reason: 'insufficient-funds',
    });
    expect([ledger.balanceOf('gateway'), ledger.nonceOf('gateway'), ledger.balanceOf('agent')]).toEqual([50n, 0n, 0n]);
    ledger.fund('gateway', 10n);
    expect(await rail.pay({ paymentId: 'task:1', to: 'agent', amount: 60n })).toMatchObject({ kind: 'paid' });
  });

  it('refuses an uninitialised payee, as LEZ would drop the transfer', async () => {
    const { ledger, rail } = setup();
    const outcome = await rail.pay({ paymentId: 'task:1', to: 'stranger', amount: 1n });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'payee-uninitialised' });
    expect(ledger.balanceOf('gateway')).toBe(1_000n);
    ledger.initialise('stranger');
    expect(await rail.pay({ paymentId: 'task:1', to: 'stranger', amount: 1n })).toMatchObject({ kind: 'paid' });
  });

  it('refuses malformed requests', async () => {
    const { rail } = setup();
    expect(await rail.pay({ paymentId: 'x', to: 'agent', amount: 0n })).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
    expect(await rail.pay({ paymentId: 'x', to: 'agent', amount: '1.0' })).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
    expect(await rail.pay({ paymentId: 'x', to: 'gateway', amount: 1n })).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
    expect(await rail.pay({ paymentId: '', to: 'agent', amount: 1n })).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
    expect(await rail.pay({ paymentId: 'x', to: 'has space', amount: 1n })).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
  });
});

describe('MemoryRail: durability hook and resume', () => {
  it('records before anything moves', async () => {
    const { ledger, rail } = setup();
    const seen: { record: RailPaymentRecord; balance: bigint }[] = [];
    const outcome = await rail.pay({
      paymentId: 'task:1',
      to: 'agent',
      amount: 10n,
      onSigned: (record) => void seen.push({ record, balance: ledger.balanceOf('agent') }),
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.balance).toBe(0n);
    expect(seen[0]!.record).toMatchObject({
      rail: 'memory',
      paymentId: 'task:1',
      from: 'gateway',
      to: 'agent',
      amount: '10',
      nonce: '0',
    });
    expect(outcome.kind === 'paid' && outcome.receipt.txHash).toBe(seen[0]!.record.txHash);
  });

  it('a crash between record and submit: nothing moves, resume pays exactly once', async () => {
    const { ledger, rail } = setup();
    let stored: unknown;
    const crashed = await rail.pay({
      paymentId: 'task:1',
      to: 'agent',
      amount: 10n,
      onSigned: (record) => {
        stored = JSON.parse(JSON.stringify(record));
        throw new Error('power cut');
      },
    });
    expect(crashed).toMatchObject({ kind: 'failed', reason: 'record-failed' });
    expect(ledger.balanceOf('agent')).toBe(0n);

    const restarted = new MemoryRail({ ledger, payer: 'gateway' });
    const first = await restarted.resume(stored);
    const again = await restarted.resume(stored);
    expect(first).toMatchObject({ kind: 'paid', paymentId: 'task:1' });
    expect(again).toEqual(first);
    expect(await restarted.pay({ paymentId: 'task:1', to: 'agent', amount: 10n })).toEqual(first);
    expect(ledger.balanceOf('agent')).toBe(10n);
  });

  it('a recorded transfer whose nonce was used by another payment is superseded, never applied', async () => {
    const { ledger, rail } = setup();
    let stored: unknown;
    await rail.pay({
      paymentId: 'a',
      to: 'agent',
      amount: 10n,
      onSigned: (r) => ((stored = r), Promise.reject(new Error('crash'))),
    });
    await rail.pay({ paymentId: 'b', to: 'agent', amount: 20n });
    expect(await rail.resume(stored)).toMatchObject({ kind: 'failed', reason: 'superseded' });
    expect(ledger.balanceOf('agent')).toBe(20n);
  });

  it('refuses a record that is not one, or was tampered with', async () => {
    const { ledger, rail } = setup();
    let stored: RailPaymentRecord | undefined;
    await rail.pay({
      paymentId: 'a',
      to: 'agent',
      amount: 10n,
      onSigned: (r) => ((stored = r), Promise.reject(new Error('crash'))),
    });
    expect(await rail.resume({ hello: 'world' })).toMatchObject({ kind: 'failed', reason: 'invalid-request' });
    expect(await rail.resume({ ...stored!, amount: '1' })).toMatchObject({ kind: 'failed', reason: 'invalid-request' });
    expect(await new MemoryRail({ ledger, payer: 'agent' }).resume(stored)).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
    expect(ledger.balanceOf('agent')).toBe(0n);
  });
});

describe('MemoryRail: verify and refunds', () => {
  async function paid() {
    const { ledger, rail } = setup();
    const outcome = await rail.pay({ paymentId: 'task:1', to: 'agent', amount: 100n });
    if (outcome.kind !== 'paid') throw new Error(outcome.kind);
    return { ledger, rail, receipt: outcome.receipt };
  }

  it('verifies an included transfer that pays what is expected', async () => {
    const { rail, receipt } = await paid();
    expect(await rail.verify(receipt, { from: 'gateway', to: 'agent', amount: '100' })).toEqual({
      kind: 'verified',
      receipt,
    });
    expect(await rail.verify(receipt.txHash, { to: 'agent', amount: 100n })).toEqual({ kind: 'verified', receipt });
  });

  it('rejects the wrong payee, payer, amount, a reference that claims too much, and another rail', async () => {
    const { rail, receipt } = await paid();
    expect(await rail.verify(receipt, { to: 'someone', amount: 100n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-payee',
    });
    expect(await rail.verify(receipt, { from: 'someone', to: 'agent', amount: 100n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-payer',
    });
    expect(await rail.verify(receipt, { to: 'agent', amount: 99n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-amount',
    });
    expect(await rail.verify({ ...receipt, amount: '1000' }, { to: 'agent', amount: 100n })).toMatchObject({
      kind: 'rejected',
      reason: 'reference-mismatch',
    });
    expect(await rail.verify({ ...receipt, rail: 'lez' }, { to: 'agent', amount: 100n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-rail',
    });
    expect(await rail.verify({ txHash: 'zz' }, { to: 'agent', amount: 100n })).toMatchObject({
      kind: 'rejected',
      reason: 'invalid-reference',
    });
    expect(await rail.verify('ab'.repeat(32), { to: 'agent', amount: 100n })).toMatchObject({
      kind: 'unconfirmed',
      reason: 'not-included',
    });
  });

  it('binds a hash to one purpose', async () => {
    const { rail, receipt } = await paid();
    const expect1 = { to: 'agent', amount: 100n, purpose: 'task:1' };
    expect(await rail.verify(receipt, expect1)).toMatchObject({ kind: 'verified' });
    expect(await rail.verify(receipt, expect1)).toMatchObject({ kind: 'verified' });
    expect(await rail.verify(receipt, { ...expect1, purpose: 'task:2' })).toMatchObject({
      kind: 'rejected',
      reason: 'reused',
    });
  });

  it("verifies the agent's refund: a new transfer back, bound to the original", async () => {
    const { ledger, rail, receipt } = await paid();
    const agent = new MemoryRail({ ledger, payer: 'agent' });
    const refund = await agent.pay({ paymentId: 'refund:task:1', to: 'gateway', amount: 100n });
    if (refund.kind !== 'paid') throw new Error(refund.kind);

    const verified = await rail.verifyRefund(receipt, refund.receipt.txHash);
    expect(verified).toEqual({
      kind: 'verified',
      refund: { ...refund.receipt, refundOf: receipt.txHash },
      original: { ...receipt, status: 'refunded' },
    });
    // The original payment is no refund of itself, and a refund settles one payment only.
    expect(await rail.verifyRefund(receipt, receipt.txHash)).toMatchObject({ kind: 'rejected', reason: 'wrong-payer' });
    const other = await rail.pay({ paymentId: 'task:2', to: 'agent', amount: 100n });
    if (other.kind !== 'paid') throw new Error(other.kind);
    expect(await rail.verifyRefund(other.receipt, refund.receipt.txHash)).toMatchObject({
      kind: 'rejected',
      reason: 'reused',
    });
    expect(await rail.verifyRefund(receipt, refund.receipt.txHash, { amount: 50n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-amount',
    });
  });
});
