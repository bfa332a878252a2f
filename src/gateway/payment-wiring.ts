/**
 * Payment rails as the two sides need them: the gateway pays from its wallet (`Payer`), an agent checks what it
 * was paid and pays refunds (`AgentPayments`). Thin adapters over one `PaymentRail`.
 */
import type { Payer } from '../bridge/task-payments.ts';
import type { AgentPayments } from '../logos/agent-runtime.ts';
import type { AgentPaymentStore } from '../store/agent-payment-store.ts';
import { ConfigError, type PaymentsConfig } from './config.ts';
import { loadKeyFile } from '../lez/wallet-key-file.ts';
import type { SigningKey } from '../lez/keys.ts';
import { LezRail } from '../lez/rail/lez-rail.ts';
import { SequencerClient } from '../lez/sequencer-client.ts';
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

/** A rail paying from `key` on the sequencer at `url`. */
export function lezRail(url: string, key: SigningKey, signingMode: SigningMode): PaymentRail {
  // Poll for inclusion well inside a block interval: a paid task waits for its payment's block, no longer.
  return new LezRail({ client: new SequencerClient({ url }), payer: key }, { signingMode, pollIntervalMs: 200 });
}

/** The gateway wallet's payer from the configuration; undefined when payments are off. */
export async function payerFromConfig(
  config: PaymentsConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Payer | undefined> {
  switch (config.rail) {
    case 'none':
      return undefined;
    case 'memory':
      throw new ConfigError('payments.rail "memory" is for tests, which pass their own ledger; use "lez" or "none".');
    case 'lez': {
      if (!config.sequencerUrl)
        throw new ConfigError('payments.sequencerUrl (env LOGOS_A2A_SEQUENCER_URL) is required with the lez rail.');
      const passphrase = env.LOGOS_A2A_WALLET_PASSPHRASE;
      if (!passphrase)
        throw new ConfigError('LOGOS_A2A_WALLET_PASSPHRASE must hold the passphrase of payments.walletKeyFile.');
      const unlocked = await loadKeyFile(config.walletKeyFile, passphrase);
      if (!unlocked.ok) throw new ConfigError(`payments.walletKeyFile ${config.walletKeyFile}: ${unlocked.message}`);
      const signingMode = await detectSigningMode(config.sequencerUrl, config.signingMode);
      return gatewayPayer(lezRail(config.sequencerUrl, unlocked.key, signingMode));
    }
  }
}
