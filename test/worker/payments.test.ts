/**
 * Paid tasks through the Worker (paid-worker.ts: the devnet, the paid agent behind its node's REST API, wrangler dev
 * paying from a genesis account). Balances are read from the devnet, transfers and their nonces from its blocks.
 * Calls carry API keys, one of them with a budget.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../support/child-process.ts';
import { spawnDevnet, type DevnetProcess } from '../../src/cli/devnet-process.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { eventually, rpc } from '../support/gateway.ts';
import {
  agentGenesis,
  balanceOf as balanceOn,
  startPaidAgent,
  startPayingWorker,
  walletGenesis,
} from './paid-worker.ts';
import { applyMigrations, type WranglerDev } from './wrangler-dev.ts';

/** Each call crosses wrangler's proxy, three Durable Objects, the node's REST API and a devnet block or two. */
const E2E_TIMEOUT_MS = 90_000;
const ADMIN_TOKEN = 'operator-token-of-the-test';
/** Every call carries an API key: the operator's has no budget, `capped` may spend 10 in all (two echo tasks). */
const API_KEYS = [
  { name: 'operator', key: 'operator-api-key-of-the-test' },
  { name: 'capped', key: 'capped-api-key-of-the-test', budget: '10' },
];
const [OPERATOR_KEY, CAPPED_KEY] = API_KEYS.map(({ key }) => key) as [string, string];

