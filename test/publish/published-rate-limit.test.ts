/**
 * A gateway's published HTTP agent with a rate limit (`rateLimit` of its `published` entry): the tasks within the
 * limit reach the HTTP agent, the one over it is rejected at once, saying the agent is rate limited and when to try
 * again, without reaching the HTTP agent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { clientFor, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';

let dir: string;
let http: HttpAgent;
let gateway: Gateway;

const text = (parts: Message['parts'] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-published-rate-'));
  http = await startHttpAgent();
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      shutdownGraceMs: 500,
      transport: { kind: 'memory' },
      // A window far longer than the test: the third task falls in the first one's window.
      published: [{ url: http.url, rateLimit: 2, rateLimitWindowMs: 3_600_000 }],
    },
  });
  gateway = await startGateway(config, { network: new MemoryNetwork(), log: () => undefined });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await http?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a published agent over its rate limit', () => {
  it('rejects the task at once, saying so, and the HTTP agent never hears of it', async () => {
    const client = await clientFor(`${gateway.url}/agents/weather-desk`);
    for (const word of ['one', 'two']) {
      const task = (await client.sendMessage(textMessage(word))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    const refused = (await client.sendMessage(textMessage('three'))) as Task;
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(text(refused.status?.message?.parts)).toMatch(
      /The HTTP agent is rate limited: it takes 2 tasks every 3600 s\. Try again in \d+ s\./,
    );
    expect(http.output()).toMatch(/heard "one"/);
    expect(http.output()).not.toMatch(/heard "three"/);
  }, 60_000);
});
