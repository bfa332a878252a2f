/**
 * Payment rails as the two sides need them: the gateway pays from its wallet (`Payer`), an agent checks what it
 * was paid and pays refunds (`AgentPayments`). Thin adapters over one `PaymentRail`.
 */
import type { Payer, PayResult, VerifyResult } from './bridge/task-payments.ts';
import type { AgentPayments } from './logos/agent-runtime.ts';
import type { PaymentsConfig } from './config.ts';
import type { PayOutcome, PaymentRail } from './lez/rail/payment-rail.ts';

function payResult(outcome: PayOutcome): PayResult {
  switch (outcome.status) {
    case 'paid':
      return { status: 'paid', txHash: outcome.receipt.txHash, state: outcome.receipt };
    case 'failed':
      return { status: 'failed', message: outcome.message };
    case 'in-doubt':
      return { status: 'in-doubt', message: outcome.message };
  }
}

export function gatewayPayer(rail: PaymentRail): Payer {
  return {
    rail: rail.rail,
    account: rail.payer,
    pay: async (paymentId, to, amount, record) => payResult(await rail.pay({ paymentId, to, amount, onSigned: (signed) => record(signed) })),
    resume: async (state) => payResult(await rail.resume(state)),
    verify: async (txHash, expect): Promise<VerifyResult> => {
      const outcome = await rail.verify(txHash, { ...expect, purpose: `refund:${txHash}` });
      return outcome.status === 'verified' ? { ok: true } : { ok: false, reason: outcome.reason, message: outcome.message };
    },
  };
}

export function agentPayments(rail: PaymentRail): AgentPayments {
  return {
    rail: rail.rail,
    account: rail.payer,
    verify: async (txHash, expect) => {
      const outcome = await rail.verify(txHash, { from: expect.from, to: rail.payer, amount: expect.amount, purpose: `task-payment:${txHash}` });
      return outcome.status === 'verified' ? { ok: true } : { ok: false, message: outcome.message };
    },
    refund: async (paymentId, to, amount) => {
      const outcome = await rail.pay({ paymentId, to, amount });
      return outcome.status === 'paid' ? { ok: true, txHash: outcome.receipt.txHash } : { ok: false, message: outcome.message };
    },
  };
}

/** The gateway wallet's payer from the configuration; undefined when payments are off. */
export async function payerFromConfig(config: PaymentsConfig): Promise<Payer | undefined> {
  switch (config.rail) {
    case 'none':
      return undefined;
    case 'memory':
      throw new Error('payments.rail "memory" is for tests, which pass their own payer; use "lez" or "none".');
    case 'lez':
      throw new Error('payments.rail "lez": not wired yet');
  }
}
