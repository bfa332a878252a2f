/** The Node gateway's wallet: its encrypted key file, unlocked with LOGOS_A2A_WALLET_PASSPHRASE at start. */
import type { Payer } from '../bridge/task-payments.ts';
import type { PayerLock } from '../lez/rail/payer-lock.ts';
import { loadKeyFile } from '../lez/wallet-key-file.ts';
import { ConfigError, type PaymentsConfig } from './config.ts';
import { detectLezProtocol, gatewayPayer, lezRail } from './payment-wiring.ts';

/**
 * The gateway wallet's payer from the configuration; undefined when payments are off. `payerLock` makes replicas
 * that share the wallet sign by turns.
 */
export async function payerFromConfig(
  config: PaymentsConfig,
  options: { env?: NodeJS.ProcessEnv; payerLock?: (account: string) => PayerLock } = {},
): Promise<Payer | undefined> {
  const env = options.env ?? process.env;
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
      const { signingMode, protocol } = await detectLezProtocol(config.sequencerUrl, config);
      const payerLock = options.payerLock?.(unlocked.key.account);
      return gatewayPayer(lezRail(config.sequencerUrl, unlocked.key, signingMode, payerLock, protocol));
    }
  }
}
