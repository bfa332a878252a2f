/**
 * What the Worker's payment tests run on: the project's devnet as its own process, the paid agent as its own process
 * (paid-agent.ts) reached only through its node's nwaku REST API, and `wrangler dev` paying from the devnet's first
 * genesis account (its key a Workers secret, here a --var).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { untilPrinted } from '../support/child-process.ts';
import { fileURLToPath } from 'node:url';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import type { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { eventually } from '../support/gateway.ts';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.ts';

export const [walletGenesis, agentGenesis] = DEVNET_GENESIS;

/** The paid agent on the sequencer at `sequencerUrl`; `restUrl` resolves once its node serves the REST API. */
export function startPaidAgent(sequencerUrl: string): { child: ChildProcess; restUrl: Promise<string> } {
  const script = fileURLToPath(new URL('./paid-agent.ts', import.meta.url));
  const child = spawn(process.execPath, [script, sequencerUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
  const restUrl = untilPrinted(child, /paid agent at (http:\/\/\S+)/, 'the paid agent', 90_000).then(
    ({ match, code, output }) => {
      if (!match) throw new Error(`the paid agent exited with ${code}:\n${output}`);
      return match[1]!;
    },
  );
  return { child, restUrl };
}

/** `wrangler dev` paying agents on `sequencerUrl` through the node at `restUrl`; resolves once it lists `paid`. */
export async function startPayingWorker(
  stateDir: string,
  settings: { restUrl: string; sequencerUrl: string; vars?: Record<string, string> },
): Promise<WranglerDev> {
  const worker = await startWranglerDev(stateDir, {
    LOGOS_A2A_NWAKU_REST_URL: settings.restUrl,
    LOGOS_A2A_DEFAULT_AGENT: 'paid',
    LOGOS_A2A_PAYMENTS_RAIL: 'lez',
    LOGOS_A2A_SEQUENCER_URL: settings.sequencerUrl,
    LOGOS_A2A_WALLET_SECRET_KEY: walletGenesis.secretKeyHex,
    ...settings.vars,
  });
  try {
    await eventually(async () => {
      const response = await fetch(`${worker.url}/agents/paid/.well-known/agent-card.json`);
      return response.status === 200 ? true : undefined;
    }, 30_000);
  } catch (error) {
    await worker.stop();
    throw error;
  }
  return worker;
}

/** An account's balance on the devnet. */
export async function balanceOf(sequencer: SequencerClient, account: string): Promise<bigint> {
  const result = await sequencer.getAccountBalance(account);
  if (result.kind !== 'result') throw new Error(`balance: ${result.message}`);
  return result.value;
}
