/**
 * A priced published HTTP agent with a rate limit, on the devnet: the gateway that publishes it asks the publication
 * before it pays for a task (admitAhead), so the task over the limit is refused with nothing paid: no transfer for it
 * on the chain (on a chain with fees, no fee lost either), and the HTTP agent never hears of it. The concurrency
 * limit is checked at the same point.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { AGENT, saveWalletKeyFile, WALLET } from '../support/devnet-wallet.ts';
import { clientFor, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';

const PASSPHRASE = 'priced and rate limited';
let dir: string;
let devnet: Devnet;
let http: HttpAgent;
let gateway: Gateway;

const echo = { metadata: { skill: 'echo' } };
const text = (parts: Message['parts'] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-paid-rate-'));
  devnet = await startDevnet({ blockIntervalMs: 200 });
  http = await startHttpAgent();
  const walletKeyFile = join(dir, 'wallet.json');
  await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
  process.env.LOGOS_A2A_WALLET_PASSPHRASE = PASSPHRASE;
  const cardKeyFile = join(dir, 'desk.lez.key');
  writeFileSync(cardKeyFile, `${Buffer.from(AGENT.secretKey).toString('hex')}\n`, { mode: 0o600 });
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
      // A window far longer than the test: the third task falls in the first one's window.
      published: [{ url: http.url, prices: { echo: '5' }, cardKeyFile, rateLimit: 2, rateLimitWindowMs: 3_600_000 }],
    },
  });
  gateway = await startGateway(config, { network: new MemoryNetwork(), log: () => undefined });
}, 60_000);

afterAll(async () => {
  delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
  await gateway?.stop();
  await http?.stop();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
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
    expect(http.output()).not.toMatch(/heard "three"/);
    // The chain: the two tasks within the limit paid, nothing for the third, nothing paid back.
    const transfers = await transfersBetween(
      new SequencerClient({ url: devnet.url, timeoutMs: 5_000 }),
      WALLET.account,
      AGENT.account,
    );
    expect(transfers.map((t) => [t.from === WALLET.account ? 'paid' : 'refunded', t.amount])).toEqual([
      ['paid', 5n],
      ['paid', 5n],
    ]);
  }, 120_000);
});
