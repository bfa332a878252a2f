/**
 * Paid tasks on a LEZ sequencer: the gateway and the agent each talk to the devnet over HTTP JSON-RPC with the
 * same rail a real sequencer gets. Balances are read back over HTTP with the sequencer client. Also: a sequencer
 * that is down, one that comes back within `payments.inDoubtWaitMs`, and a cancel while the agent cannot check its
 * payment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { paidAgent } from '../../src/logos/agents/paid.ts';
import { agentPayments, gatewayPayer, lezRail } from '../../src/gateway/payment-wiring.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { freePort } from '../support/free-port.ts';

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
const send = (skill: string, extra: Record<string, unknown> = {}, url = `${bed.gateway.url}/agents/paid`) =>
  rpc(url, 'SendMessage', {
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
      // A sequencer that refuses connections is asked again for this long (inDoubtWaitMs) before the task fails.
      config: { payments: { rail: 'none', inDoubtWaitMs: 1_500 } },
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

describe('when the sequencer is away for a moment', () => {
  /**
   * A devnet that can be stopped and started again where it was (its chain in a folder of its own, on a fixed
   * port), and a gateway paying the paid agent on it that waits up to `inDoubtWaitMs` for it.
   */
  async function blipBed(inDoubtWaitMs: number) {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-blip-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = () => startDevnet({ port, host: '127.0.0.1', blockIntervalMs: 200, dataDir: dir });
    let chain = await start();
    const bed = await startTestBed({
      agents: (network) => [
        paidAgent(network.node('agent:paid'), agentPayments(lezRail(url, agentKey, 'prehash-v0.3'))),
      ],
      payer: gatewayPayer(lezRail(url, wallet, 'prehash-v0.3')),
      config: { payments: { rail: 'none', sequencerUrl: url, inDoubtWaitMs } },
    });
    return {
      bed,
      chain: () => chain,
      restart: async () => void (chain = await start()),
      close: async () => {
        await bed.close();
        await chain.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  it('the payment waits for it (connections refused) within inDoubtWaitMs, and is made once', async () => {
    const blip = await blipBed(20_000);
    try {
      const walletBefore = blip.chain().balance(wallet.account);
      await blip.chain().stop();
      const sent = rpc(`${blip.bed.gateway.url}/agents/paid`, 'SendMessage', {
        message: { messageId: 'blip', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'echo' } },
      });
      // Long enough for the gateway to find the sequencer gone (it asks within a few ms) and ask again.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await blip.restart();
      const task = (await sent).body.result.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.metadata.lez).toMatchObject({ status: 'paid', amount: '5' });
      expect(blip.chain().balance(wallet.account)).toBe(walletBefore - 5n);
    } finally {
      await blip.close();
    }
  }, 60_000);

  it('a task cancelled while its payment waits for the sequencer ends CANCELED at once, nothing charged', async () => {
    const blip = await blipBed(30_000);
    try {
      const walletBefore = blip.chain().balance(wallet.account);
      await blip.chain().stop();
      const agentUrl = `${blip.bed.gateway.url}/agents/paid`;
      const task = (await send('slow', { configuration: { returnImmediately: true } }, agentUrl)).body.result.task;
      await new Promise((resolve) => setTimeout(resolve, 500));
      const asked = Date.now();
      const cancelled = (await rpc(agentUrl, 'CancelTask', { id: task.id })).body.result;
      // Not after inDoubtWaitMs: the wait ends with the cancel.
      expect(Date.now() - asked).toBeLessThan(5_000);
      expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
      expect(JSON.stringify(cancelled.status.message)).toContain('nothing was charged');
      await blip.restart();
      expect(blip.chain().balance(wallet.account)).toBe(walletBefore);
    } finally {
      await blip.close();
    }
  }, 60_000);

  it('a task cancelled while its agent cannot reach the sequencer to check the payment ends CANCELED', async () => {
    // The agent asks a port nobody listens on: its check of the payment stays unconfirmed until it gives up (10 s),
    // and the cancel reaches it meanwhile. It used to end the task REJECTED ("the payment did not verify").
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const bed = await startTestBed({
      agents: (network) => [
        paidAgent(network.node('agent:paid'), agentPayments(lezRail(nobody, agentKey, 'prehash-v0.3'))),
      ],
      payer: gatewayPayer(lezRail(devnet.url, wallet, 'prehash-v0.3')),
      config: { payments: { rail: 'none', sequencerUrl: devnet.url }, cancelTimeoutMs: 500 },
    });
    try {
      const url = `${bed.gateway.url}/agents/paid`;
      const task = (await send('slow', { configuration: { returnImmediately: true } }, url)).body.result.task;
      // Paid and forwarded: the agent is checking the payment.
      await eventually(async () => {
        const state = (await rpc(url, 'GetTask', { id: task.id })).body.result;
        return state.metadata?.lez?.status === 'paid' ? true : undefined;
      }, 10_000);
      await rpc(url, 'CancelTask', { id: task.id });
      const ended = await eventually(async () => {
        const state = (await rpc(url, 'GetTask', { id: task.id })).body.result;
        return state.status.state === 'TASK_STATE_WORKING' || state.status.state === 'TASK_STATE_SUBMITTED'
          ? undefined
          : state;
      }, 20_000);
      expect(ended.status.state).toBe('TASK_STATE_CANCELED');
      expect(JSON.stringify(ended.status.message)).toContain('The payment did not verify');
    } finally {
      await bed.close();
    }
  }, 40_000);
});
