/**
 * Two worlds through Logos: a real A2A agent over HTTP (the SDK's Express server, its own process) is published by
 * gateway B; gateway A, on its own Waku node joined to B's over real local Waku, hears the bridged card and serves
 * it; an HTTP client calls gateway A with the official client. Every call crosses HTTP → A → Waku → B's published
 * agent → HTTP → the agent, and back: send, stream, get, resubscribe, cancel, multi-turn, a failure, the per-agent
 * limit, the agent down, and tampered cards (refused by default, recorded as unverified when configured so).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CancelTaskRequest,
  GetTaskRequest,
  SubscribeToTaskRequest,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { BRIDGED_HTTP_AGENT_EXTENSION } from '../../src/publish/bridged-card.ts';
import { clientFor, collect, eventually, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

let dir: string;
let agent: HttpAgent;
let fragile: HttpAgent;
let tampered: HttpAgent;
let legacy: HttpAgent;
let overGrpc: HttpAgent;
let gatewayA: Gateway;
let gatewayB: Gateway;
let client: Client;

const ID = 'weather-desk';
const text = (parts: Message['parts'] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
const asTask = (result: Task | Message): Task => {
  if (!('status' in result)) throw new Error(`a message, not a task: ${text(result.parts)}`);
  return result;
};
const artifactText = (task: Task) => task.artifacts.map((artifact) => text(artifact.parts)).join('|');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-two-worlds-'));
  [agent, fragile, tampered, legacy, overGrpc] = await Promise.all([
    startHttpAgent(),
    startHttpAgent(),
    startHttpAgent(['--tamper']),
    startHttpAgent(['--v03']),
    startHttpAgent(['--grpc']),
  ]);
  gatewayB = await startWakuGateway(join(dir, 'b'), {
    overrides: {
      published: [
        { url: agent.url },
        { url: agent.url, id: 'single', maxConcurrent: 1 },
        { url: fragile.url, id: 'fragile' },
        { url: tampered.url, id: 'tampered-recorded', cardPolicy: 'record' },
        { url: tampered.url, id: 'tampered-refused' },
        { url: legacy.url, id: 'legacy' },
        { url: overGrpc.url, id: 'over-grpc' },
      ],
    },
  });
  gatewayA = await startWakuGateway(join(dir, 'a'), {
    overrides: {
      transport: {
        kind: 'waku',
        listen: ['/ip4/127.0.0.1/tcp/0'],
        keyFile: join(dir, 'a', 'gateway.key'),
        peers: gatewayB.network.joinAddresses(),
      },
    },
  });
  await eventually(async () => {
    const { agents } = (await (await fetch(`${gatewayA.url}/agents`)).json()) as { agents: { id: string }[] };
    const ids = agents.map((listed) => listed.id);
    return [ID, 'single', 'fragile', 'tampered-recorded', 'legacy', 'over-grpc'].every((id) => ids.includes(id))
      ? true
      : undefined;
  }, 90_000);
  client = await clientFor(`${gatewayA.url}/agents/${ID}`);
}, 180_000);

afterAll(async () => {
  await gatewayA?.stop();
  await gatewayB?.stop();
  await Promise.all([agent?.stop(), fragile?.stop(), tampered?.stop(), legacy?.stop(), overGrpc?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('an HTTP agent published by gateway B, called through gateway A over Waku', () => {
  it("serves the bridged card, naming the HTTP agent and its card's verified signature", async () => {
    const card = (await (await fetch(`${gatewayA.url}/agents/${ID}/.well-known/agent-card.json`)).json()) as {
      name: string;
      skills: { id: string }[];
      capabilities: { streaming: boolean; extensions: { uri: string; params: Record<string, unknown> }[] };
    };
    expect(card.name).toBe('Weather Desk');
    expect(card.skills.map((skill) => skill.id)).toEqual(['echo', 'greet']);
    expect(card.capabilities.streaming).toBe(true);
    const bridged = card.capabilities.extensions.find((extension) => extension.uri === BRIDGED_HTTP_AGENT_EXTENSION);
    expect(bridged?.params).toMatchObject({ originUrl: agent.url, originCardSignature: { status: 'verified' } });
  });

  it('send: a blocking call comes back completed with the HTTP agent’s artifact', async () => {
    const task = asTask(await client.sendMessage(textMessage('hello')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe('echo: hello');
  });

  it('stream: the HTTP agent’s updates arrive in order, then get returns the task as it ended', async () => {
    const events = await collect(client.sendMessageStream(textMessage('streamed')));
    const seen = events.map((event: StreamResponse) => {
      const payload = event.payload;
      if (payload?.$case === 'artifactUpdate') return `artifact:${text(payload.value.artifact?.parts)}`;
      if (payload?.$case === 'statusUpdate') return `status:${TaskState[payload.value.status!.state]}`;
      return payload?.$case ?? 'empty';
    });
    // The chunks in their order, before the end; nothing after it.
    const chunks = seen.filter((entry) => entry.startsWith('artifact:'));
    expect(chunks.slice(0, 2)).toEqual(['artifact:echo: ', 'artifact:streamed']);
    expect(seen.at(-1)).toBe('status:TASK_STATE_COMPLETED');
    expect(seen.indexOf('artifact:streamed')).toBeLessThan(seen.length - 1);
    const first = events[0]!.payload;
    const id = first?.$case === 'task' ? first.value.id : first?.$case === 'statusUpdate' ? first.value.taskId : '';
    const task = await client.getTask(GetTaskRequest.fromJSON({ id }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe('echo: streamed');
  });

  it('multi-turn: the HTTP agent asks, the caller answers on the same task', async () => {
    const asked = asTask(await client.sendMessage(textMessage('ask', { metadata: { skill: 'greet' } })));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(text(asked.status?.message?.parts)).toBe('What is your name?');
    const answered = asTask(
      await client.sendMessage(textMessage('Ada', { taskId: asked.id, contextId: asked.contextId })),
    );
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(answered)).toBe('hello, Ada');
  });

  it('resubscribe and cancel: a working task is followed, then cancelled at the HTTP agent too', async () => {
    const started = asTask(
      await client.sendMessage(textMessage('slow', { configuration: { returnImmediately: true } })),
    );
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 30_000);
    const followed = collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id })));
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const events = await followed;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The HTTP agent's own task was cancelled as well (it prints each one it cancels).
    await eventually(() => (/cancelled \S+/.test(agent.output()) ? true : undefined), 30_000);
  });

  it('a v0.3 HTTP agent: its v0.3 card and JSON-RPC, chosen as the official client chooses', async () => {
    const card = (await (await fetch(`${gatewayA.url}/agents/legacy/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: { uri: string; params: Record<string, unknown> }[] };
    };
    const bridged = card.capabilities.extensions.find((extension) => extension.uri === BRIDGED_HTTP_AGENT_EXTENSION);
    expect(bridged?.params).toMatchObject({
      originInterface: { protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      originCardSignature: { status: 'verified' },
    });
    const legacyClient = await clientFor(`${gatewayA.url}/agents/legacy`);
    const task = asTask(await legacyClient.sendMessage(textMessage('old times')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe('echo: old times');
    const asked = asTask(await legacyClient.sendMessage(textMessage('ask')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answered = asTask(
      await legacyClient.sendMessage(textMessage('Grace', { taskId: asked.id, contextId: asked.contextId })),
    );
    expect(artifactText(answered)).toBe('hello, Grace');
  });

  it('an agent whose card lists gRPC first is called over gRPC, streamed', async () => {
    const card = (await (await fetch(`${gatewayA.url}/agents/over-grpc/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: { uri: string; params: Record<string, unknown> }[] };
    };
    const bridged = card.capabilities.extensions.find((extension) => extension.uri === BRIDGED_HTTP_AGENT_EXTENSION);
    expect(bridged?.params).toMatchObject({ originInterface: { protocolBinding: 'GRPC', protocolVersion: '1.0' } });
    const grpcClient = await clientFor(`${gatewayA.url}/agents/over-grpc`);
    const events = await collect(grpcClient.sendMessageStream(textMessage('by grpc')));
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const first = events[0]!.payload;
    const id = first?.$case === 'task' ? first.value.id : first?.$case === 'statusUpdate' ? first.value.taskId : '';
    expect(artifactText(await grpcClient.getTask(GetTaskRequest.fromJSON({ id })))).toBe('echo: by grpc');
  });

  it('a failure at the HTTP agent fails the task with what it said', async () => {
    const task = asTask(await client.sendMessage(textMessage('fail')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(text(task.status?.message?.parts)).toContain('it broke');
  });

  it('refuses a task above the per-agent limit while the HTTP agent is busy', async () => {
    const single = await clientFor(`${gatewayA.url}/agents/single`);
    const busy = asTask(await single.sendMessage(textMessage('slow', { configuration: { returnImmediately: true } })));
    await eventually(async () => {
      const now = await single.getTask(GetTaskRequest.fromJSON({ id: busy.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 30_000);
    const refused = asTask(await single.sendMessage(textMessage('hello')));
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(text(refused.status?.message?.parts)).toMatch(/busy/);
    await single.cancelTask(CancelTaskRequest.fromJSON({ id: busy.id }));
  });

  it('an HTTP agent that is down fails the task at once, saying so', async () => {
    await fragile.stop();
    const down = await clientFor(`${gatewayA.url}/agents/fragile`);
    const task = asTask(await down.sendMessage(textMessage('hello')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(text(task.status?.message?.parts)).toMatch(/could not be reached: .*ECONNREFUSED/);
  });

  it('a tampered HTTP card: refused by default, served marked unverified under the record policy', async () => {
    const { agents } = (await (await fetch(`${gatewayA.url}/agents`)).json()) as { agents: { id: string }[] };
    expect(agents.map((listed) => listed.id)).not.toContain('tampered-refused');
    const card = (await (
      await fetch(`${gatewayA.url}/agents/tampered-recorded/.well-known/agent-card.json`)
    ).json()) as {
      description: string;
      capabilities: { extensions: { uri: string; params: Record<string, unknown> }[] };
    };
    expect(card.description).toBe('Tampered after signing.');
    const bridged = card.capabilities.extensions.find((extension) => extension.uri === BRIDGED_HTTP_AGENT_EXTENSION);
    expect(bridged?.params.originCardSignature).toMatchObject({ status: 'unverified', reason: 'bad-signature' });
  });
});
