/**
 * The gateway on Cloudflare Workers, end to end: `wrangler dev` runs src/worker.ts in the local workerd, with D1
 * and Durable Objects; an echo agent runs as its own process, and the Worker reaches it only through the nwaku
 * REST API of that process's Waku node (a conformance agent joins that node as a relay peer). The official A2A
 * clients of both generations send, stream, get and cancel through the Worker, over JSON-RPC and HTTP+JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../support/child-process.ts';
import { collect, eventually, rpc } from '../support/gateway.ts';
import { v03Generation, v1Generation, type Binding, type EventView } from '../support/sdk-generations.ts';
import { cliEntry } from '../cli/dist.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { startCountingProxy, type CountingProxy } from './counting-proxy.ts';
import { applyMigrations, startWranglerDev, type WranglerDev } from './wrangler-dev.ts';

/**
 * Each call crosses wrangler's proxy, workerd, two Durable Objects, the node's REST API and a relay hop: on a loaded
 * machine a test takes well over vitest's usual limit.
 */
const E2E_TIMEOUT_MS = 90_000;

let dir: string;
let state: string;
let restUrl: string;
/** Between the Worker and the echo agent's node: it counts the Worker's polls. */
let proxy: CountingProxy | undefined;
const agents: ChildProcess[] = [];
let worker: WranglerDev | undefined;
/** The directory stops polling after this long unread (a short spell, for the test that watches it stop). */
const DIRECTORY_IDLE_MS = 2_000;
const workerVars = () => ({
  LOGOS_A2A_NWAKU_REST_URL: proxy!.url,
  LOGOS_A2A_DEFAULT_AGENT: 'echo',
  LOGOS_A2A_DIRECTORY_IDLE_MS: String(DIRECTORY_IDLE_MS),
});

/**
 * `logos-a2a agent KIND` as its own process; resolves with what it printed once it runs. The echo agent's node
 * serves the nwaku REST API on a free port; the conformance agent joins its node as a relay peer.
 */
function startAgent(kind: 'echo' | 'conformance', extra: string[]): Promise<string> {
  const keys = ['--key-file', join(dir, `${kind}.key`), '--card-key-file', join(dir, `${kind}.lez.key`)];
  const child = spawn(process.execPath, [cliEntry(), 'agent', kind, '--announce-every', '300', ...keys, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  agents.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Ctrl-C')) resolve(output);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`the ${kind} agent exited with ${code}:\n${output}`)));
  });
}

