/** Regressions of the HTTP face measured from outside; each test failed before its fix. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Payer } from '../../src/bridge/task-payments.ts';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway } from '../../src/gateway/gateway.ts';
import { conformanceAgent } from '../../src/logos/agents/conformance.ts';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { startTestBed, type TestBed } from '../support/gateway.ts';
import { pricedWorld } from '../support/priced-agent.ts';
import { openSse } from '../support/sse.ts';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

it('a stream on a paid task sends headers and the submitted Task at once, while the payment is still pending', async () => {
  const world = pricedWorld(10_000n);
  let release!: () => void;
  const paying = new Promise<void>((resolve) => (release = resolve));
  let payments = 0;
  const heldPayer: Payer = {
    rail: world.payer.rail,
    account: world.payer.account,
    async pay(id, to, amount, record) {
      payments++;
      await paying;
      return world.payer.pay(id, to, amount, record);
    },
    resume: (state) => world.payer.resume(state),
    findTransfers: (query) => world.payer.findTransfers(query),
    verify: (hash, expect) => world.payer.verify(hash, expect),
  };
  bed = await startTestBed({
    config: { payments: { rail: 'none', perTransactionLimit: '100', perPeriodLimit: '1000' } } as never,
    agents: (network) => [world.agent(network)],
    payer: heldPayer,
  });
  const stream = await openSse(`${bed.gateway.url}/agents/shop`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: {
        message: { messageId: 'paid-stream', role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill: 'quick' } },
      },
    }),
  });
  const first = JSON.parse((await stream.nextFrame())!.replace(/^data: /, ''));
  expect(first.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  expect(payments).toBe(1); // the payment has started and is still waiting
  release();
  const rest = (await stream.rest()) as { result: { statusUpdate?: { status: { state: string } } } }[];
  expect(rest.at(-1)?.result.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
});

it('the root agent is the first configured agent, never a stale directory entry from an earlier run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-root-'));
  const network = new MemoryNetwork();
  const conformance = conformanceAgent(network.node('agent:conformance'));
  const echo = echoAgent(network.node('agent:echo'));
  await Promise.all([conformance.start(), echo.start()]);
  const config = loadConfig({
    env: {},
    overrides: { port: 0, database: join(dir, 'gateway.db'), agents: [], transport: { kind: 'memory' } },
  });
  try {
    // An earlier run knew the conformance agent; it stays in the directory, offline, after that run.
    const earlier = await startGateway(config, { network, agents: [conformance], log: () => undefined });
    await earlier.stop();
    await conformance.stop();
    const gateway = await startGateway(config, { network, agents: [echo], log: () => undefined });
    try {
      expect(gateway.directory.get('conformance')).toBeDefined();
      const card = await (await fetch(`${gateway.url}/.well-known/agent-card.json?v=1.0`)).json();
      expect(card.name).toBe('Echo');
    } finally {
      await gateway.stop();
    }
  } finally {
    await echo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('SubscribeToTask on a task in input-required stays open until the follow-up completes it', async () => {
  bed = await startTestBed();
  const url = `${bed.gateway.url}/agents/conformance`;
  const call = (method: string, params: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const waiting = (
    await (
      await call('SendMessage', {
        message: { messageId: 'tck-input-required-sub', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      })
    ).json()
  ).result.task;
  expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const stream = await openSse(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: waiting.id } }),
  });
  const first = JSON.parse((await stream.nextFrame())!.replace(/^data: /, ''));
  expect(first.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const done = await (
    await call('SendMessage', {
      message: { messageId: 'tck-complete-task-sub', taskId: waiting.id, role: 'ROLE_USER', parts: [{ text: 'more' }] },
    })
  ).json();
  expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  const rest = (await stream.rest()) as { result: { statusUpdate?: { status: { state: string } } } }[];
  expect(rest.at(-1)?.result.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
});

it('a start that cannot listen rejects with the cause and closes what it opened', async () => {
  bed = await startTestBed();
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-port-'));
  const config = loadConfig({
    env: {},
    overrides: {
      port: bed.gateway.port,
      database: join(dir, 'gateway.db'),
      agents: [{ builtin: 'echo' }],
      transport: { kind: 'memory' },
    },
  });
  try {
    await expect(startGateway(config, { log: () => undefined })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    // Nothing is left holding the database: the same configuration starts on a free port.
    const gateway = await startGateway({ ...config, port: 0 }, { log: () => undefined });
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    await gateway.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
