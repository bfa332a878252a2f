/**
 * A paid task whose payment is in flight when every object of the Worker goes (wrangler dev stopped and started
 * again: the objects' memory is lost, D1 and their storage stay). The wallet writes the signed transfer into the
 * task's D1 row before it submits it; here the sequencer takes that transfer but its answer is lost, and the Worker
 * hears nothing more from the sequencer until the restart (counting-proxy.ts in front of it). The task's object,
 * back, must finish that very transfer, never sign another: one transfer on chain, the agent paid once.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnDevnet, type DevnetProcess } from '../../src/cli/devnet-process.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { stopChild } from '../support/child-process.ts';
import { rpc } from '../support/gateway.ts';
import { openRpcStream } from '../support/sse.ts';
import { startCountingProxy, type CountingProxy } from './counting-proxy.ts';
import { agentGenesis, balanceOf, startPaidAgent, startPayingWorker, walletGenesis } from './paid-worker.ts';
import { applyMigrations, type WranglerDev } from './wrangler-dev.ts';

let dir: string;
let state: string;
let devnet: DevnetProcess | undefined;
let agent: ChildProcess | undefined;
let sequencerProxy: CountingProxy | undefined;
let worker: WranglerDev | undefined;
let sequencer: SequencerClient;
let restUrl: string;

const startWorker = () => startPayingWorker(state, { restUrl, sequencerUrl: sequencerProxy!.url });
/** The signed transactions the Worker submitted, each as the sequencer received it (base64 of its bytes). */
const submitted = () =>
  sequencerProxy!
    .bodies()
    .map((body) => JSON.parse(body || '{}') as { method?: string; params?: string[] })
    .filter((call) => call.method === 'sendTransaction')
    .map((call) => call.params![0]!);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-worker-resume-'));
  state = join(dir, 'state');
  devnet = await spawnDevnet({ port: 0, dataDir: undefined });
  sequencer = new SequencerClient({ url: devnet.url });
  sequencerProxy = await startCountingProxy(devnet.url);
  const paidAgent = startPaidAgent(devnet.url);
  agent = paidAgent.child;
  [restUrl] = await Promise.all([paidAgent.restUrl, applyMigrations(state)]);
  worker = await startWorker();
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await sequencerProxy?.stop();
  await stopChild(agent);
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

it('finishes the signed transfer recorded in D1 after its objects are evicted, without signing again', async () => {
  const agentBefore = await balanceOf(sequencer, agentGenesis.account);
  const cutOff = sequencerProxy!.cutOffAfter((body) => body.includes('"sendTransaction"'));
  // Streamed: the task comes back at once, while its object pays (a blocking send would wait for the payment).
  const started = await openRpcStream(`${worker!.url}/agents/paid`, 'SendStreamingMessage', {
    message: { messageId: 'resume-1', role: 'ROLE_USER', parts: [{ text: 'pay me' }], metadata: { skill: 'echo' } },
  });
  const first = JSON.parse((await started.nextFrame())!.replace(/^data: /, '')) as { result: { task: { id: string } } };
  const taskId = first.result.task.id;
  await cutOff;
  // The transfer reached the sequencer; the Worker cannot tell. Every object goes, with what it held in memory.
  started.abort();
  await worker!.stop();
  const [signed] = submitted();
  sequencerProxy!.reconnect();
  worker = await startWorker();

  // Following the task wakes its object, which picks the task up from D1 and resumes its payment.
  const stream = await openRpcStream(`${worker.url}/agents/paid`, 'SubscribeToTask', { id: taskId });
  await stream.rest();
  const task = (await rpc(`${worker.url}/agents/paid`, 'GetTask', { id: taskId })).body.result;
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(task.metadata.lez).toMatchObject({ status: 'paid', txHash: expect.any(String) });

  // Only the transfer signed before the restart was ever submitted (resent as the same bytes, at most)…
  expect(new Set(submitted())).toEqual(new Set([signed]));
  // …and the chain holds it alone: the agent was paid once, by the transfer the receipt names.
  const transfers = await transfersBetween(sequencer, walletGenesis.account, agentGenesis.account);
  expect(transfers.map((transfer) => transfer.hash)).toEqual([task.metadata.lez.txHash]);
  expect(await balanceOf(sequencer, agentGenesis.account)).toBe(agentBefore + 5n);
}, 240_000);
