/**
 * Paid tasks on a sequencer of each protocol profile (lez/protocol-profile.ts), over HTTP JSON-RPC to the devnet:
 *
 * - `lee-v0.3` (fees): the gateway pays the agent's price plus a fee it declares within its cap; the receipt keeps
 *   price and fee apart; the spending gate counts the fee; a fee above the cap fails the task with nothing paid;
 *   /readyz says which profile the payments use.
 * - `v0.2` (the testnet today): an agent account that was never initialised would swallow the transfer, so the task
 *   fails before anything is paid, saying so.
 * - Either: a gateway told only the sequencer's URL pays an agent (the defaults of docs/lez.md §10.5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { paidAgent } from '../../src/logos/agents/paid.ts';
import { agentPayments, detectLezProtocol, gatewayPayer, lezRail } from '../../src/gateway/payment-wiring.ts';
import { payerFromConfig } from '../../src/gateway/wallet-payer.ts';
import { feeReserve } from '../../src/lez/fees.ts';
import { feeTransferBytes } from '../../src/lez/native-transfer.ts';
import { saveWalletKeyFile } from '../support/devnet-wallet.ts';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { GatewayConfig, type GatewayConfigInput } from '../../src/gateway/config.ts';

const [walletGenesis, agentGenesis] = DEVNET_GENESIS;
const wallet = signingKeyFromSecretKey(hexToBytes(walletGenesis.secretKeyHex));
const agentKey = signingKeyFromSecretKey(hexToBytes(agentGenesis.secretKeyHex));
/** An account nobody ever initialised. */
const stranger = signingKeyFromSecretKey(hexToBytes('5a'.repeat(32)));

/** The devnet meters a transfer at 10 gas; the official wallet's 2,000,000 would not fit its genesis balances. */
const FEES = { profile: 'lee-v0.3', maxFee: '4000', gasLimit: 100 } as const;

const send = (bed: TestBed, skill: string, id = `m-${Math.random()}`) =>
  rpc(`${bed.gateway.url}/agents/paid`, 'SendMessage', {
    message: { messageId: id, role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill } },
  });

async function balanceOf(sequencer: SequencerClient, account: string): Promise<bigint> {
  const result = await sequencer.getAccountBalance(account);
  if (result.kind !== 'result') throw new Error(`balance: ${result.message}`);
  return result.value;
}

