/**
 * MemoryRail, beyond what every rail does (contract.test.ts): no fee, rails of one ledger and payer taking turns,
 * and a payment refused by the ledger paying under the same id once the ledger allows it.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../../src/lez/rail/memory-rail.ts';

function setup(balance = 1_000n) {
  const ledger = new MemoryLedger();
  ledger.fund('gateway', balance);
  ledger.initialise('agent');
  const rail = new MemoryRail({ ledger, payer: 'gateway' });
  return { ledger, rail };
}

describe('MemoryRail', () => {
  it('quotes without a fee, a price of zero included', async () => {
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

  it('an id refused for an overdraft or an uninitialised payee pays once the ledger allows it', async () => {
    const { ledger, rail } = setup(50n);
    expect(await rail.pay({ paymentId: 'task:1', to: 'agent', amount: 60n })).toMatchObject({
      kind: 'failed',
      reason: 'insufficient-funds',
    });
    ledger.fund('gateway', 10n);
    expect(await rail.pay({ paymentId: 'task:1', to: 'agent', amount: 60n })).toMatchObject({ kind: 'paid' });

    ledger.fund('gateway', 1n);
    expect(await rail.pay({ paymentId: 'task:2', to: 'stranger', amount: 1n })).toMatchObject({
      kind: 'failed',
      reason: 'payee-uninitialised',
    });
    ledger.initialise('stranger');
    expect(await rail.pay({ paymentId: 'task:2', to: 'stranger', amount: 1n })).toMatchObject({ kind: 'paid' });
    expect(ledger.balanceOf('gateway')).toBe(0n);
  });
});
