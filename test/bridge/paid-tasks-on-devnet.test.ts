/**
 * Paid tasks on a LEZ sequencer: the gateway and the agent each talk to the devnet over HTTP JSON-RPC with the
 * same rail a real sequencer gets. Balances are read back over HTTP with the sequencer client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { paidAgent } from '../../src/logos/agents/paid.ts';
import { agentPayments, gatewayPayer, lezRail } from '../../src/gateway/payment-wiring.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';

const [walletGenesis, agentGenesis] = DEVNET_GENESIS;
const wallet = signingKeyFromSecretKey(hexToBytes(walletGenesis.secretKeyHex));
const agentKey = signingKeyFromSecretKey(hexToBytes(agentGenesis.secretKeyHex));
let devnet: Devnet;
let bed: TestBed;
let sequencer: SequencerClient;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, host: '127.0.0.1', blockIntervalMs: 200 });
  sequencer = new SequencerClient({ url: devnet.url });
  bed = await startTestBed({
    agents: (network) => [
      paidAgent(network.node('agent:paid'), agentPayments(lezRail(devnet.url, agentKey, 'prehash-v0.3'))),
    ],
    payer: gatewayPayer(lezRail(devnet.url, wallet, 'prehash-v0.3')),
    config: { payments: { rail: 'none', sequencerUrl: devnet.url } },
  });
}, 30_000);
afterAll(async () => {
  await bed?.close();
  await devnet?.stop();
});

const balanceOf = async (account: string) => {
  const result = await sequencer.getAccountBalance(account);
  if (result.kind !== 'result') throw new Error(`balance: ${result.message}`);
  return result.value;
};
const send = (skill: string, extra: Record<string, unknown> = {}) =>
  rpc(`${bed.gateway.url}/agents/paid`, 'SendMessage', {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill } },
    ...extra,
  });

describe('paying on LEZ', () => {
  it('charges the price once, on chain, and the receipt names the transaction', async () => {
    const [walletBefore, agentBefore] = [await balanceOf(wallet.account), await balanceOf(agentKey.account)];
    const task = (await send('echo')).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.metadata.lez).toMatchObject({ rail: 'lez', amount: '5', payee: agentKey.account, status: 'paid' });
    expect(await balanceOf(wallet.account)).toBe(walletBefore - 5n);
    expect(await balanceOf(agentKey.account)).toBe(agentBefore + 5n);
    const tx = await sequencer.getTransaction(task.metadata.lez.txHash);
    expect(tx.kind === 'result' && tx.value !== null).toBe(true);
  });

  it('a cancelled paid task is refunded on chain, and the refund is verified', async () => {
    const walletBefore = await balanceOf(wallet.account);
    const task = (await send('slow', { configuration: { returnImmediately: true } })).body.result.task;
    await eventually(
      async () =>
        (await rpc(`${bed.gateway.url}/agents/paid`, 'GetTask', { id: task.id })).body.result.status.state ===
        'TASK_STATE_WORKING'
          ? true
          : undefined,
      10_000,
    );
    expect(await balanceOf(wallet.account)).toBe(walletBefore - 5n);
    const cancelled = (await rpc(`${bed.gateway.url}/agents/paid`, 'CancelTask', { id: task.id })).body.result;
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    expect(cancelled.metadata.lez.status).toBe('refunded');
    expect(await balanceOf(wallet.account)).toBe(walletBefore);
  }, 20_000);
});

describe('when the sequencer is unusable', () => {
  it('a sequencer that is down: the task fails with a clear message, nothing is charged', async () => {
    const down = await startTestBed({
      agents: (network) => [
        paidAgent(network.node('agent:paid'), agentPayments(lezRail(devnet.url, agentKey, 'prehash-v0.3'))),
      ],
      payer: gatewayPayer(lezRail('http://127.0.0.1:9', wallet, 'prehash-v0.3')),
    });
    try {
      const walletBefore = await balanceOf(wallet.account);
      const { body } = await rpc(`${down.gateway.url}/agents/paid`, 'SendMessage', {
        message: { messageId: 'down', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'echo' } },
      });
      expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
      expect(body.result.task.status.message.parts[0].text).toMatch(/payment of 5 .*(failed|not confirmed)/s);
      expect(await balanceOf(wallet.account)).toBe(walletBefore);
    } finally {
      await down.close();
    }
  }, 30_000);
});
