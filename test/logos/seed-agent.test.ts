/**
 * A seed-literal agent (written from the seed binding alone, test/support/seed-agent.ts) as its own process on its
 * own Waku node, reached through the gateway by the official A2A client: its card served and marked unverified,
 * send, stream, get, cancel, a failure whose `error` is a string, and a task kept alive past the agent timeout by the agent's
 * unchanged `working`, published again and again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { clientFor, collect, eventually, textMessage } from '../support/gateway.ts';
import { stopChild } from '../support/child-process.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

const script = fileURLToPath(new URL('../support/seed-agent-process.ts', import.meta.url));
let dir: string;
let gateway: Gateway;
let agent: ChildProcess;
/** The requests the seed agent printed, as it received them. */
const received: Record<string, unknown>[] = [];
let agentUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-seed-'));
  gateway = await startWakuGateway(dir, {
    env: { LOGOS_A2A_ALLOW_UNVERIFIED_AGENTS: 'true' },
    // Shorter than the steady skill's 6 s of work: only the agent's repeated status keeps that task alive.
    overrides: { agentTimeoutMs: 4_000, cancelTimeoutMs: 10_000 },
  });
  agent = spawn(process.execPath, [script, gateway.network.joinAddresses()[0]!, DEFAULT_DISCOVERY_TOPIC], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  agent.stderr!.on('data', (chunk) => (output += chunk));
  agent.stdout!.setEncoding('utf8');
  let pending = '';
  agent.stdout!.on('data', (chunk: string) => {
    output += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.startsWith('request ')) received.push(JSON.parse(line.slice(8)));
  });
  const id = await eventually(async () => {
    if (agent.exitCode !== null) throw new Error(`the seed agent exited:\n${output}`);
    const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as { agents: { id: string }[] };
    return agents.find((a) => a.id.startsWith('logos-agent-'))?.id;
  }, 60_000).catch((error: unknown) => {
    throw new Error(
      `the seed agent was not listed (${String(error)}); discovery ${JSON.stringify(gateway.discovery.counters)}; agent output:\n${output}`,
    );
  });
  agentUrl = `${gateway.url}/agents/${id}`;
}, 90_000);

afterAll(async () => {
  await stopChild(agent);
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const skill = (name: string) => ({ metadata: { skill: name } });

describe('a seed-literal agent behind the gateway', () => {
  it('is served under its mapped id, marked unverified, with its decimal prices in base units', async () => {
    const card = await (await fetch(`${agentUrl}/.well-known/agent-card.json`)).json();
    const params = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params).toMatchObject({
      unverified: true,
      unverifiedReason: expect.stringContaining('seed binding'),
      lezPrice: { default: '0', perSkill: { echo: '0', premium: '5' } },
      logosInterfaces: [{ type: 'logos-messaging', version: 'seed' }],
    });
    expect(params.logosCardSignature).toBeUndefined();
    expect(card.name).toBe('Seed Agent');
    const { agents } = await (await fetch(`${gateway.url}/agents`)).json();
    expect(agents).toEqual([expect.objectContaining({ name: 'Seed Agent', verified: false, unverified: true })]);
    const page = await (await fetch(`${gateway.url}/`, { headers: { Accept: 'text/html' } })).text();
    expect(page).toContain('Unverified');
  });

  it('SendMessage completes, GetTask reads it back, and the agent got only the seed fields', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('hello seed', skill('echo')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'text', value: 'hello seed' } });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.artifacts).toEqual(task.artifacts);
    const request = received.find((r) => r.task_id === task.id);
    expect(request).toEqual({
      type: 'task_request',
      task_id: task.id,
      skill: 'echo',
      params: { text: 'hello seed' },
      lez_price: '0',
    });
  });

  it('CancelTask: the working status arrives on the seed topic, the agent acknowledges with cancelled', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(
      textMessage('take your time', { ...skill('slow'), configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 10_000);
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The agent's own acknowledgement, not the gateway's timeout note.
    expect(JSON.stringify(cancelled.status?.message ?? {})).not.toContain('did not confirm');
    expect(received.find((r) => r.task_id === task.id && r.type === 'cancel')).toEqual({
      type: 'cancel',
      task_id: task.id,
      skill: 'slow',
      params: {},
      lez_price: '0',
    });
  });

  it('a failure whose error is a string fails the task with that message', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('try', skill('fail')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(task.status?.message?.parts)).toContain('the seed agent cannot do that');
  });

  it('SendStreamingMessage: the task as submitted, the working the agent publishes, then the result', async () => {
    const client = await clientFor(agentUrl);
    const events = await collect(client.sendMessageStream(textMessage('stream it', skill('echo'))));
    expect(events[0]?.payload?.$case).toBe('task');
    const states = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : [],
    );
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = events.find((event) => event.payload?.$case === 'artifactUpdate');
    expect(artifact?.payload?.$case === 'artifactUpdate' && artifact.payload.value.artifact?.parts[0]).toMatchObject({
      content: { $case: 'text', value: 'stream it' },
    });
  }, 30_000);

  it('a task outlasting the agent timeout completes: the agent’s repeated, byte-identical working keeps it alive', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('keep going', skill('steady')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'text', value: 'keep going' } });
  }, 30_000);
});
