/**
 * examples/stock-agent.ts, an agent written with stock Waku packages only, as its own process behind a gateway whose
 * Waku node it joins (relay): the gateway hears its card, verifies it, serves it, and an official A2A client gets its
 * answer. It is the proof that docs/binding.md and stock packages are enough to write an agent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { stopChild } from '../support/child-process.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/stock-agent.ts', import.meta.url));
let dir: string;
let gateway: Gateway;
let agent: ChildProcess;

/** Starts the example, resolving with its address once it says it is ready. */
function startExample(peer: string): Promise<string> {
  agent = spawn(process.execPath, [EXAMPLE, peer, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  agent.stdout!.on('data', (chunk) => (output += chunk));
  agent.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the stock agent did not start:\n${output}`)), 40_000);
    agent.stdout!.on('data', () => {
      const ready = /: (waku:04[0-9a-f]{128}), joined through .*; ready/.exec(output);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    agent.once('exit', (code) => reject(new Error(`the stock agent exited with ${code}:\n${output}`)));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-stock-'));
  gateway = await startWakuGateway(dir);
}, 30_000);

afterAll(async () => {
  await stopChild(agent);
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('an agent written with stock Waku packages only', () => {
  it('imports nothing of this project: only Node and published packages', () => {
    const imports = [...readFileSync(EXAMPLE, 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]!);
    expect(imports.length).toBeGreaterThan(5);
    for (const specifier of imports)
      expect(specifier).toMatch(/^(node:|@waku\/|@noble\/|@scure\/|@libp2p\/|@chainsafe\/|@multiformats\/)/);
  });

  it('is discovered, verified and served by the gateway, and answers an official A2A client', async () => {
    const address = await startExample(gateway.network.joinAddresses()[0]!);
    const entry = await eventually(() => gateway.directory.get('stock-upper'), 20_000);
    expect(entry.address).toBe(address);
    expect(entry.verified?.accountId).toBe(entry.card['x-lez-identity']?.account_id);
    expect(gateway.discovery!.counters.badSignature).toBe(0);

    const client = await clientFor(`${gateway.url}/agents/stock-upper`);
    const task = (await client.sendMessage(textMessage('hello from stock waku'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'HELLO FROM STOCK WAKU' });
  }, 90_000);
});
