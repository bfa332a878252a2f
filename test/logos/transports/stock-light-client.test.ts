/**
 * A stock `@waku/sdk` light node, in its own process and with stock packages only (test/support/stock-light-client.ts),
 * asks an agent of this project's runtime for a task through our node, with no gateway: it seals the `task_request`
 * with the stock ECIES encoder, pushes it with LightPush, and reads the replies through Filter with the stock
 * symmetric decoder under its status key. Our node is the agent's own, or a relay node between them.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { echoAgent } from '../../../src/logos/agents/echo.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/gateway.ts';
import { STOCK_SPECIFIER, importedSpecifiers } from '../../support/stock-imports.ts';

const CLIENT = fileURLToPath(new URL('../../support/stock-light-client.ts', import.meta.url));
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function startEcho(transport: WakuTransport): Promise<LogosAgent> {
  const agent = echoAgent(transport, { cardKey: randomBytes(32) });
  await agent.start();
  stops.push(() => agent.stop());
  return agent;
}

/** Runs the stock client to its end: its exit code and the events it printed. */
function askWithStockClient(peer: string, agent: string, text: string) {
  const child = spawn(process.execPath, [CLIENT, JSON.stringify({ peer, agent, skill: 'echo', text })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Record<string, any>[] = [];
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => events.push(JSON.parse(line)));
  return new Promise<{ code: number | null; events: Record<string, any>[]; errors: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, events, errors })),
  );
}

/** The client's request reached the agent, which completed the task with the text it was sent. */
function expectEchoed(run: Awaited<ReturnType<typeof askWithStockClient>>, text: string): void {
  expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
  const sent = run.events.find((event) => event.event === 'sent')!;
  expect(sent).toMatchObject({ successes: 1, failures: [] });
  const final = run.events.filter((event) => event.event === 'reply').at(-1)!.body;
  expect(final).toMatchObject({ v: 1, type: 'task_result', task_id: sent.request.task_id, state: 'completed' });
  expect(final.result).toBe(text);
}

describe('a stock light client asks an agent directly', { timeout: 60_000 }, () => {
  it('imports nothing of this project: only Node and published packages', () => {
    const imports = importedSpecifiers(readFileSync(CLIENT, 'utf8'));
    expect(imports.length).toBeGreaterThan(5);
    for (const specifier of imports) expect(specifier).toMatch(STOCK_SPECIFIER);
  });

  it('through the agent’s own node, over WebSocket', async () => {
    const node = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
    stops.push(() => node.stop());
    await startEcho(node);
    expectEchoed(await askWithStockClient(node.multiaddrs()[0]!, node.address, 'hello, agent'), 'hello, agent');
  });

  it('through a relay node of ours between it and the agent, the address written compressed', async () => {
    const service = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
    stops.push(() => service.stop());
    const agentNode = await WakuTransport.create({ staticPeers: service.multiaddrs() });
    stops.push(() => agentNode.stop());
    await startEcho(agentNode);
    // The agent must be in the service node's mesh of the binding's shard, or the push has nobody to go to.
    const shard = service.pubsubTopicFor(agentNode.inboxTopic);
    await eventually(() => (service.node!.services.pubsub.getMeshPeers(shard).length > 0 ? true : undefined));
    const key = Buffer.from(agentNode.address.slice('waku:'.length), 'hex');
    const compressed = `waku:0${2 + (key[64]! & 1)}${key.subarray(1, 33).toString('hex')}`;
    expectEchoed(await askWithStockClient(service.multiaddrs()[0]!, compressed, 'hello, relay'), 'hello, relay');
  });
});