let dir: string;
let devnet: DevnetProcess | undefined;
let agent: ChildProcess | undefined;
let worker: WranglerDev | undefined;
let sequencer: SequencerClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-worker-pay-'));
  const state = join(dir, 'state');
  devnet = await spawnDevnet({ port: 0, dataDir: undefined });
  sequencer = new SequencerClient({ url: devnet.url });
  const paidAgent = startPaidAgent(devnet.url);
  agent = paidAgent.child;
  const [restUrl] = await Promise.all([paidAgent.restUrl, applyMigrations(state)]);
  worker = await startPayingWorker(state, {
    restUrl,
    sequencerUrl: devnet.url,
    vars: { LOGOS_A2A_ADMIN_TOKEN: ADMIN_TOKEN, LOGOS_A2A_API_KEYS: JSON.stringify(API_KEYS) },
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await stopChild(agent);
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const balanceOf = (account: string) => balanceOn(sequencer, account);

const call = (method: string, params: Record<string, unknown>, apiKey = OPERATOR_KEY) =>
  rpc(`${worker!.url}/agents/paid`, method, params, { 'A2A-Version': '1.0', 'X-API-Key': apiKey });
const send = (skill: string, extra: Record<string, unknown> = {}, messageId = `m-${skill}`, apiKey = OPERATOR_KEY) =>
  call(
    'SendMessage',
    { message: { messageId, role: 'ROLE_USER', parts: [{ text: `${skill} text` }], metadata: { skill } }, ...extra },
    apiKey,
  );

describe('paying agents from the Worker', { timeout: E2E_TIMEOUT_MS }, () => {
  it('pays a paid task once, on chain: the agent is paid its price and the task completes', async () => {
    const [walletBefore, agentBefore] = await Promise.all([
      balanceOf(walletGenesis.account),
      balanceOf(agentGenesis.account),
    ]);
    const task = (await send('echo')).body.result?.task;
    expect(task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts[0].text).toBe('echo text');
    expect(task.metadata.lez).toMatchObject({ rail: 'lez', amount: '5', payee: agentGenesis.account, status: 'paid' });
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore + 5n);
    expect(await balanceOf(walletGenesis.account)).toBe(walletBefore - 5n);
    // Recorded in D1: the front Worker reads it back.
    const got = (await call('GetTask', { id: task.id })).body.result;
    expect(got.metadata.lez).toMatchObject({ txHash: task.metadata.lez.txHash, status: 'paid' });
  });

  it('refunds a paid task that is cancelled', async () => {
    const [walletBefore, agentBefore] = await Promise.all([
      balanceOf(walletGenesis.account),
      balanceOf(agentGenesis.account),
    ]);
    const task = (await send('slow', { configuration: { returnImmediately: true } })).body.result?.task;
    expect(task?.id).toBeTypeOf('string');
    // Working: paid, and sent on to the agent.
    await eventually(async () => {
      const state = (await call('GetTask', { id: task.id })).body.result?.status?.state;
      return state === 'TASK_STATE_WORKING' ? true : undefined;
    }, 30_000);
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore + 5n);
    const cancelled = (await call('CancelTask', { id: task.id })).body.result;
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    expect(cancelled.metadata.lez.status).toBe('refunded');
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore);
    expect(await balanceOf(walletGenesis.account)).toBe(walletBefore);
  });

  it('holds a task above the spending limit until an operator approves it, then pays it', async () => {
    const agentBefore = await balanceOf(agentGenesis.account);
    const task = (await send('premium', { configuration: { returnImmediately: true } })).body.result?.task;
    await eventually(async () => {
      const got = (await call('GetTask', { id: task.id })).body.result;
      return got?.metadata?.lez?.status === 'awaiting-approval' ? true : undefined;
    }, 30_000);
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    // The list is read from D1 by the front Worker; the decision goes on in the task's object, which pays.
    const pending = await fetch(`${worker!.url}/admin/approvals?status=pending`, { headers: admin });
    const { approvals } = (await pending.json()) as { approvals: { taskId: string; amount: string }[] };
    expect(approvals).toEqual([expect.objectContaining({ taskId: task.id, amount: '500' })]);
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore);
    const approved = await fetch(`${worker!.url}/admin/approvals/${task.id}/approve`, {
      method: 'POST',
      headers: admin,
    });
    expect(approved.status).toBe(200);
    await eventually(async () => {
      const got = (await call('GetTask', { id: task.id })).body.result;
      return got?.status?.state === 'TASK_STATE_COMPLETED' ? true : undefined;
    }, 30_000);
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore + 500n);
  });

  it('pays tasks sent at the same moment from one wallet: consecutive nonces, every transfer on chain', async () => {
    const agentBefore = await balanceOf(agentGenesis.account);
    const tasks = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => (await send('echo', {}, `at-once-${i}`)).body.result?.task),
    );
    for (const task of tasks) {
      expect(task?.status?.state).toBe('TASK_STATE_COMPLETED');
      expect(task.metadata.lez).toMatchObject({ status: 'paid', txHash: expect.any(String) });
    }
    const hashes = new Set(tasks.map((task) => task.metadata.lez.txHash as string));
    expect(hashes.size).toBe(6);
    // The chain, block by block: each receipt's transfer landed, and the wallet's nonces follow one another.
    const landed = (await transfersBetween(sequencer, walletGenesis.account, agentGenesis.account)).filter((transfer) =>
      hashes.has(transfer.hash),
    );
    expect(landed).toHaveLength(6);
    const nonces = landed.map((transfer) => transfer.nonce).sort((a, b) => (a < b ? -1 : 1));
    expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + BigInt(i)));
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore + 30n);
  });

  it('holds an API key to its budget across task objects: past it a task waits for an operator', async () => {
    const agentBefore = await balanceOf(agentGenesis.account);
    for (const n of [1, 2]) {
      const task = (await send('echo', {}, `capped-${n}`, CAPPED_KEY)).body.result?.task;
      expect(task?.metadata?.lez?.status).toBe('paid');
    }
    const held = (await send('echo', { configuration: { returnImmediately: true } }, 'capped-3', CAPPED_KEY)).body
      .result?.task;
    await eventually(async () => {
      const got = (await call('GetTask', { id: held.id }, CAPPED_KEY)).body.result;
      return got?.metadata?.lez?.status === 'awaiting-approval' ? true : undefined;
    }, 30_000);
    const pending = await fetch(`${worker!.url}/admin/approvals?status=pending`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const { approvals } = (await pending.json()) as { approvals: { taskId: string; reason: string }[] };
    expect(approvals.find((approval) => approval.taskId === held.id)?.reason).toMatch(
      /API key "capped" has spent 10 of its budget of 10/,
    );
    // Another key without a budget is still paid at once.
    expect((await send('echo', {}, 'uncapped-after')).body.result?.task?.metadata?.lez?.status).toBe('paid');
    expect(await balanceOf(agentGenesis.account)).toBe(agentBefore + 15n);
  });
});
