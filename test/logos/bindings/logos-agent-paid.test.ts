/**
 * A priced skill of an outside logos-agent agent (test/support/peer-agents/logos-agent.ts) on the devnet: the
 * binding's payment timing is the gateway's own flow, paying before sending, so the gateway pays the skill's price to
 * the card's `lezAccount` on the chain, then publishes the request naming the transfer (`paymentTx`), and the task's
 * receipt says what was paid, to whom, by which transaction. The agent never refunds: a paid task it cancels is
 * recorded `no-refund` at once, the money still spent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../../src/devnet/devnet.ts';
import { loadConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/gateway.ts';
import { gatewayPayer, lezRail } from '../../../src/gateway/payment-wiring.ts';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../../src/lez/keys.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';
import { peerAgentId } from '../../../src/logos/bindings/common/peer-card.ts';
import { NETWORK } from '../../../src/logos/bindings/logos-agent/wire.ts';
import { stopChild } from '../../support/child-process.ts';
import { clientFor, eventually, textMessage } from '../../support/gateway.ts';
import {
  drainBatch,
  heardInInbox,
  holdBatch,
  startPeerAgent,
  type PeerAgentProcess,
} from '../../support/peer-agent-process.ts';

const wallet = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex));
// An account the devnet has initialised for the native token: a transfer to any other would be refused.
const payee = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex)).account;
let dir: string;
let devnet: Devnet;
let gateway: Gateway;
let agent: PeerAgentProcess;
let agentUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-logos-agent-paid-'));
  devnet = await startDevnet({ port: 0, host: '127.0.0.1', blockIntervalMs: 200 });
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/0'], keyFile: join(dir, 'gateway.key') },
      networks: [{ name: 'logos-agent', listen: ['/ip4/127.0.0.1/tcp/0'] }],
      payments: { rail: 'none', sequencerUrl: devnet.url },
    },
  });
  gateway = await startGateway(config, {
    log: () => undefined,
    payer: gatewayPayer(lezRail(devnet.url, wallet, 'prehash-v0.3')),
  });
  agent = await startPeerAgent('logos-agent', {
    peer: gateway.peerNetworks.nodeOf('logos-agent')!.joinAddresses()[0],
    clusterId: NETWORK.clusterId,
    echoPriceLez: '10',
    account: payee,
  });
  const id = peerAgentId('greeter-agent', agent.ready.account as string);
  await eventually(() => gateway.directory.get(id), 60_000);
  agentUrl = `${gateway.url}/agents/${id}`;
}, 120_000);

afterAll(async () => {
  await stopChild(agent?.child);
  await gateway?.stop();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('a priced logos-agent skill, paid before sending, on the devnet', () => {
  it('pays the price to the card’s account on chain, then sends the request naming the transfer', async () => {
    const account = agent.ready.account as string;
    const sequencer = new SequencerClient({ url: devnet.url });
    const before = await sequencer.getAccountBalance(account);
    if (before.kind !== 'result') throw new Error(`balance: ${JSON.stringify(before)}`);
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('paid hello'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'data', value: { echo: 'paid hello' } } });
    const receipt = (task.metadata as { lez?: Record<string, unknown> }).lez;
    expect(receipt).toMatchObject({ rail: 'lez', amount: '10', payee: account, status: 'paid' });
    const balance = await sequencer.getAccountBalance(account);
    expect(balance).toEqual({ kind: 'result', value: before.value + 10n });
    const request = agent.events.find((e) => (e.message as { taskId?: string })?.taskId === task.id)?.message;
    expect(request).toEqual({
      kind: 'task_request',
      taskId: task.id,
      skill: 'demo.echo',
      params: { text: 'paid hello' },
      paymentTx: receipt!.txHash,
    });
  }, 60_000);

  it('a paid task the agent cancels is recorded no-refund: its binding has no refunds', async () => {
    const client = await clientFor(agentUrl);
    // The agent's inbox held until the paid request and its cancel are both there: one batch.
    await holdBatch(agent);
    const task = (await client.sendMessage(
      textMessage('never mind', { configuration: { returnImmediately: true } }),
    )) as Task;
    // The request goes out once paid; the cancel follows it.
    await heardInInbox(agent, 'task_request', task.id);
    const cancelling = client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    await heardInInbox(agent, 'task_cancel', task.id);
    expect(await drainBatch(agent)).toEqual({ requests: [task.id], cancels: [task.id] });
    const cancelled = await cancelling;
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((cancelled.metadata as { lez?: Record<string, unknown> }).lez).toMatchObject({
      amount: '10',
      status: 'no-refund',
    });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect((read.metadata as { lez?: Record<string, unknown> }).lez).toMatchObject({ status: 'no-refund' });
  }, 60_000);
});
