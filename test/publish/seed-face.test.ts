/**
 * A published HTTP agent (the SDK's Express server, its own process) called through its seed face by a seed-literal
 * caller (test/support/seed-caller.ts: stock packages only, written from docs/bindings/seed.md, its own process)
 * over real Waku: the caller finds the seed card on the discovery topic, and its task completes, fails with a string
 * error, or is cancelled, every answer in the seed's words.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { bridgeHttpAgent, type PublishedAgent } from '../../src/publish/publish.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { STOCK_SPECIFIER, importedSpecifiers } from '../support/stock-imports.ts';

const CALLER = fileURLToPath(new URL('../support/seed-caller.ts', import.meta.url));
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

type Event = Record<string, any>;

/** Runs the seed caller to its end: its exit code and the events it printed. */
function callAsSeed(settings: { skill: string; text: string; cancel?: boolean }) {
  const peer = node.multiaddrs()[0]!;
  const child = spawn(process.execPath, [CALLER, JSON.stringify({ peer, ...settings })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Event[] = [];
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => events.push(JSON.parse(line) as Event));
  return new Promise<{ code: number | null; events: Event[]; errors: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, events, errors })),
  );
}

const finalReply = (events: Event[]) => events.filter((event) => event.event === 'reply').at(-1)?.body as Event;

describe('a seed-literal caller reaches a published HTTP agent through its seed face', { timeout: 90_000 }, () => {
  it('imports nothing of this project: only Node and published packages', () => {
    const imports = importedSpecifiers(readFileSync(CALLER, 'utf8'));
    expect(imports.length).toBeGreaterThan(4);
    for (const specifier of imports) expect(specifier).toMatch(STOCK_SPECIFIER);
  });

  it('finds the seed card and gets the result 1:1, in the seed’s fields', async () => {
    const run = await callAsSeed({ skill: 'echo', text: 'hello from the seed' });
    expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
    const card = run.events.find((event) => event.event === 'card')!.card as Event;
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
    const run = await callAsSeed({ skill: 'echo', text: 'fail' });
    expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
    expect(finalReply(run.events)).toMatchObject({ type: 'task_result', state: 'failed', error: 'it broke' });
  });

  it('a working task, seen on the seed topic, is cancelled', async () => {
    const run = await callAsSeed({ skill: 'echo', text: 'wait', cancel: true });
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
