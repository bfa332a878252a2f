/**
 * A published HTTP agent (the SDK's Express server, its own process) called through its seed face by a seed-literal
 * caller (test/support/seed-caller.ts: stock packages only, written from docs/bindings/seed.md, its own process)
 * over real Waku: the caller finds the seed card on the discovery topic, and its task completes, fails with a string
 * error, or is cancelled, every answer in the seed's words.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { bridgeHttpAgent, type PublishedAgent } from '../../src/publish/publish.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { SEED_CALLER, callAsSeed, finalReply } from '../support/seed-caller-process.ts';
import { STOCK_SPECIFIER, importedSpecifiers } from '../support/stock-imports.ts';

let http: HttpAgent;
let node: WakuTransport;
let published: PublishedAgent;

beforeAll(async () => {
  http = await startHttpAgent();
  node = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
  const outcome = await bridgeHttpAgent({
    url: http.url,
    id: 'weather-desk',
    announceEveryMs: 1_000,
    seedDialect: true,
    node: () => ({ transport: node, cardKey: new Uint8Array(randomBytes(32)) }),
  });
  if (!outcome.ok) throw new Error(outcome.message);
  published = outcome.published;
  await published.agent.start();
}, 60_000);

afterAll(async () => {
  await published?.stop();
  await http?.stop();
}, 30_000);

const call = (settings: { skill: string; text: string; cancel?: boolean }) =>
  callAsSeed(node.multiaddrs()[0]!, settings);

describe('a seed-literal caller reaches a published HTTP agent through its seed face', { timeout: 90_000 }, () => {
  it('imports nothing of this project: only Node and published packages', () => {
    const imports = importedSpecifiers(readFileSync(SEED_CALLER, 'utf8'));
    expect(imports.length).toBeGreaterThan(4);
    for (const specifier of imports) expect(specifier).toMatch(STOCK_SPECIFIER);
  });

  it('finds the seed card and gets the result 1:1, in the seed’s fields', async () => {
    const run = await call({ skill: 'echo', text: 'hello from the seed' });
    expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
    const card = run.events.find((event) => event.event === 'card')!.card as Record<string, unknown>;
    expect(card.id).toMatch(/^logos-agent:[0-9a-f]{64}$/);
    expect(card.agentInterfaces).toEqual([{ type: 'a2a', transport: 'logos-messaging', address: node.address }]);
    expect(typeof card.signature).toBe('string');
    const taskId = run.events.find((event) => event.event === 'sent')!.request.task_id;
    expect(finalReply(run.events)).toEqual({
      type: 'task_result',
      task_id: taskId,
      state: 'completed',
      result: expect.stringContaining('hello from the seed'),
    });
  });

  it('a failure comes back with its error as a string', async () => {
    const run = await call({ skill: 'echo', text: 'fail' });
    expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
    expect(finalReply(run.events)).toMatchObject({ type: 'task_result', state: 'failed', error: 'it broke' });
  });

  it('a working task, seen on the seed topic, is cancelled', async () => {
    const run = await call({ skill: 'echo', text: 'wait', cancel: true });
    expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
    expect(run.events.filter((event) => event.event === 'status').map((event) => event.body.state)).toContain(
      'working',
    );
    expect(run.events.filter((event) => event.event === 'sent').map((event) => event.request.type)).toEqual([
      'task_request',
      'cancel',
    ]);
    expect(finalReply(run.events)).toMatchObject({ type: 'cancelled' });
  });
});
