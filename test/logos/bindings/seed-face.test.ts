/**
 * The seed face of a runtime agent (src/logos/bindings/seed-agent-side.ts) over real Waku: the agent announces this
 * binding's signed card and a seed card at the same address; a gateway that serves unverified agents lists both,
 * apart (one verified, one in the seed's dialect), and the official A2A client reaches the agent through the seed
 * card: send, stream, a failure, cancel. The requests the agent hears for those tasks are the seed's fields only,
 * so the seed face answered them, and a task sent through the binding card still goes in this binding's words.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { seedFace } from '../../../src/logos/bindings/seed-agent-side.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { clientFor, collect, eventually, textMessage } from '../../support/gateway.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

let dir: string;
let gateway: Gateway;
let agent: LogosAgent;
let seedId: string;
/** Every 1:1 body the agent's node received, parsed. */
const heard: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-seed-face-'));
  gateway = await startWakuGateway(dir, {
    env: { LOGOS_A2A_ALLOW_UNVERIFIED_AGENTS: 'true' },
    overrides: { agentTimeoutMs: 20_000, cancelTimeoutMs: 10_000 },
  });
  const transport = new WakuTransport({
    listen: ['/ip4/127.0.0.1/tcp/0'],
    staticPeers: gateway.network.joinAddresses(),
  });
  const cardKey = new Uint8Array(randomBytes(32));
  agent = new LogosAgent({
    transport,
    cardKey,
    announceEveryMs: 1_000,
    card: {
      id: 'two-faced',
      name: 'Two-faced',
      description: 'Answers this binding and the seed.',
      version: '1',
      skills: [
        { id: 'echo', name: 'Echo', description: 'Says it back.' },
        { id: 'slow', name: 'Slow', description: 'Works until cancelled.' },
        { id: 'fail', name: 'Fail', description: 'Always fails.' },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
    },
    skills: {
      echo: (ctx) => ctx.text,
      slow: (ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error))),
      fail: () => {
        throw new Error('the runtime agent cannot do that');
      },
    },
    peerFaces: (card) => [seedFace(card, { node: transport, cardKey })!],
  });
  await agent.start();
  transport.onDirect((payload) => heard.push(JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>));
  seedId = await eventually(async () => {
    const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as { agents: { id: string }[] };
    const ids = agents.map((a) => a.id);
    return ids.includes('two-faced') ? ids.find((id) => id.startsWith('logos-agent-')) : undefined;
  }, 60_000);
}, 90_000);

afterAll(async () => {
  await agent?.stop();
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const skill = (name: string) => ({ metadata: { skill: name } });
const seedUrl = () => `${gateway.url}/agents/${seedId}`;
const requestsOf = (taskId: string | undefined) => heard.filter((body) => body.task_id === taskId);

describe('a runtime agent with a seed face, behind a gateway over Waku', () => {
  it('is listed twice, apart: its verified card, and its seed card in the seed dialect', async () => {
    const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as {
      agents: { id: string; verified: boolean }[];
    };
    expect(agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'two-faced', verified: true }),
        expect.objectContaining({ id: seedId, verified: false, unverified: true }),
      ]),
    );
    const extension = async (id: string) =>
      (
        (await (await fetch(`${gateway.url}/agents/${id}/.well-known/agent-card.json`)).json()) as {
          capabilities: { extensions: { uri: string; params: Record<string, unknown> }[] };
        }
      ).capabilities.extensions.find((e) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1')!.params;
    const [seed, ours] = [await extension(seedId), await extension('two-faced')];
    expect(seed.logosInterfaces).toEqual([expect.objectContaining({ version: 'seed' })]);
    expect(ours.logosInterfaces).toEqual([expect.objectContaining({ version: '1' })]);
    // One node, one address: the two entries are told apart by their cards, not their address.
    expect((seed.logosInterfaces as { address: string }[])[0]!.address).toBe(
      (ours.logosInterfaces as { address: string }[])[0]!.address,
    );
  });

  it('SendMessage through the seed card completes, and the agent heard only the seed fields', async () => {
    const client = await clientFor(seedUrl());
    const task = (await client.sendMessage(textMessage('hello seed face', skill('echo')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'text', value: 'hello seed face' } });
    expect(requestsOf(task.id)).toEqual([
      { type: 'task_request', task_id: task.id, skill: 'echo', params: { text: 'hello seed face' }, lez_price: '0' },
    ]);
  });

  it('SendStreamingMessage through the seed card: working on the seed topic, then the result', async () => {
    const client = await clientFor(seedUrl());
    const events = await collect(client.sendMessageStream(textMessage('stream it', skill('echo'))));
    expect(events[0]?.payload?.$case).toBe('task');
    const states = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : [],
    );
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = events.find((event) => event.payload?.$case === 'artifactUpdate');
    expect(artifact?.payload?.$case === 'artifactUpdate' && artifact.payload.value.artifact?.parts[0]).toMatchObject({
      content: { $case: 'text', value: 'stream it' },
    });
  }, 30_000);

  it('a failure reaches the caller as the seed’s string error', async () => {
    const client = await clientFor(seedUrl());
    const task = (await client.sendMessage(textMessage('try', skill('fail')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(task.status?.message?.parts)).toContain('the runtime agent cannot do that');
  });

  it('CancelTask through the seed card: the agent acknowledges the seed cancel', async () => {
    const client = await clientFor(seedUrl());
    const task = (await client.sendMessage(
      textMessage('take your time', { ...skill('slow'), configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 15_000);
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify(cancelled.status?.message ?? {})).not.toContain('did not confirm');
    // Both in the seed's words: no `v`, nothing of this binding.
    expect(requestsOf(task.id).map((r) => [r.type, 'v' in r])).toEqual([
      ['task_request', false],
      ['cancel', false],
    ]);
  }, 30_000);

  it('a task through the binding card still goes in this binding’s words', async () => {
    const client = await clientFor(`${gateway.url}/agents/two-faced`);
    const task = (await client.sendMessage(textMessage('hello binding', skill('echo')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [request] = requestsOf(task.id);
    expect(request).toMatchObject({ v: expect.any(Number), type: 'task_request', status_key: expect.any(String) });
  });
});
