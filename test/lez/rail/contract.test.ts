/**
 * One contract for every `PaymentRail` (src/lez/rail/payment-rail.ts): the same checks run against the memory rail
 * and the LEZ rail on a devnet (test/support/payment-rails.ts), each test on a ledger of its own. Money is checked on
 * the ledger itself, apart from what the rails say. The files beside this one test what only one rail does (the LEZ
 * rail's sequencer failures, nonce pipeline and crashes; the memory rail's shared lanes).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PayOutcome, PayRequest } from '../../../src/lez/rail/payment-rail.ts';
import type { RailPaymentRecord } from '../../../src/lez/rail/payment-record.ts';
import { TransferReceiptSchema } from '../../../src/lez/rail/receipt.ts';
import { GATEWAY_FUNDS, RAIL_IMPLEMENTATIONS, type RailWorld } from '../../support/payment-rails.ts';

function paid(outcome: PayOutcome) {
  if (outcome.kind !== 'paid') throw new Error(`expected paid, got ${JSON.stringify(outcome)}`);
  return outcome.receipt;
}

/** A record as a store gives it back: plain JSON. */
const stored = (record: RailPaymentRecord): unknown => JSON.parse(JSON.stringify(record));

describe.each(RAIL_IMPLEMENTATIONS)('the $name rail', { timeout: 60_000 }, ({ open }) => {
  let world: RailWorld;
  beforeEach(async () => {
    world = await open();
  });
  afterEach(async () => {
    await world.close();
  });

  /** The ledger's balances of the gateway and the agent, as differences from the start. */
  let agentAtStart: bigint;
  beforeEach(() => {
    agentAtStart = world.balanceOf(world.agent);
  });
  const moved = () => ({
    fromGateway: GATEWAY_FUNDS - world.balanceOf(world.gateway),
    toAgent: world.balanceOf(world.agent) - agentAtStart,
  });

  it('quotes a price in whole base units, with its fee in the total, and refuses anything else', async () => {
    const rail = world.gatewayRail();
    const quote = await rail.quote('150');
    expect(quote).toMatchObject({ kind: 'quoted', rail: rail.rail, network: rail.network, amount: '150' });
    if (quote.kind !== 'quoted') return;
    expect(BigInt(quote.total)).toBe(150n + BigInt(quote.fee));
    expect(await rail.quote(150n)).toEqual(quote);
    for (const bad of ['1.5', '-1', '01', '', '1e3', (1n << 128n).toString()]) {
      expect(await rail.quote(bad), bad).toMatchObject({ kind: 'invalid', reason: 'invalid-price' });
    }
  });

  it('pays once per paymentId, concurrent or repeated, with one record, and refuses other terms under it', async () => {
    const rail = world.gatewayRail();
    const records: RailPaymentRecord[] = [];
    let movedWhenSigned: ReturnType<typeof moved> | undefined;
    const request: PayRequest = {
      paymentId: 'task:1',
      to: world.agent,
      amount: 25n,
      onSigned: (record) => {
        records.push(record);
        movedWhenSigned = moved();
      },
    };
    const outcomes = await Promise.all([rail.pay(request), rail.pay(request), rail.pay(request)]);
    const later = await rail.pay({ ...request, amount: '25' });
    const receipt = paid(outcomes[0]!);
    for (const outcome of [...outcomes, later]) expect(outcome).toEqual(outcomes[0]);
    expect(TransferReceiptSchema.parse(receipt)).toEqual(receipt);
    expect(receipt).toMatchObject({
      rail: rail.rail,
      network: rail.network,
      from: world.gateway,
      to: world.agent,
      amount: '25',
      nonce: '0',
      status: 'included',
    });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ paymentId: 'task:1', txHash: receipt.txHash, amount: '25', nonce: '0' });
    // Recorded before anything was sent: a crash after it leaves a record, never money moved without one.
    expect(movedWhenSigned).toEqual({ fromGateway: 0n, toAgent: 0n });
    expect(moved()).toEqual({ fromGateway: 25n, toAgent: 25n });
    expect(await rail.balance()).toEqual({
      kind: 'ok',
      account: world.gateway,
      balance: (GATEWAY_FUNDS - 25n).toString(),
    });
    expect(await rail.pay({ ...request, amount: 26n })).toMatchObject({ kind: 'failed', reason: 'conflict' });
    expect(await rail.pay({ ...request, to: world.stranger })).toMatchObject({ kind: 'failed', reason: 'conflict' });
    expect(moved()).toEqual({ fromGateway: 25n, toAgent: 25n });
  });

  it('gives concurrent payments consecutive nonces, each paid', async () => {
    const rail = world.gatewayRail();
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => rail.pay({ paymentId: `task:${i}`, to: world.agent, amount: 1n })),
    );
    const nonces = outcomes.map((outcome) => Number(paid(outcome).nonce)).sort((x, y) => x - y);
    expect(nonces).toEqual([0, 1, 2, 3, 4]);
    expect(moved()).toEqual({ fromGateway: 5n, toAgent: 5n });
  });

  it('refuses, before signing anything: an overdraft, an uninitialised payee, a malformed request', async () => {
    const rail = world.gatewayRail();
    let signed = 0;
    const onSigned = () => void signed++;
    const refusals: [Omit<PayRequest, 'onSigned'>, string][] = [
      [{ paymentId: 'big', to: world.agent, amount: GATEWAY_FUNDS + 1n }, 'insufficient-funds'],
      [{ paymentId: 'stranger', to: world.stranger, amount: 5n }, 'payee-uninitialised'],
      [{ paymentId: 'zero', to: world.agent, amount: 0n }, 'invalid-request'],
      [{ paymentId: 'fraction', to: world.agent, amount: '1.0' }, 'invalid-request'],
      [{ paymentId: 'self', to: world.gateway, amount: 1n }, 'invalid-request'],
      [{ paymentId: '', to: world.agent, amount: 1n }, 'invalid-request'],
      [{ paymentId: 'nobody', to: 'has space', amount: 1n }, 'invalid-request'],
    ];
    for (const [request, reason] of refusals) {
      expect(await rail.pay({ ...request, onSigned }), request.paymentId).toMatchObject({ kind: 'failed', reason });
    }
    expect(signed).toBe(0);
    expect(moved()).toEqual({ fromGateway: 0n, toAgent: 0n });
    // Nothing was signed, so no nonce was taken: the next payment gets the first.
    expect(await rail.pay({ paymentId: 'next', to: world.agent, amount: 1n })).toMatchObject({
      kind: 'paid',
      receipt: { nonce: '0' },
    });
  });

  it('a record that could not be written: nothing moves, and a restarted rail resumes it, paying once', async () => {
    let record: unknown;
    const crashed = await world.gatewayRail().pay({
      paymentId: 'task:1',
      to: world.agent,
      amount: 10n,
      onSigned: (signed) => {
        record = stored(signed);
        throw new Error('power cut');
      },
    });
    expect(crashed).toMatchObject({ kind: 'failed', reason: 'record-failed' });
    expect(moved()).toEqual({ fromGateway: 0n, toAgent: 0n });

    const restarted = world.gatewayRail();
    const first = await restarted.resume(record);
    expect(first).toMatchObject({ kind: 'paid', paymentId: 'task:1', receipt: { amount: '10' } });
    expect(await restarted.resume(record)).toEqual(first);
    expect(await restarted.pay({ paymentId: 'task:1', to: world.agent, amount: 10n })).toEqual(first);
    expect(moved()).toEqual({ fromGateway: 10n, toAgent: 10n });
  });

  it('a record whose nonce another payment took is superseded, and never applied', async () => {
    const rail = world.gatewayRail();
    let record: unknown;
    await rail.pay({
      paymentId: 'a',
      to: world.agent,
      amount: 10n,
      onSigned: (signed) => ((record = stored(signed)), Promise.reject(new Error('crash'))),
    });
    paid(await rail.pay({ paymentId: 'b', to: world.agent, amount: 20n }));
    expect(await world.gatewayRail().resume(record)).toMatchObject({ kind: 'failed', reason: 'superseded' });
    expect(moved()).toEqual({ fromGateway: 20n, toAgent: 20n });
  });

  it('refuses to resume what is not a record, a tampered one, or another payer’s', async () => {
    let record: RailPaymentRecord | undefined;
    await world.gatewayRail().pay({
      paymentId: 'a',
      to: world.agent,
      amount: 10n,
      onSigned: (signed) => ((record = signed), Promise.reject(new Error('crash'))),
    });
    const rail = world.gatewayRail();
    for (const bad of [{ nope: true }, { ...record!, amount: '1' }, { ...record!, to: world.stranger }]) {
      expect(await rail.resume(bad)).toMatchObject({ kind: 'failed', reason: 'invalid-request' });
    }
    expect(await world.agentRail().resume(stored(record!))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-request',
    });
    expect(moved()).toEqual({ fromGateway: 0n, toAgent: 0n });
  });

  it('verifies a transfer that pays what is expected, and names what a wrong one gets wrong', async () => {
    const gateway = world.gatewayRail();
    const receipt = paid(await gateway.pay({ paymentId: 'task:1', to: world.agent, amount: 100n }));
    // The agent checks what the gateway says it paid, by reference or by bare hash.
    const agent = world.agentRail();
    const expected = { from: world.gateway, to: world.agent, amount: '100' };
    expect(await agent.verify(receipt, expected)).toEqual({ kind: 'verified', receipt });
    expect(await agent.verify(receipt.txHash, { to: world.agent, amount: 100n })).toEqual({
      kind: 'verified',
      receipt,
    });
    const rejected: [Parameters<typeof agent.verify>, string][] = [
      [[receipt, { ...expected, to: world.stranger }], 'wrong-payee'],
      [[receipt, { ...expected, from: world.stranger }], 'wrong-payer'],
      [[receipt, { ...expected, amount: 99n }], 'wrong-amount'],
      [[{ ...receipt, amount: '1000' }, expected], 'reference-mismatch'],
      [[{ ...receipt, network: 'elsewhere' }, expected], 'wrong-rail'],
      [[{ ...receipt, rail: receipt.rail === 'lez' ? 'memory' : 'lez' }, expected], 'wrong-rail'],
      [[{ txHash: 'zz' }, expected], 'invalid-reference'],
    ];
    for (const [args, reason] of rejected) {
      expect(await agent.verify(...args), reason).toMatchObject({ kind: 'rejected', reason });
    }
    expect(await agent.verify('ab'.repeat(32), expected)).toMatchObject({
      kind: 'unconfirmed',
      reason: 'not-included',
    });
  });

  it('binds a verified transfer to one purpose', async () => {
    const receipt = paid(await world.gatewayRail().pay({ paymentId: 'task:1', to: world.agent, amount: 100n }));
    const agent = world.agentRail();
    const forTask1 = { to: world.agent, amount: 100n, purpose: 'task:1' };
    expect(await agent.verify(receipt, forTask1)).toMatchObject({ kind: 'verified' });
    expect(await agent.verify(receipt, forTask1)).toMatchObject({ kind: 'verified' });
    expect(await agent.verify(receipt, { ...forTask1, purpose: 'task:2' })).toMatchObject({
      kind: 'rejected',
      reason: 'reused',
    });
  });

  it("verifies the agent's refund: a new transfer back, bound to the one payment it refunds", async () => {
    const gateway = world.gatewayRail();
    const payment = paid(await gateway.pay({ paymentId: 'task:1', to: world.agent, amount: 100n }));
    const refund = paid(await world.agentRail().pay({ paymentId: 'refund:task:1', to: world.gateway, amount: 100n }));
    expect(moved()).toEqual({ fromGateway: 0n, toAgent: 0n });

    expect(await gateway.verifyRefund(payment, refund.txHash)).toEqual({
      kind: 'verified',
      refund: { ...refund, refundOf: payment.txHash },
      original: { ...payment, status: 'refunded' },
    });
    // The payment is no refund of itself, a refund settles one payment only, and it is the whole amount by default.
    expect(await gateway.verifyRefund(payment, payment.txHash)).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-payer',
    });
    const other = paid(await gateway.pay({ paymentId: 'task:2', to: world.agent, amount: 100n }));
    expect(await gateway.verifyRefund(other, refund.txHash)).toMatchObject({ kind: 'rejected', reason: 'reused' });
    expect(await gateway.verifyRefund(payment, refund.txHash, { amount: 50n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-amount',
    });
    expect(await gateway.verify(refund, { to: world.gateway, amount: 100n, purpose: 'task:9' })).toMatchObject({
      kind: 'rejected',
      reason: 'reused',
    });
  });

  it('finds included transfers by what they do, newest first, and reads any account’s balance', async () => {
    const rail = world.gatewayRail();
    const first = paid(await rail.pay({ paymentId: 'task:1', to: world.agent, amount: 7n }));
    const second = paid(await rail.pay({ paymentId: 'task:2', to: world.agent, amount: 7n }));
    paid(await rail.pay({ paymentId: 'task:3', to: world.agent, amount: 8n }));
    const found = await rail.findTransfer({ from: world.gateway, to: world.agent, amount: 7n });
    expect(found).toEqual({ kind: 'found', txHashes: [second.txHash, first.txHash], complete: true });
    expect(await rail.findTransfer({ from: world.agent, to: world.gateway, amount: 7n })).toEqual({
      kind: 'found',
      txHashes: [],
      complete: true,
    });
    expect(await rail.balance(world.agent)).toEqual({
      kind: 'ok',
      account: world.agent,
      balance: world.balanceOf(world.agent).toString(),
    });
    expect(await rail.balance(world.stranger)).toEqual({ kind: 'ok', account: world.stranger, balance: '0' });
    expect(await rail.balance('has space')).toMatchObject({ kind: 'failed', reason: 'invalid-request' });
  });
});
