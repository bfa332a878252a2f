/**
 * A priced published HTTP agent with a rate limit, on the devnet: the gateway that publishes it asks the publication
 * before it pays for a task (admitAhead), so the task over the limit is refused with nothing paid: no transfer for it
 * on the chain (on a chain with fees, no fee lost either), and the HTTP agent never hears of it. The concurrency
 * limit is checked at the same point.
 */
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { AGENT, WALLET } from '../support/devnet-wallet.ts';
import { clientFor, textMessage } from '../support/gateway.ts';
import { startPricedPublication, type PricedPublication } from '../support/priced-publication.ts';

let bed: PricedPublication;
let gateway: Gateway;

const echo = { metadata: { skill: 'echo' } };
const text = (parts: Message['parts'] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

beforeAll(async () => {
  // A window far longer than the test: the third task falls in the first one's window.
  bed = await startPricedPublication('paid-rate', { rateLimit: 2, rateLimitWindowMs: 3_600_000 });
  gateway = await startGateway(bed.config, { network: new MemoryNetwork(), log: () => undefined });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await bed?.stop();
});

describe('a priced published agent over its rate limit', () => {
  it('refuses the task before it is paid: no transfer, and the HTTP agent never hears of it', async () => {
    const client = await clientFor(`${gateway.url}/agents/weather-desk`);
    for (const word of ['one', 'two']) {
      const task = (await client.sendMessage(textMessage(word, echo))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.metadata?.lez).toMatchObject({ status: 'paid', amount: '5' });
    }
    const refused = (await client.sendMessage(textMessage('three', echo))) as Task;
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(text(refused.status?.message?.parts)).toMatch(
      /^The HTTP agent is rate limited: it takes 2 tasks every 3600 s\. Try again in \d+ s\. Nothing was charged\.$/,
    );
    expect(refused.metadata?.lez).toMatchObject({ status: 'rejected', amount: '5' });
    expect(refused.metadata?.lez).not.toHaveProperty('txHash');
    expect(bed.http.output()).not.toMatch(/heard "three"/);
    // The chain: the two tasks within the limit paid, nothing for the third, nothing paid back.
    const transfers = await transfersBetween(
      new SequencerClient({ url: bed.devnet.url, timeoutMs: 5_000 }),
      WALLET.account,
      AGENT.account,
    );
    expect(transfers.map((t) => [t.from === WALLET.account ? 'paid' : 'refunded', t.amount])).toEqual([
      ['paid', 5n],
      ['paid', 5n],
    ]);
  }, 120_000);
});