async function startAgents(): Promise<string> {
  const echo = await startAgent('echo', ['--rest-port', '0']);
  const restUrl = /nwaku REST API at (http:\/\/\S+)/.exec(echo)![1]!;
  const node = /listening at ([^\s,]+)/.exec(echo)![1]!;
  await startAgent('conformance', ['--peer', node]);
  return restUrl;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-worker-'));
  state = join(dir, 'state');
  [restUrl] = await Promise.all([startAgents(), applyMigrations(state)]);
  proxy = await startCountingProxy(restUrl);
  worker = await startWranglerDev(state, workerVars());
  // The directory object starts listening at the first request; the agents announce every 300 ms.
  for (const id of ['echo', 'conformance']) {
    await eventually(async () => {
      const response = await fetch(`${worker!.url}/agents/${id}/.well-known/agent-card.json`);
      return response.status === 200 ? true : undefined;
    }, 30_000);
  }
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await proxy?.stop();
  await Promise.all(agents.map((agent) => stopChild(agent)));
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const lastState = (events: EventView[]) =>
  events.flatMap((event) =>
    event.kind === 'status' ? [event.state] : event.kind === 'task' ? [event.task.state] : [],
  );

describe.each([v1Generation, v03Generation])('through the Worker: $name', { timeout: E2E_TIMEOUT_MS }, (generation) => {
  describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('%s', (binding) => {
    it('sends, streams, gets and cancels', async () => {
      const session = await generation.connect(`${worker!.url}/agents/echo/`, binding);
      const card = await session.card();
      expect(card.endpoint).toBe(`${worker!.url}/agents/echo`);
      // The Worker delivers no push notifications, and its card says so.
      expect(card.pushNotifications).toBe(false);

      const reply = await session.send(`hello over ${binding}`);
      expect(reply.kind).toBe('task');
      if (reply.kind !== 'task') return;
      expect(reply.task.state).toBe('completed');
      expect(reply.task.artifacts.map((artifact) => artifact.text)).toEqual([`hello over ${binding}`]);

      const events = await collect(session.stream('streamed'));
      expect(lastState(events).at(-1)).toBe('completed');
      expect(events.some((event) => event.kind === 'artifact' && event.text === 'streamed')).toBe(true);

      // Read back from D1 by the front Worker, not by the task's object.
      const got = await session.getTask(reply.task.id);
      expect(got).toMatchObject({ id: reply.task.id, state: 'completed' });
      expect(got.artifacts[0]?.text).toBe(`hello over ${binding}`);

      // The task's object answers for it: an echo task has ended, so it cannot be cancelled.
      const cancelled = await session.cancel(reply.task.id).then(
        () => 'cancelled',
        (error: unknown) => session.failure(error),
      );
      expect(cancelled).toBe('not-cancelable');
      const missing = await session.getTask('no-such-task').then(
        () => 'found',
        (error: unknown) => session.failure(error),
      );
      expect(missing).toBe('task-not-found');
    });

    it('continues a task that waits for input, and cancels one', async () => {
      const session = await generation.connect(`${worker!.url}/agents/conformance/`, binding);
      const asked = await session.send('start', { messageId: `tck-input-required-${binding}-1` });
      expect(asked).toMatchObject({ kind: 'task', task: { state: 'input-required' } });
      if (asked.kind !== 'task') return;
      // The answer names the task: it goes to the object that holds the task's conversation.
      const answered = await session.send('more', {
        taskId: asked.task.id,
        contextId: asked.task.contextId,
        messageId: `answer-${binding}`,
      });
      expect(answered).toMatchObject({ kind: 'task', task: { id: asked.task.id, state: 'completed' } });

      const waiting = await session.send('start', { messageId: `tck-input-required-${binding}-2` });
      if (waiting.kind !== 'task') throw new Error('no task');
      expect(await session.cancel(waiting.task.id)).toMatchObject({ id: waiting.task.id, state: 'canceled' });
      expect(await session.getTask(waiting.task.id)).toMatchObject({ state: 'canceled' });
    });
  });
});

describe('the Worker', { timeout: E2E_TIMEOUT_MS }, () => {
  it('serves the default agent at the root and lists tasks from D1', async () => {
    const sent = await rpc(`${worker!.url}/`, 'SendMessage', {
      message: { messageId: 'root-1', role: 'ROLE_USER', parts: [{ text: 'at the root' }] },
    });
    expect(sent.body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    const contextId = sent.body.result.task.contextId as string;
    const listed = await fetch(`${worker!.url}/tasks?contextId=${contextId}`, { headers: { 'A2A-Version': '1.0' } });
    expect(listed.status).toBe(200);
    const page = (await listed.json()) as { tasks: { id: string }[] };
    expect(page.tasks.map((task) => task.id)).toEqual([sent.body.result.task.id]);
  });

  it('says push notifications are not supported here', async () => {
    const answer = await rpc(
      `${worker!.url}/`,
      'tasks/pushNotificationConfig/set',
      { taskId: 'any', pushNotificationConfig: { url: 'https://receiver.example/hook' } },
      {},
    );
    expect(answer.body.error?.code).toBe(-32003);
  });

  it('answers a client mistake with the binding error, not a crash', async () => {
    const response = await fetch(`${worker!.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe('the directory object', { timeout: E2E_TIMEOUT_MS }, () => {
  const discoveryPolls = () =>
    proxy!.count('GET', `/relay/v1/auto/messages/${encodeURIComponent(DEFAULT_DISCOVERY_TOPIC)}`);
  /** The polls counted once they stop growing for a while (a few poll intervals of 250 ms). */
  const pollsOnceStill = () =>
    eventually(async () => {
      const before = discoveryPolls();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return discoveryPolls() === before ? before : undefined;
    }, 30_000);

  it('stops polling the node when nobody reads the directory, and starts again at the next read', async () => {
    const idle = await pollsOnceStill();
    const card = await fetch(`${worker!.url}/agents/echo/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    // The read polled at once, and polling went on until the directory was idle again.
    expect(discoveryPolls()).toBeGreaterThan(idle);
    expect(await pollsOnceStill()).toBeGreaterThan(idle + 1);
  });
});

describe('a task through a restart of the Worker', () => {
  it('is picked up again by its object, from D1 and the object storage', async () => {
    const session = await v1Generation.connect(`${worker!.url}/agents/conformance/`, 'JSONRPC');
    const asked = await session.send('start', { messageId: 'tck-input-required-restart' });
    if (asked.kind !== 'task') throw new Error('no task');
    expect(asked.task.state).toBe('input-required');

    // Every object is evicted with workerd; the task's object comes back with the same Logos identity.
    await worker!.stop();
    worker = await startWranglerDev(state, workerVars());
    const again = await v1Generation.connect(`${worker.url}/agents/conformance/`, 'JSONRPC');
    const answered = await again.send('after the restart', {
      taskId: asked.task.id,
      contextId: asked.task.contextId,
      messageId: 'answer-after-restart',
    });
    expect(answered).toMatchObject({ kind: 'task', task: { id: asked.task.id, state: 'completed' } });
  }, 180_000);
});

describe('without its node', { timeout: E2E_TIMEOUT_MS }, () => {
  it('refuses a new task with 503 and says why', async () => {
    const [echo] = agents;
    await stopChild(echo);
    const response = await fetch(`${worker!.url}/agents/echo/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'no-node', role: 'ROLE_USER', parts: [{ text: 'anyone?' }] } }),
    });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('UNAVAILABLE');
    expect(body.error.message).toContain(proxy!.url);
  });
});
