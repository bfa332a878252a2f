/**
 * Paid tasks on a sequencer of each protocol profile (lez/protocol-profile.ts), over HTTP JSON-RPC to the devnet:
 *
 * - `lee-v0.3` (fees): the gateway pays the agent's price plus a fee it declares within its cap; the receipt keeps
 *   price and fee apart; the spending gate counts the fee; a fee above the cap fails the task with nothing paid;
 *   /readyz says which profile the payments use.
 * - `v0.2` (the testnet today): an agent account that was never initialised would swallow the transfer, so the task
 *   fails before anything is paid, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { paidAgent } from '../../src/logos/agents/paid.ts';
import { agentPayments, gatewayPayer, lezRail } from '../../src/gateway/payment-wiring.ts';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import type { GatewayConfigInput } from '../../src/gateway/config.ts';

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
      /the price 5 and a fee of up to 4000 \(4005\) are above the gateway's per-transaction limit of 1000/,
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
