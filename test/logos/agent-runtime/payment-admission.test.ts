/** A priced agent's money, apart from the runtime: admission by a verified transfer, and refunds, on a memory ledger. */
import { describe, expect, it } from 'vitest';
import { PaymentAdmission } from '../../../src/logos/agent-runtime/payment-admission.ts';
import type { TaskRequest, WirePaymentReference } from '../../../src/logos/envelope.ts';
import { MemoryLedger } from '../../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../../src/lez/rail/memory-rail.ts';
import { agentPayments } from '../../../src/gateway/payment-wiring.ts';
import { newStatusKey } from '../../../src/logos/status-key.ts';
import { minimalCard } from '../../support/cards.ts';
import { AGENT_ACCOUNT, GATEWAY_ACCOUNT } from '../../support/priced-agent.ts';

const OTHER_ACCOUNT = 'someone-else-on-the-memory-ledger';

const card = minimalCard({
  id: 'shop',
  'x-lez-identity': { account_id: AGENT_ACCOUNT },
  skills: [
    { id: 'paid', name: 'Paid', description: '', 'x-lez-price': '10' },
    { id: 'free', name: 'Free', description: '' },
  ],
});

/** A ledger where the gateway holds 100 and the agent's account can be paid, and the agent's admission over it. */
function world() {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY_ACCOUNT, 100n);
  ledger.initialise(AGENT_ACCOUNT);
  const gateway = new MemoryRail({ ledger, payer: GATEWAY_ACCOUNT });
  const admission = new PaymentAdmission(card, agentPayments(new MemoryRail({ ledger, payer: AGENT_ACCOUNT })));
  /** Pays the agent `amount` for `taskId` and answers the reference a request carries. */
  const pay = async (taskId: string, amount = 10n): Promise<WirePaymentReference> => {
    const outcome = await gateway.pay({ paymentId: `task:${taskId}`, to: AGENT_ACCOUNT, amount });
    if (outcome.kind !== 'paid') throw new Error(`the gateway could not pay: ${JSON.stringify(outcome)}`);
    return {
      rail: 'memory',
      tx_hash: outcome.receipt.txHash,
      from: GATEWAY_ACCOUNT,
      to: AGENT_ACCOUNT,
      amount: `${amount}`,
    };
  };
  return { ledger, admission, pay };
}

let n = 0;
function request(payment: WirePaymentReference | undefined, lezPrice = '10'): TaskRequest {
  return {
    v: 1,
    id: `r${++n}`,
    type: 'task_request',
    from: 'gateway',
    to: 'agent:shop',
    task_id: `task-${n}`,
    context_id: 'ctx',
    skill: 'paid',
    params: {},
    status_key: newStatusKey(),
    lez_price: lezPrice,
    ...(payment ? { payment } : {}),
  } as TaskRequest;
}

describe('payment admission', () => {
  it('refuses a priced card without payments for its own account', () => {
    expect(() => new PaymentAdmission(card, undefined)).toThrow(/priced card needs payments/);
    const elsewhere = agentPayments(
      new MemoryRail({ ledger: new MemoryLedger(), payer: 'another-account-of-32-characters' }),
    );
    expect(() => new PaymentAdmission(card, elsewhere)).toThrow(/priced card needs payments/);
    expect(() => new PaymentAdmission(minimalCard({ id: 'free' }), undefined)).not.toThrow();
  });

  it("takes the price from the agent's own card", () => {
    const { admission } = world();
    expect([admission.priceOf('paid'), admission.priceOf('free')]).toEqual([10n, 0n]);
  });

  it('admits a verified transfer of the price once: the same transfer for another task is refused', async () => {
    const { admission, pay } = world();
    const payment = await pay('one');
    const first = request(payment);
    expect(await admission.check(first, 10n)).toEqual({ kind: 'verified', payment });
    const again = await admission.check(request(payment), 10n);
    expect(again).toMatchObject({ kind: 'refused', problem: expect.stringMatching(/already paid for another task/) });
  });

  it('refuses an offer below the price, a missing payment, and a transfer of another amount, before any work', async () => {
    const { admission, pay } = world();
    expect(await admission.check(request(await pay('low'), '5'), 10n)).toEqual({
      kind: 'refused',
      problem: 'This skill costs 10; the request offers 5.',
    });
    expect(await admission.check(request(undefined), 10n)).toEqual({
      kind: 'refused',
      problem: 'This task costs 10 and came without a payment.',
    });
    const short = await pay('short', 9n);
    expect(await admission.check(request(short), 10n)).toMatchObject({
      kind: 'refused',
      problem: expect.stringMatching(/does not pay 10 to/),
    });
  });

  it('refuses a transfer from another payer than the reference names, and leaves the transfer free', async () => {
    const { admission, pay } = world();
    const payment = await pay('real');
    expect(await admission.check(request({ ...payment, from: OTHER_ACCOUNT }), 10n)).toMatchObject({
      kind: 'refused',
      problem: expect.stringMatching(/^The payment did not verify/),
    });
    // A refused check does not use the transfer up: named rightly, it still admits its task.
    expect((await admission.check(request(payment), 10n)).kind).toBe('verified');
  });

  it('pays a refund back to the payer on the ledger, and answers its reference', async () => {
    const { admission, pay, ledger } = world();
    const payment = await pay('refunded');
    await admission.check(request(payment), 10n);
    expect(ledger.balanceOf(GATEWAY_ACCOUNT)).toBe(90n);
    const refund = await admission.refund('refunded', payment);
    expect(refund).toMatchObject({ rail: 'memory', from: AGENT_ACCOUNT, to: GATEWAY_ACCOUNT, amount: '10' });
    expect(refund!.tx_hash).not.toBe(payment.tx_hash);
    expect(ledger.balanceOf(GATEWAY_ACCOUNT)).toBe(100n);
  });
});
