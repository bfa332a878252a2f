/**
 * A priced outside lp-0008 agent (test/support/peer-agents/lp-0008.ts) on the devnet, paid in its binding's timing:
 * the request is published on the task's topic first, then the card's flat `pricePerTask` is paid to its payment
 * account at once, without waiting for an answer; the receipt names the transfer, and says `no-refund` for a paid
 * task that does not complete. A payment that fails after the request went out is followed by a cancel.
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
import { discoveryTopic, NETWORK } from '../../../src/logos/bindings/lp-0008/wire.ts';
import type { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { stopChild } from '../../support/child-process.ts';
import { clientFor, eventually, textMessage } from '../../support/gateway.ts';
import { startGatewayNode, startPeerAgent, type PeerAgentProcess } from '../../support/peer-agent-process.ts';

const NAMESPACE = 'agents';
const wallet = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex));
// An account the devnet has initialised for the native token: a transfer to any other would be refused.
const payee = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex)).account;
let dir: string;
let devnet: Devnet;
let hub: WakuTransport;
let gateway: Gateway;
let agent: PeerAgentProcess;
/** Paid to an account the devnet does not know: every payment to it fails. */
let unpayable: PeerAgentProcess;
let agentUrl: string;

const skill = (name: string) => ({ metadata: { skill: name } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-lp-0008-paid-'));
  devnet = await startDevnet({ port: 0, host: '127.0.0.1', blockIntervalMs: 200 });
  hub = await startGatewayNode(NETWORK.clusterId);
  hub.subscribe(discoveryTopic(NAMESPACE), () => undefined);
  agent = await startPeerAgent('lp-0008', {
    peer: hub.multiaddrs()[0],
    clusterId: NETWORK.clusterId,
    namespace: NAMESPACE,
    pricePerTask: 7,
    paymentAccount: payee,
    slowMs: 6_000,
  });
  unpayable = await startPeerAgent('lp-0008', {
    peer: hub.multiaddrs()[0],
    clusterId: NETWORK.clusterId,
    namespace: NAMESPACE,
    pricePerTask: 7,
  });
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/0'], keyFile: join(dir, 'gateway.key') },
      networks: [
        {
          name: 'lp-0008',
          entryNodes: [],
          bootstrap: hub.multiaddrs(),
          discoveryTopic: discoveryTopic(NAMESPACE),
          cardKeys: {
            [payee]: agent.ready.xOnlyKey as string,
            [unpayable.ready.paymentAccount as string]: unpayable.ready.xOnlyKey as string,
          },
        },
      ],
      payments: { rail: 'none', sequencerUrl: devnet.url },
    },
  });
  gateway = await startGateway(config, {
    log: () => undefined,
    payer: gatewayPayer(lezRail(devnet.url, wallet, 'prehash-v0.3')),
  });
  const id = peerAgentId('logos-text-agent', agent.ready.account as string);
  await eventually(() => gateway.directory.get(id), 60_000);
  await eventually(
    () => gateway.directory.get(peerAgentId('logos-text-agent', unpayable.ready.account as string)),
    60_000,
  );
  agentUrl = `${gateway.url}/agents/${id}`;
}, 120_000);

afterAll(async () => {
  await stopChild(agent?.child);
  await stopChild(unpayable?.child);
  await gateway?.stop();
  await hub?.stop();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('a priced lp-0008 agent, paid right after publishing, on the devnet', () => {
  it('publishes the request, pays the flat price to the card’s payment account, and receipts the transfer', async () => {
    const sequencer = new SequencerClient({ url: devnet.url });
    const before = await sequencer.getAccountBalance(payee);
    if (before.kind !== 'result') throw new Error(`balance: ${JSON.stringify(before)}`);
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('paid hello'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'text', value: 'paid hello' } });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    const receipt = (read.metadata as { lez?: Record<string, unknown> }).lez;
    expect(receipt).toMatchObject({ rail: 'lez', amount: '7', payee, status: 'paid' });
    expect(await sequencer.getAccountBalance(payee)).toEqual({ kind: 'result', value: before.value + 7n });
  }, 60_000);

  it('a paid task cancelled while the agent works is receipted no-refund', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(
      textMessage('never mind', { ...skill('text.slow'), configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      const paid = (now.metadata as { lez?: { status?: string } }).lez?.status === 'paid';
      return paid && now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 20_000);
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((cancelled.metadata as { lez?: Record<string, unknown> }).lez).toMatchObject({
      amount: '7',
      status: 'no-refund',
    });
  }, 60_000);

  it('the request goes out before the payment: a payment that fails leaves the agent a request, then a cancel', async () => {
    const id = peerAgentId('logos-text-agent', unpayable.ready.account as string);
    const client = await clientFor(`${gateway.url}/agents/${id}`);
    const task = (await client.sendMessage(textMessage('unpaid', skill('text.slow')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(task.status?.message?.parts)).toContain('Nothing was charged');
    // What the agent heard on the task's topic: the request, published before the payment was tried, then the cancel.
    await eventually(
      () => (unpayable.events.filter((e) => e.event === 'request').length >= 2 ? true : undefined),
      15_000,
    );
    expect(unpayable.events.filter((e) => e.event === 'request').map((e) => e.method)).toEqual([
      'message/send',
      'tasks/cancel',
    ]);
  }, 60_000);
});