describe('paying on a sequencer with fees (lee-v0.3)', () => {
  let devnet: Devnet;
  let sequencer: SequencerClient;
  const beds: TestBed[] = [];

  const bed = async (maxFee: string, payments: GatewayConfigInput['payments'] = {}) => {
    const started = await startTestBed({
      agents: (network) => [
        paidAgent(
          network.node('agent:paid'),
          agentPayments(lezRail(devnet.url, agentKey, 'prehash-v0.3', undefined, FEES)),
        ),
      ],
      payer: gatewayPayer(lezRail(devnet.url, wallet, 'prehash-v0.3', undefined, { ...FEES, maxFee })),
      config: {
        payments: {
          rail: 'none',
          sequencerUrl: devnet.url,
          perTransactionLimit: '10000',
          perPeriodLimit: '100000',
          ...payments,
        },
      },
    });
    beds.push(started);
    return started;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ blockIntervalMs: 200, profile: 'lee-v0.3', transferGas: 10 });
    sequencer = new SequencerClient({ url: devnet.url, layout: 'lee-v0.3' });
  }, 30_000);
  afterAll(async () => {
    for (const started of beds) await started.close();
    await devnet?.stop();
  });

  it('pays the price and a fee within the cap; the receipt keeps them apart; /readyz names the profile', async () => {
    const gateway = await bed('4000');
    const ready = await (await fetch(`${gateway.gateway.url}/readyz`)).json();
    expect(ready).toEqual({ status: 'ready', payments: { rail: 'lez', profile: 'lee-v0.3' } });

    const [walletBefore, agentBefore] = [
      await balanceOf(sequencer, wallet.account),
      await balanceOf(sequencer, agentKey.account),
    ];
    const task = (await send(gateway, 'echo')).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.metadata.lez).toMatchObject({ rail: 'lez', amount: '5', payee: agentKey.account, status: 'paid' });
    const maxFee = BigInt(task.metadata.lez.maxFee);
    expect(maxFee).toBeGreaterThan(0n);
    expect(maxFee).toBeLessThanOrEqual(4000n);
    // The agent gets the price, exactly; the wallet pays the price and a fee no larger than it declared.
    expect(await balanceOf(sequencer, agentKey.account)).toBe(agentBefore + 5n);
    const spent = walletBefore - (await balanceOf(sequencer, wallet.account));
    expect(spent).toBeGreaterThan(5n);
    expect(spent).toBeLessThanOrEqual(5n + maxFee);
  }, 30_000);

  it('the spending gate counts the fee: price and fee together above the per-transaction limit wait for an operator', async () => {
    const gateway = await bed('4000', { perTransactionLimit: '1000' });
    const walletBefore = await balanceOf(sequencer, wallet.account);
    const task = (await send(gateway, 'echo')).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.message.parts[0].text).toMatch(
      /the price 5 and a fee of up to 4000 \(4005\) are above the per-transaction limit of 1000/,
    );
    expect(await balanceOf(sequencer, wallet.account)).toBe(walletBefore);
  }, 30_000);

  it("the period's limit counts the fees of earlier payments too", async () => {
    // 5 + 4000 fits; after it, the period holds 5 and the first payment's declared fee, and 5 + 4000 more does not.
    const gateway = await bed('4000', { perPeriodLimit: '5010' });
    const first = (await send(gateway, 'echo')).body.result.task;
    expect(first.status.state).toBe('TASK_STATE_COMPLETED');
    const spent = 5n + BigInt(first.metadata.lez.maxFee);
    const second = (await send(gateway, 'echo')).body.result.task;
    expect(second.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(second.status.message.parts[0].text).toContain(
      `would bring this period's spending to ${spent + 4005n}, above the limit of 5010`,
    );
  }, 30_000);

  it('a fee above the cap: the task fails saying so, nothing is paid', async () => {
    const gateway = await bed('50');
    const walletBefore = await balanceOf(sequencer, wallet.account);
    const task = (await send(gateway, 'echo')).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message.parts[0].text).toMatch(
      /payment of 5 to the agent failed: the fee for this payment may reach \d+ .*above the cap payments\.maxFee = 50; nothing was paid/s,
    );
    expect(await balanceOf(sequencer, wallet.account)).toBe(walletBefore);
  }, 30_000);
});

describe('paying on a sequencer without fees (v0.2)', () => {
  it('an agent account never initialised: the task fails before anything is paid, and says why', async () => {
    const devnet = await startDevnet({ blockIntervalMs: 200, profile: 'v0.2' });
    const sequencer = new SequencerClient({ url: devnet.url });
    const gateway = await startTestBed({
      agents: (network) => [
        paidAgent(network.node('agent:paid'), agentPayments(lezRail(devnet.url, stranger, 'prehash-v0.3'))),
      ],
      payer: gatewayPayer(lezRail(devnet.url, wallet, 'prehash-v0.3')),
      config: { payments: { rail: 'none', sequencerUrl: devnet.url } },
    });
    try {
      const ready = await (await fetch(`${gateway.gateway.url}/readyz`)).json();
      expect(ready).toEqual({ status: 'ready', payments: { rail: 'lez', profile: 'v0.2' } });
      const walletBefore = await balanceOf(sequencer, wallet.account);
      const task = (await send(gateway, 'echo')).body.result.task;
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(task.status.message.parts[0].text).toMatch(
        new RegExp(
          `payment of 5 to the agent failed: payee ${stranger.account} is not initialised .*would be dropped.*Nothing was charged`,
          's',
        ),
      );
      expect(await balanceOf(sequencer, wallet.account)).toBe(walletBefore);
      expect(await balanceOf(sequencer, stranger.account)).toBe(0n);
      expect(await sequencer.getAccountsNonces([wallet.account])).toEqual({ kind: 'result', value: [0n] });
    } finally {
      await gateway.close();
      await devnet.stop();
    }
  }, 30_000);
});

