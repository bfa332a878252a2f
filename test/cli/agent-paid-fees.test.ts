/**
 * `logos-a2a agent paid` on a sequencer with fees (lee-v0.3; issue #25): the agent process probes the profile as the
 * gateway does, checks the payments it is sent in that protocol, and pays its refunds declaring a fee within the
 * default cap: neither the gateway nor the agent is told more than the sequencer's URL about fees. A devnet of that profile, a gateway paying from the devnet's first account, and the agent as its own
 * process, joined to the gateway over Waku Relay on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { DEFAULT_GAS_LIMIT, DEFAULT_MAX_BASE_FEE, feeReserve } from '../../src/lez/fees.ts';
import { feeTransferBytes } from '../../src/lez/native-transfer.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { saveWalletKeyFile } from '../support/devnet-wallet.ts';
import { eventually, rpc } from '../support/gateway.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';
import { cliEntry } from './dist.ts';

const [walletGenesis, agentGenesis] = DEVNET_GENESIS;
const PASSPHRASE = 'passphrase of the fees test';
/** Neither side sets a gas limit or a fee cap: the defaults' cap (docs/lez.md §10.5) bounds every fee. */
const CAP = feeReserve(
  { gasLimit: BigInt(DEFAULT_GAS_LIMIT), tip: 0n },
  feeTransferBytes(),
  DEFAULT_MAX_BASE_FEE,
  DEFAULT_MAX_BASE_FEE,
);

let dir: string;
let devnet: Devnet;
let sequencer: SequencerClient;
let gateway: Gateway;
let agent: ChildProcess | undefined;
let banner: string;

const call = (method: string, params: Record<string, unknown>) =>
  rpc(`${gateway.url}/agents/paid`, method, params, { 'A2A-Version': '1.0' });
const send = (skill: string, messageId: string, extra: Record<string, unknown> = {}) =>
  call('SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill } },
    ...extra,
  });

async function balanceOf(account: string): Promise<bigint> {
  const result = await sequencer.getAccountBalance(account);
  if (result.kind !== 'result') throw new Error(`balance: ${result.message}`);
  return result.value;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-agent-fees-'));
  // Metered as the CLI devnet meters a transfer (its default --transfer-gas).
  devnet = await startDevnet({ blockIntervalMs: 200, profile: 'lee-v0.3', transferGas: 100 });
  sequencer = new SequencerClient({ url: devnet.url, layout: 'lee-v0.3' });
  const walletKeyFile = join(dir, 'wallet.json');
  await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
  // The gateway reads the passphrase from its environment, as an operator gives it.
  process.env.LOGOS_A2A_WALLET_PASSPHRASE = PASSPHRASE;
  gateway = await startWakuGateway(dir, {
    overrides: {
      payments: {
        rail: 'lez',
        sequencerUrl: devnet.url,
        walletKeyFile,
        // The gate counts the fee cap beside the price: limits with room for both.
        perTransactionLimit: '100000',
        perPeriodLimit: '1000000',
      },
    },
  });
  // The agent is paid to its card key's account: the devnet's second, funded one.
  const cardKeyFile = join(dir, 'paid.lez.key');
  writeFileSync(cardKeyFile, `${agentGenesis.secretKeyHex}\n`, { mode: 0o600 });
  agent = spawn(
    process.execPath,
    [
      cliEntry(),
      'agent',
      'paid',
      '--peer',
      gateway.network.joinAddresses()[0]!,
      '--data',
      dir,
      '--card-key-file',
      cardKeyFile,
      '--sequencer',
      devnet.url,
      '--announce-every',
      '300',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const started = await untilPrinted(agent, /Ctrl-C stops it/, 'logos-a2a agent paid', 60_000);
  if (!started.match) throw new Error(`the paid agent did not start (exit ${started.code}):\n${started.output}`);
  banner = started.output;
  await eventually(async () => {
    const response = await fetch(`${gateway.url}/agents/paid/.well-known/agent-card.json`);
    return response.status === 200 ? true : undefined;
  }, 30_000);
}, 120_000);

afterAll(async () => {
  delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
  await stopChild(agent);
  await gateway?.stop();
  await devnet?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('a paid agent process on a sequencer with fees', { timeout: 90_000 }, () => {
  it('says which protocol it is paid in', () => {
    expect(banner).toContain(`paid on ${devnet.url} (protocol profile lee-v0.3)`);
  });

  it('takes a payment: the task completes, the agent gets its price, the gateway pays price and fee', async () => {
    const [walletBefore, agentBefore] = await Promise.all([
      balanceOf(walletGenesis.account),
      balanceOf(agentGenesis.account),
    ]);
    const task = (await send('echo', 'fees-paid')).body.result?.task;
    expect(task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts[0].text).toBe('hi');
    expect(task.metadata.lez).toMatchObject({ status: 'paid', amount: '5', maxFee: expect.stringMatching(/^\d+$/) });
    // The fee the transfer declared, within the gateway's cap.
    expect(BigInt(task.metadata.lez.maxFee)).toBeLessThanOrEqual(CAP);
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore + 5n);
    const walletAfter = await balanceOf(walletGenesis.account);
    expect(walletAfter).toBeLessThan(walletBefore - 5n);
    expect(walletAfter).toBeGreaterThanOrEqual(walletBefore - 5n - CAP);
  });

  it('refunds a task that ends unfinished, paying the refund’s fee itself', async () => {
    const task = (await send('slow', 'fees-refund', { configuration: { returnImmediately: true } })).body.result?.task;
    expect(task?.id).toBeTypeOf('string');
    await eventually(async () => {
      const state = (await call('GetTask', { id: task.id })).body.result?.status?.state;
      return state === 'TASK_STATE_WORKING' ? true : undefined;
    }, 30_000);
    const [walletPaid, agentPaid] = await Promise.all([
      balanceOf(walletGenesis.account),
      balanceOf(agentGenesis.account),
    ]);
    const cancelled = (await call('CancelTask', { id: task.id })).body.result;
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    expect(cancelled.metadata.lez.status).toBe('refunded');
    // The wallet has its 5 back; the agent gave them back and paid the refund's fee, within its cap.
    expect(await balanceOf(walletGenesis.account)).toBe(walletPaid + 5n);
    const agentAfter = await balanceOf(agentGenesis.account);
    expect(agentAfter).toBeLessThan(agentPaid - 5n);
    expect(agentAfter).toBeGreaterThanOrEqual(agentPaid - 5n - CAP);
  });
});
