/**
 * Payment rails as the two sides need them: the gateway pays from its wallet (`Payer`), an agent checks what it
 * was paid and pays refunds (`AgentPayments`). Thin adapters over one `PaymentRail`.
 */
import type { Payer } from '../bridge/task-payments.ts';
import type { AgentPayments } from '../logos/agent-runtime.ts';
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

export function agentPayments(rail: PaymentRail): AgentPayments {
  return {
    rail: rail.rail,
    account: rail.payer,
    verify: async (txHash, expect) => {
      const outcome = await rail.verify(txHash, {
        from: expect.from,
        to: rail.payer,
        amount: expect.amount,
        purpose: `task-payment:${txHash}`,
      });
      return outcome.kind === 'verified' ? { ok: true } : { ok: false, message: outcome.message };
    },
    refund: async (paymentId, to, amount) => {
      const outcome = await rail.pay({ paymentId, to, amount });
      return outcome.kind === 'paid'
        ? { ok: true, txHash: outcome.receipt.txHash }
        : { ok: false, message: outcome.message };
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