/**
 * Issue #25's "done when": a gateway told nothing about the sequencer but its URL (and its wallet's key file) pays an
 * agent on either profile. On lee-v0.3 the rail declares the default gas limit and keeps the fee under the default cap
 * (docs/lez.md §10.5), on a devnet metering a transfer as `logos-a2a devnet` does (100 gas). The agent, too, is told
 * only the URL. Nor are the spending limits set: their defaults leave room, on lee-v0.3, for each payment's fee cap
 * beside a price of up to 100 (bridge/spending-gate.ts), so the paid task goes ahead without an operator.
 */
describe('a gateway told only the sequencer URL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-url-only-'));
  const keyFile = join(dir, 'wallet.json');
  const env = { LOGOS_A2A_WALLET_PASSPHRASE: 'url only' };
  beforeAll(() => saveWalletKeyFile(keyFile, env.LOGOS_A2A_WALLET_PASSPHRASE));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([{ profile: 'lee-v0.3' as const }, { profile: 'v0.2' as const }])(
    'pays an agent on $profile, within the default spending limits',
    async ({ profile }) => {
      const devnet = await startDevnet({ blockIntervalMs: 200, profile, transferGas: 100 });
      const sequencer = new SequencerClient({ url: devnet.url, layout: profile });
      const quiet = () => undefined;
      const payments = GatewayConfig.parse({
        payments: { rail: 'lez', sequencerUrl: devnet.url, walletKeyFile: keyFile },
      }).payments;
      const info = vi.spyOn(console, 'info').mockImplementation(quiet);
      const payer = await payerFromConfig(payments, { env }).finally(() => info.mockRestore());
      const agentSide = await detectLezProtocol(devnet.url, {}, quiet);
      const gateway = await startTestBed({
        agents: (network) => [
          paidAgent(
            network.node('agent:paid'),
            agentPayments(lezRail(devnet.url, agentKey, agentSide.signingMode, undefined, agentSide.protocol)),
          ),
        ],
        payer: payer!,
        config: { payments: { rail: 'none', sequencerUrl: devnet.url } },
      });
      try {
        const [walletBefore, agentBefore] = [
          await balanceOf(sequencer, wallet.account),
          await balanceOf(sequencer, agentKey.account),
        ];
        const task = (await send(gateway, 'echo')).body.result.task;
        expect(task.status.state, JSON.stringify(task.status)).toBe('TASK_STATE_COMPLETED');
        expect(task.metadata.lez).toMatchObject({ amount: '5', payee: agentKey.account, status: 'paid' });
        expect(await balanceOf(sequencer, agentKey.account)).toBe(agentBefore + 5n);
        // The chain searched block by block (how a refund without a reference is found) shows the payment too.
        const found = await payer!.findTransfers({
          from: wallet.account,
          to: agentKey.account,
          amount: 5n,
          notBeforeMs: Date.now() - 60_000,
        });
        expect(found).toEqual({ kind: 'found', txHashes: [task.metadata.lez.txHash], complete: true });
        const spent = walletBefore - (await balanceOf(sequencer, wallet.account));
        if (profile === 'v0.2') {
          expect(payer!.feeCap).toBeUndefined();
          expect(spent).toBe(5n);
        } else {
          // A fee was paid, within what the payment declared, within the default cap the gate counted.
          const maxFee = BigInt(task.metadata.lez.maxFee);
          expect(payer!.feeCap).toBe(feeReserve({ gasLimit: 200n, tip: 0n }, feeTransferBytes(), 64n, 64n));
          expect(maxFee).toBeLessThanOrEqual(payer!.feeCap!);
          expect(spent).toBeGreaterThan(5n);
          expect(spent).toBeLessThanOrEqual(5n + maxFee);
        }
      } finally {
        await gateway.close();
        await devnet.stop();
      }
    },
    30_000,
  );
});
