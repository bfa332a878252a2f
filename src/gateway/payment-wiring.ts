/**
 * Payment rails as the two sides need them: the gateway pays from its wallet (`Payer`), an agent checks what it
 * was paid and pays refunds (`AgentPayments`). Thin adapters over one `PaymentRail`, over fetch only: the Worker
 * builds its wallet's rail here too (the wallet key file is read in wallet-payer.ts).
 */
import type { Payer, TaskPaymentsOptions } from '../bridge/task-payments.ts';
import type { AgentPayments } from '../logos/agent-runtime.ts';
import type { AgentPaymentStore } from '../store/agent-payment-store.ts';
import { ConfigError, type GatewayConfig, type PaymentsConfig } from './config.ts';
import type { SigningKey } from '../lez/keys.ts';
import { LezRail } from '../lez/rail/lez-rail.ts';
import { SequencerClient } from '../lez/sequencer-client.ts';
import type { PayerLock } from '../lez/rail/payer-lock.ts';
import type { PaymentRail } from '../lez/rail/payment-rail.ts';
import { chooseSigningMode, probeSequencer } from '../lez/sequencer-probe.ts';
import type { SigningMode } from '../lez/signing.ts';

export function gatewayPayer(rail: PaymentRail): Payer {
  return {
    rail: rail.rail,
    account: rail.payer,
    pay: (paymentId, to, amount, record) => rail.pay({ paymentId, to, amount, onSigned: (signed) => record(signed) }),
    resume: (state) => rail.resume(state),
    verify: (txHash, expect) => rail.verify(txHash, { ...expect, purpose: `refund:${txHash}` }),
    findTransfers: (query) => rail.findTransfer(query),
  };
}

/** What the gateway may spend: the wallet's limits and each API key's budget, from the configuration. */
export function spendingRules(config: GatewayConfig): Pick<TaskPaymentsOptions, 'limits' | 'budgets'> {
  return {
    budgets: new Map(
      config.apiKeys.flatMap((key) => (key.budget === undefined ? [] : [[key.name, BigInt(key.budget)] as const])),
    ),
    limits: {
      perTransaction: BigInt(config.payments.perTransactionLimit),
      perPeriod: BigInt(config.payments.perPeriodLimit),
      periodMs: config.payments.periodMs,
    },
  };
}

/**
 * An agent's side of a rail. With a store (store/agent-payment-store.ts) its money survives a restart: a payment
 * reference is accepted once ever, a refund is signed once and resumed after a crash, and the payments of tasks it
 * can no longer complete are refunded at its next start (`refundOwed`).
 */
export function agentPayments(rail: PaymentRail, store?: AgentPaymentStore): AgentPayments {
  /** Pays `payment` back, resuming a refund signed before a crash rather than signing a second one. */
  const payBack = async (payment: { txHash: string; payer: string; amount: string }, paymentId: string) => {
    const signed = store?.get(payment.txHash)?.refundState;
    const outcome = signed
      ? await rail.resume(signed)
      : await rail.pay({
          paymentId,
          to: payment.payer,
          amount: payment.amount,
          onSigned: (record) => store?.setRefundState(payment.txHash, record),
        });
    if (outcome.kind !== 'paid') return { ok: false as const, message: outcome.message };
    store?.setStatus(payment.txHash, 'refunded');
    return { ok: true as const, txHash: outcome.receipt.txHash };
  };
  return {
    rail: rail.rail,
    account: rail.payer,
    verify: async (txHash, expect) => {
      if (store && !store.reserve(txHash, expect.from, expect.amount.toString()))
        return { ok: false, message: `transaction ${txHash} already paid for another task` };
      const outcome = await rail.verify(txHash, {
        from: expect.from,
        to: rail.payer,
        amount: expect.amount,
        purpose: `task-payment:${txHash}`,
      });
      if (outcome.kind === 'verified') return { ok: true };
      store?.release(txHash);
      return { ok: false, message: outcome.message };
    },
    refund: (paymentId, to, amount, paymentTxHash) =>
      payBack({ txHash: paymentTxHash ?? paymentId, payer: to, amount: amount.toString() }, paymentId),
    earned: (paymentTxHash) => store?.setStatus(paymentTxHash, 'earned'),
    refundOwed: async () => {
      for (const payment of store?.held() ?? []) {
        const result = await payBack(payment, `refund:${payment.txHash}`);
        if (!result.ok) console.error(`refunding payment ${payment.txHash} failed: ${result.message}`);
      }
    },
  };
}

/**
 * The signing mode of the sequencer at `url`, probed (lez/sequencer-probe.ts) and checked against the configured
 * one. A contradiction, an API this client does not speak, or no way to tell is a ConfigError: the start stops
 * with one line, before anything opens.
 */
export async function detectSigningMode(
  url: string,
  configured: PaymentsConfig['signingMode'],
  log: (line: string) => void = console.info,
): Promise<SigningMode> {
  const choice = chooseSigningMode(await probeSequencer(new SequencerClient({ url })), configured, url);
  if (!choice.ok) throw new ConfigError(choice.message);
  log(choice.note);
  return choice.signingMode;
}

/** A rail paying from `key` on the sequencer at `url`; with `payerLock`, by turns with the others sharing `key`. */
export function lezRail(url: string, key: SigningKey, signingMode: SigningMode, payerLock?: PayerLock): PaymentRail {
  const dependencies = { client: new SequencerClient({ url }), payer: key, ...(payerLock ? { payerLock } : {}) };
  // Poll for inclusion well inside a block interval: a paid task waits for its payment's block, no longer.
  return new LezRail(dependencies, { signingMode, pollIntervalMs: 200 });
}
