/**
 * A published HTTP agent with a LEZ price on a skill, on the devnet: the gateway pays the publishing side before the
 * task is carried to the HTTP agent; a task the HTTP agent fails, and a task cancelled while it works, are paid
 * back; a skill without a price is free. What moved is read from the chain, block by block.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { agentPayments, lezRail } from '../../src/gateway/payment-wiring.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import type { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { bridgeHttpAgent } from '../../src/publish/publish.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { AGENT, saveWalletKeyFile, WALLET } from '../support/devnet-wallet.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';

const PASSPHRASE = 'published and priced';
let dir: string;
let devnet: Devnet;
let http: HttpAgent;
let published: LogosAgent;
let gateway: Gateway;
let client: Client;

const echo = { metadata: { skill: 'echo' } };
const receipt = (task: Task) => task.metadata?.lez as { status: string; amount: string } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-paid-publish-'));
  devnet = await startDevnet({ blockIntervalMs: 200 });
  http = await startHttpAgent();
  const network = new MemoryNetwork();
  const bridged = await bridgeHttpAgent({
    url: http.url,
    // Paid to the card key's account: a devnet account, so that payments can reach it.
    node: () => ({
      transport: network.node('agent:desk'),
      cardKey: AGENT.secretKey,
      payments: agentPayments(lezRail(devnet.url, AGENT, 'prehash-v0.3')),
    }),
    prices: { echo: '5' },
  });
  if (!bridged.ok) throw new Error(bridged.message);
  published = bridged.published.agent;
  await published.start();
  const walletKeyFile = join(dir, 'wallet.json');
  await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
  process.env.LOGOS_A2A_WALLET_PASSPHRASE = PASSPHRASE;
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
    },
  });
  gateway = await startGateway(config, { network, agents: [published], log: () => undefined });
  client = await clientFor(`${gateway.url}/agents/weather-desk`);
}, 60_000);

afterAll(async () => {
  delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
  await gateway?.stop();
  await published?.stop();
  await http?.stop();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a published HTTP agent with a price', () => {
  it('is paid before the HTTP agent is called, refunds what it did not earn, and is free where unpriced', async () => {
    const card = (await (await fetch(`${gateway.url}/agents/weather-desk/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: { params?: { lezPrice?: unknown; payTo?: unknown } }[] };
    };
    expect(card.capabilities.extensions.map((extension) => extension.params?.lezPrice)).toContainEqual({
      default: '0',
      perSkill: { echo: '5' },
    });

    const done = (await client.sendMessage(textMessage('hello', echo))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((a) => a.parts.map((p) => p.content?.value).join(''))).toEqual(['echo: hello']);
    expect(receipt(done)).toMatchObject({ status: 'paid', amount: '5' });

    const failed = (await client.sendMessage(textMessage('fail', echo))) as Task;
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);

    const slow = (await client.sendMessage(
      textMessage('slow', { ...echo, configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: slow.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 30_000);
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: slow.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    for (const id of [failed.id, slow.id]) {
      await eventually(async () => {
        const task = await client.getTask(GetTaskRequest.fromJSON({ id }));
        return receipt(task)?.status === 'refunded' ? true : undefined;
      }, 30_000);
    }

    const free = (await client.sendMessage(textMessage('ask', { metadata: { skill: 'greet' } }))) as Task;
    expect(free.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(receipt(free)).toBeUndefined();

    // The chain: three payments of 5 to the publishing side, two of them paid back.
    const transfers = await transfersBetween(
      new SequencerClient({ url: devnet.url, timeoutMs: 5_000 }),
      WALLET.account,
      AGENT.account,
    );
    expect(transfers.filter((t) => t.from === WALLET.account).map((t) => t.amount)).toEqual([5n, 5n, 5n]);
    expect(transfers.filter((t) => t.from === AGENT.account).map((t) => t.amount)).toEqual([5n, 5n]);
  }, 120_000);
});
