/**
 * A gateway's `published` entry with a LEZ price, on the devnet: the gateway publishes the HTTP agent paid to the
 * account of the entry's card key file, on the gateway's sequencer, and its own wallet pays it. A task is paid before
 * the HTTP agent is called; a task the HTTP agent fails is paid back; a paid task in flight when the gateway stops is
 * paid back by the publication when the gateway starts again, from the money state kept beside its database. What
 * moved is read from the chain.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { SqliteAgentPaymentStore } from '../../src/store/sqlite/agent-payment-store.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { AGENT, WALLET } from '../support/devnet-wallet.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { startPricedPublication, type PricedPublication } from '../support/priced-publication.ts';

let bed: PricedPublication;
const network = new MemoryNetwork();
let gateway: Gateway | undefined;
let client: Client;

const echo = { metadata: { skill: 'echo' } };
const receipt = (task: Task) => task.metadata?.lez as { status: string; amount: string } | undefined;
const start = () => startGateway(bed.config, { network, log: () => undefined });

beforeAll(async () => {
  bed = await startPricedPublication('paid-published');
  gateway = await start();
  client = await clientFor(`${gateway.url}/agents/weather-desk`);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await bed?.stop();
});

const refunded = (id: string) =>
  eventually(async () => {
    const task = await client.getTask(GetTaskRequest.fromJSON({ id }));
    return receipt(task)?.status === 'refunded' ? task : undefined;
  }, 60_000);

describe("a priced entry of the gateway's published setting", () => {
  it('is paid before the HTTP agent is called, and pays back what it did not earn, across a restart', async () => {
    const card = (await (await fetch(`${gateway!.url}/agents/weather-desk/.well-known/agent-card.json`)).json()) as {
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
    await refunded(failed.id);

    // Paid, and at the HTTP agent when the gateway stops: the publication's next start owes it back.
    const slow = (await client.sendMessage(
      textMessage('slow', { ...echo, configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: slow.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 30_000);
    await gateway!.stop();
    gateway = await start();
    client = await clientFor(`${gateway.url}/agents/weather-desk`);
    await refunded(slow.id);

    // The chain: three payments of 5 to the publication's account, two of them paid back.
    const transfers = await transfersBetween(
      new SequencerClient({ url: bed.devnet.url, timeoutMs: 5_000 }),
      WALLET.account,
      AGENT.account,
    );
    expect(transfers.filter((t) => t.from === WALLET.account).map((t) => t.amount)).toEqual([5n, 5n, 5n]);
    expect(transfers.filter((t) => t.from === AGENT.account).map((t) => t.amount)).toEqual([5n, 5n]);

    // What the publication was paid and paid back, kept beside the gateway's database.
    await gateway.stop();
    gateway = undefined;
    const file = join(bed.dir, 'published-weather-desk-payments.db');
    expect(existsSync(file)).toBe(true);
    const store = new SqliteAgentPaymentStore(file);
    try {
      expect(store.withStatus('earned')).toHaveLength(1);
      expect(store.withStatus('refunded')).toHaveLength(2);
    } finally {
      store.close();
    }
  }, 180_000);
});
