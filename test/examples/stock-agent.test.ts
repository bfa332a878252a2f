/**
 * examples/stock-agent.ts, an agent written with stock Waku packages only, as its own process behind a gateway whose
 * Waku node it joins, as a relay node and as a light node (LightPush and Filter through the gateway's node over
 * WebSocket): the gateway hears its card, verifies it, serves it, and an official A2A client gets its answer. It is
 * the proof that docs/binding.md and stock packages are enough to write an agent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskState, type Task } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { STOCK_SPECIFIER, importedSpecifiers } from '../support/stock-imports.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/stock-agent.ts', import.meta.url));
const running: { dir: string; gateway?: Gateway; agent?: ChildProcess }[] = [];

/** Starts the example with `args`, resolving with its address once it says it is ready. */
async function startExample(args: string[]): Promise<string> {
  const agent = spawn(process.execPath, [EXAMPLE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.at(-1)!.agent = agent;
  const ready = /: (waku:04[0-9a-f]{128}), joined through .*; ready/;
  const { match, code, output } = await untilPrinted(agent, ready, 'the stock agent');
  if (!match) throw new Error(`the stock agent exited with ${code}:\n${output}`);
  return match[1]!;
}

/** A gateway on a Waku node listening at `listen`, and its data directory, stopped after the test. */
async function startGateway(listen: string): Promise<{ gateway: Gateway; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-stock-'));
  const entry: (typeof running)[number] = { dir };
  running.push(entry);
  entry.gateway = await startWakuGateway(dir, {
    overrides: { transport: { kind: 'waku', listen: [listen], keyFile: join(dir, 'gateway.key') } },
  });
  return { gateway: entry.gateway, dir };
}

afterEach(async () => {
  for (const { dir, gateway, agent } of running.splice(0)) {
    await stopChild(agent);
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);

/** The example is listed, verified, and completes a task from an official A2A client. */
async function expectServed(gateway: Gateway, address: string): Promise<void> {
  const entry = await eventually(() => gateway.directory.get('stock-upper'), 20_000);
  expect(entry.address).toBe(address);
  expect(entry.verified?.accountId).toBe(entry.card['x-lez-identity']?.account_id);
  expect(gateway.discovery!.counters.badSignature).toBe(0);

  const client = await clientFor(`${gateway.url}/agents/stock-upper`);
  const task = (await client.sendMessage(textMessage('hello from stock waku'))) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'HELLO FROM STOCK WAKU' });
}

describe('an agent written with stock Waku packages only', () => {
  it('imports nothing of this project: only Node and published packages', () => {
    const imports = importedSpecifiers(readFileSync(EXAMPLE, 'utf8'));
    expect(imports.length).toBeGreaterThan(5);
    for (const specifier of imports) expect(specifier).toMatch(STOCK_SPECIFIER);
  });

  it('as a relay node: is discovered, verified and served by the gateway, and answers an official A2A client', async () => {
    const { gateway, dir } = await startGateway('/ip4/127.0.0.1/tcp/0');
    await expectServed(gateway, await startExample([gateway.network.joinAddresses()[0]!, dir]));
  }, 90_000);

  it('as a light node of the gateway’s node over WebSocket: the same, through LightPush and Filter', async () => {
    const { gateway, dir } = await startGateway('/ip4/127.0.0.1/tcp/0/ws');
    const joinAt = gateway.network.joinAddresses()[0]!;
    expect(joinAt).toMatch(/\/ws\/p2p\//);
    await expectServed(gateway, await startExample(['--light', joinAt, dir]));
  }, 90_000);
});

describe('the import check', () => {
  it('finds multi-line imports, re-exports, side-effect imports, import() and require(), literal or not', () => {
    const source = [
      'import {',
      '  a,',
      '  b,',
      "} from '../src/agent.ts';",
      "export { c } from '../src/c.ts';",
      "import '../src/side-effect.ts';",
      "const d = await import('../src/d.ts');",
      'const e = await import(`../src/${name}.ts`);',
      "const f = require('../src/f.cjs');",
      "import { g } from '@waku/sdk';",
    ].join('\n');
    const found = importedSpecifiers(source);
    expect(found).toEqual(
      expect.arrayContaining([
        '../src/agent.ts',
        '../src/c.ts',
        '../src/side-effect.ts',
        '../src/d.ts',
        '`../src/${name}.ts`',
        '../src/f.cjs',
        '@waku/sdk',
      ]),
    );
    expect(found.filter((specifier) => !STOCK_SPECIFIER.test(specifier))).toHaveLength(6);
  });
});
