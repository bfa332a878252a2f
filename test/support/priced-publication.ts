/**
 * What a gateway that publishes an HTTP agent at a price needs on the devnet: a devnet, the HTTP agent (its own
 * process), the gateway's wallet key file (its passphrase in the environment, as an operator gives it), and the
 * publication's card key: a devnet genesis account, one that can receive there. The gateway itself is left to the
 * test, which may stop and start it again with the same configuration.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { loadConfig, type GatewayConfig } from '../../src/gateway/config.ts';
import { AGENT, saveWalletKeyFile } from './devnet-wallet.ts';
import { startHttpAgent, type HttpAgent } from './http-agent.ts';

type PublishedEntry = GatewayConfig['published'][number];

export interface PricedPublication {
  dir: string;
  devnet: Devnet;
  http: HttpAgent;
  /** The gateway's configuration: in memory, on SQLite in `dir`, paying from the devnet wallet. */
  config: GatewayConfig;
  stop(): Promise<void>;
}

/** `entry` adds to the publication of the HTTP agent, priced 5 for `echo`, paid to the devnet's AGENT account. */
export async function startPricedPublication(
  name: string,
  entry: Partial<Omit<PublishedEntry, 'url' | 'cardKeyFile'>> = {},
): Promise<PricedPublication> {
  const dir = mkdtempSync(join(tmpdir(), `logos-a2a-${name}-`));
  const devnet = await startDevnet({ blockIntervalMs: 200 });
  const http = await startHttpAgent();
  const walletKeyFile = join(dir, 'wallet.json');
  const passphrase = `${name} passphrase`;
  await saveWalletKeyFile(walletKeyFile, passphrase);
  process.env.LOGOS_A2A_WALLET_PASSPHRASE = passphrase;
  const cardKeyFile = join(dir, 'desk.lez.key');
  writeFileSync(cardKeyFile, `${Buffer.from(AGENT.secretKey).toString('hex')}\n`, { mode: 0o600 });
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      shutdownGraceMs: 500,
      transport: { kind: 'memory' },
      payments: { rail: 'lez', sequencerUrl: devnet.url, walletKeyFile },
      published: [{ url: http.url, prices: { echo: '5' }, cardKeyFile, ...entry }],
    },
  });
  return {
    dir,
    devnet,
    http,
    config,
    async stop() {
      delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
      await http.stop();
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
