/**
 * A TaskObject's spending gate on a sequencer with fees (lee-v0.3): it counts the fee cap the WalletObject states
 * beside the price, as the Node gateway's does (bridge/spending-gate.ts), and nothing beside it on v0.2. The
 * Worker's own parts over real D1 (local-d1.ts) and the devnet over HTTP: `taskPayments` as a TaskObject builds it,
 * the WalletObject reached through a namespace that hands every call to the one object, as workerd does.
 */
import type { DurableObjectNamespace, DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import type { ProtocolProfile } from '../../src/lez/protocol-profile.ts';
import { WalletObject } from '../../src/worker/wallet-object.ts';
import { taskPayments } from '../../src/worker/worker-app.ts';
import { workerSettings, type WorkerEnv } from '../../src/worker/worker-env.ts';
import { openLocalD1 } from './local-d1.ts';

const [walletGenesis, agentGenesis] = DEVNET_GENESIS;
const MAX_FEE = '4000';
/** Room for the price alone: with the fee cap counted, a payment of this price waits for an operator. */
const LIMITS = { perTransactionLimit: '100', perPeriodLimit: '100000', gasLimit: 100 };

let d1: Awaited<ReturnType<typeof openLocalD1>>;
const devnets: Devnet[] = [];

beforeAll(async () => {
  d1 = await openLocalD1();
}, 60_000);
afterAll(async () => {
  for (const devnet of devnets) await devnet.stop();
  await d1?.dispose();
});

/** A Worker's environment paying on a devnet of `profile`, its WALLET namespace handing calls to one WalletObject. */
async function workerOn(profile: ProtocolProfile): Promise<WorkerEnv> {
  const devnet = await startDevnet({ blockIntervalMs: 200, profile, transferGas: 10 });
  devnets.push(devnet);
  let wallet: WalletObject | undefined;
  const namespace = {
    idFromName: (name: string) => name,
    get: () => ({ fetch: (url: string, init: RequestInit) => wallet!.fetch(new Request(url, init)) }),
  } as unknown as DurableObjectNamespace;
  const env: WorkerEnv = {
    DB: d1.db,
    TASKS: {} as DurableObjectNamespace,
    DIRECTORY: {} as DurableObjectNamespace,
    WALLET: namespace,
    LOGOS_A2A_TRANSPORT: 'nwaku-rest',
    LOGOS_A2A_NWAKU_REST_URL: 'http://127.0.0.1:8645',
    LOGOS_A2A_PAYMENTS_RAIL: 'lez',
    LOGOS_A2A_SEQUENCER_URL: devnet.url,
    LOGOS_A2A_WALLET_SECRET_KEY: walletGenesis.secretKeyHex,
    LOGOS_A2A_PAYMENTS_MAX_FEE: MAX_FEE,
    LOGOS_A2A_PAYMENTS: JSON.stringify(LIMITS),
  };
  wallet = new WalletObject({} as DurableObjectState, env);
  return env;
}

async function charge(env: WorkerEnv, taskId: string) {
  const payments = await taskPayments(env, workerSettings(env), taskId);
  return payments!.charge({ taskId, agentId: 'paid', payee: agentGenesis.account, amount: 100n });
}

describe("a TaskObject's spending gate", () => {
  it('on lee-v0.3 counts the fee cap beside the price: a payment the limit holds only without it waits', async () => {
    const outcome = await charge(await workerOn('lee-v0.3'), 'worker-fee-1');
    expect(outcome.kind).toBe('needs-approval');
    expect(outcome.kind === 'needs-approval' && outcome.reason).toMatch(
      /the price 100 and a fee of up to 4000 \(4100\) are above the per-transaction limit of 100/,
    );
  }, 60_000);

  it('on v0.2 counts the price alone, the fee cap configured or not: the same payment is made', async () => {
    const outcome = await charge(await workerOn('v0.2'), 'worker-fee-2');
    expect(outcome.kind).toBe('paid');
  }, 60_000);
});
