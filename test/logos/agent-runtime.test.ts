/** The provider side of the binding, driven by hand: replies, replay, ownership of a task. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LogosAgent, type SkillContext } from '../../src/logos/agent-runtime.ts';
import {
  decodeAgentEnvelope,
  decodeGatewayEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelope,
  type GatewayEnvelopeInput,
} from '../../src/logos/envelope.ts';
import { newStatusKey, statusKeyBytes } from '../../src/logos/status-key.ts';
import { MemoryNetwork, type MemoryTransport } from '../../src/logos/transports/memory.ts';
import { eventually } from '../support/gateway.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { pricedWorld } from '../support/priced-agent.ts';
import { minimalCard } from '../support/cards.ts';

let network: MemoryNetwork;
let agent: LogosAgent;
let gateway: MemoryTransport;
let release: () => void;
const replies: AgentEnvelope[] = [];

/** An agent whose one skill, `wait`, runs until `release()`. */
function waitingAgent(id: string, options: { heartbeatMs?: number } = {}): LogosAgent {
  return new LogosAgent({
    transport: network.node(`agent:${id}`),
    announce: false,
    ackAfterMs: 0,
    ...options,
    card: {
      id,
      name: id.toUpperCase(),
      description: 'waits',
      version: '1',
      skills: [{ id: 'wait', name: 'Wait', description: '' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: `agent:${id}` }],
    },
    skills: {
      wait: (ctx) =>
        new Promise((resolve, reject) => {
          release = () => resolve(`done ${ctx.text}`);
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        }),
    },
  });
}

beforeEach(async () => {
  network = new MemoryNetwork();
  replies.length = 0;
  agent = waitingAgent('a');
  await agent.start();
  gateway = network.node('gateway');
  await gateway.start();
});
afterEach(() => agent.stop());

const key = newStatusKey();

function listen(taskId: string) {
  gateway.subscribe(
    taskStatusTopic(taskId),
    (payload) => {
      const decoded = decodeAgentEnvelope(payload);
      if (decoded.ok) replies.push(decoded.envelope);
    },
    { key: statusKeyBytes(key) },
  );
}

let n = 0;
const send = (from: MemoryTransport, body: Record<string, unknown>, to = 'agent:a') =>
  from.send(
    to,
    encodeEnvelope({
      v: 1,
      id: `g${++n}`,
      from: from.address,
      to,
      status_key: key,
      ...body,
    } as GatewayEnvelopeInput),
  );

describe('agent runtime', () => {
  it('acknowledges, completes, and replays its replies on task_get', async () => {
    listen('t1');
    await send(gateway, { type: 'task_request', task_id: 't1', context_id: 'c', skill: 'wait', params: { text: 'x' } });
    await eventually(() => (replies.length === 1 ? true : undefined));
    expect(replies[0]).toMatchObject({ seq: 1, type: 'task_status', state: 'working' });
    release();
    await eventually(() => (replies.length === 2 ? true : undefined));
    expect(replies[1]).toMatchObject({ seq: 2, type: 'task_result', state: 'completed', result: 'done x' });
    await send(gateway, { type: 'task_get', task_id: 't1', after_seq: 1 });
    await eventually(() => (replies.length === 3 ? true : undefined));
    expect(replies[2]).toEqual(replies[1]);
  });

  it('takes no orders about a task from anyone but the party that submitted it', async () => {
    listen('t2');
    await send(gateway, { type: 'task_request', task_id: 't2', context_id: 'c', skill: 'wait', params: {} });
    await eventually(() => (replies.length === 1 ? true : undefined));
    const intruder = network.node('intruder');
    await intruder.start();
    await send(intruder, { type: 'cancel', task_id: 't2' });
    // Nor from the submitter under another task key.
    await send(gateway, { type: 'cancel', task_id: 't2', status_key: newStatusKey() });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(replies).toHaveLength(1);
    await send(gateway, { type: 'cancel', task_id: 't2' });
    await eventually(() => (replies.at(-1)?.type === 'cancelled' ? true : undefined));
  });

  it('says so when asked about a task it does not know', async () => {
    listen('t3');
    await send(gateway, { type: 'task_get', task_id: 't3', after_seq: 4 });
    await eventually(() => (replies.length === 1 ? true : undefined));
    expect(replies[0]).toMatchObject({ seq: 5, type: 'task_result', state: 'failed', error: { code: 'unknown_task' } });
  });

  it('rejects a skill it does not have, naming the ones it has', async () => {
    listen('t4');
    await send(gateway, { type: 'task_request', task_id: 't4', context_id: 'c', skill: 'fly', params: {} });
    await eventually(() => (replies.length === 1 ? true : undefined));
    expect(replies[0]).toMatchObject({ type: 'task_result', state: 'rejected', error: { code: 'unknown_skill' } });
  });
});

describe('a skill that answers at once', () => {
  it('gets one reply, its result or its failure, with no acknowledgement before it', async () => {
    const quick = new LogosAgent({
      transport: network.node('agent:quick'),
      announce: false,
      ackAfterMs: 0,
      card: {
        id: 'quick',
        name: 'Quick',
        description: 'answers at once',
        version: '1',
        skills: [
          { id: 'echo', name: 'Echo', description: '' },
          { id: 'throw', name: 'Throw', description: '' },
        ],
        agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:quick' }],
      },
      skills: {
        echo: (ctx) => ctx.text,
        throw: () => {
          throw new Error('no');
        },
      },
    });
    await quick.start();
    try {
      for (const [taskId, skill] of [
        ['q1', 'echo'],
        ['q2', 'throw'],
      ] as const) {
        listen(taskId);
        await send(
          gateway,
          { type: 'task_request', task_id: taskId, context_id: 'c', skill, params: { text: 'hi' } },
          'agent:quick',
        );
      }
      await eventually(() => (replies.length === 2 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(replies).toEqual([
        expect.objectContaining({ task_id: 'q1', seq: 1, type: 'task_result', state: 'completed', result: 'hi' }),
        expect.objectContaining({ task_id: 'q2', seq: 1, type: 'task_result', state: 'failed', message: 'no' }),
      ]);
    } finally {
      await quick.stop();
    }
  });
});

describe('a skill that answers at once, taken by accept', () => {
  const request = (taskId: string, skill: string) => {
    const decoded = decodeGatewayEnvelope(
      encodeEnvelope({
        v: 1,
        id: `${taskId}-request`,
        from: 'peer',
        to: 'agent:quick',
        status_key: key,
        type: 'task_request',
        task_id: taskId,
        context_id: 'c',
        skill,
        params: { text: 'hi' },
      }),
    );
    if (!decoded.ok) throw new Error('the test request does not decode');
    return decoded.envelope;
  };

  it('publishes its result before accept returns, and a thenable’s once it settles, in the fields it was given', async () => {
    const quick = new LogosAgent({
      transport: network.node('agent:quick'),
      announce: false,
      card: minimalCard({
        id: 'quick',
        skills: ['echo', 'completion', 'thenable'].map((id) => ({ id, name: id, description: '' })),
      }),
      skills: {
        echo: (ctx) => ctx.text,
        completion: (ctx) => ctx.complete({ asMessage: true, message: { parts: [{ text: 'm' }] } }),
        // Not a promise, but `then`-able: taken as `await` would take it.
        thenable: (ctx) => ({ then: (resolve: (value: unknown) => void) => resolve(`later ${ctx.text}`) }),
      },
    });
    const published: Array<Record<string, unknown>> = [];
    const replies = {
      maxPayloadBytes: 10_000,
      publish: async (_topic: string, payload: Uint8Array) => {
        published.push(JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>);
      },
    };
    quick.accept(request('a1', 'echo'), 'peer', replies);
    quick.accept(request('a2', 'completion'), 'peer', replies);
    expect(published).toEqual([
      expect.objectContaining({ task_id: 'a1', seq: 1, type: 'task_result', state: 'completed', result: 'hi' }),
      expect.objectContaining({ task_id: 'a2', seq: 1, type: 'task_result', as_message: true }),
    ]);
    expect(Object.keys(published[1]!).slice(0, 4)).toEqual(['type', 'state', 'message', 'as_message']);
    expect('result' in published[1]!).toBe(false);
    quick.accept(request('a3', 'thenable'), 'peer', replies);
    expect(published).toHaveLength(2);
    await eventually(() => (published.length === 3 ? true : undefined));
    expect(published[2]).toMatchObject({ task_id: 'a3', state: 'completed', result: 'later hi' });
  });

  it('fails the task of a skill whose answer throws when asked whether it is a promise', async () => {
    const odd = new LogosAgent({
      transport: network.node('agent:quick'),
      announce: false,
      card: minimalCard({ id: 'quick', skills: [{ id: 'odd', name: 'odd', description: '' }] }),
      skills: {
        odd: () => ({
          get then() {
            throw new Error('no then here');
          },
        }),
      },
    });
    const published: Array<Record<string, unknown>> = [];
    const replies = {
      maxPayloadBytes: 10_000,
      publish: async (_topic: string, payload: Uint8Array) => {
        published.push(JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>);
      },
    };
    expect(() => odd.accept(request('o1', 'odd'), 'peer', replies)).not.toThrow();
    expect(published).toEqual([
      expect.objectContaining({ task_id: 'o1', type: 'task_result', state: 'failed', message: 'no then here' }),
    ]);
  });

  it('lets a skill that has answered ask nothing more: its task is over, and stopping the agent aborts nothing', async () => {
    let kept: SkillContext | undefined;
    const quick = new LogosAgent({
      transport: network.node('agent:quick'),
      announce: false,
      card: minimalCard({ id: 'quick', skills: [{ id: 'echo', name: 'Echo', description: '' }] }),
      skills: {
        echo: (ctx) => {
          kept = ctx;
          return ctx.text;
        },
      },
    });
    const published: unknown[] = [];
    const replies = {
      maxPayloadBytes: 10_000,
      publish: async (_topic: string, payload: Uint8Array) => void published.push(payload),
    };
    quick.accept(request('c1', 'echo'), 'peer', replies);
    expect(published).toHaveLength(1);
    await expect(kept!.requestInput({ parts: [{ text: 'more?' }] })).rejects.toThrow(/over/);
    await quick.stop();
    expect(kept!.signal.aborted).toBe(false);
    expect(published).toHaveLength(1);
  });

  it('logs a publication that throws rather than rejects, and goes on publishing', async () => {
    const quick = new LogosAgent({
      transport: network.node('agent:quick'),
      announce: false,
      card: minimalCard({ id: 'quick', skills: [{ id: 'echo', name: 'Echo', description: '' }] }),
      skills: { echo: (ctx) => ctx.text },
    });
    const errors: unknown[] = [];
    const logged = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    let calls = 0;
    const replies = {
      maxPayloadBytes: 10_000,
      publish: (): Promise<void> => {
        calls++;
        throw new Error('no route');
      },
    };
    try {
      expect(() => quick.accept(request('b1', 'echo'), 'peer', replies)).not.toThrow();
      await eventually(() => (errors.length === 1 ? true : undefined));
      expect(String(errors[0])).toContain('publishing on');
      // A repeated request replays the reply: the outbox is not stuck on the failure.
      const again = { ...request('b1', 'echo'), id: 'b1-again' };
      quick.accept(again, 'peer', replies);
      await eventually(() => (errors.length === 2 ? true : undefined));
      expect(calls).toBe(2);
    } finally {
      logged.mockRestore();
    }
  });
});

describe('keeping a running task alive', () => {
  it('publishes the last reply again after each quiet heartbeat interval while the skill runs, and not after', async () => {
    const ticking = waitingAgent('slow', { heartbeatMs: 100 });
    await ticking.start();
    try {
      listen('k1');
      await send(
        gateway,
        { type: 'task_request', task_id: 'k1', context_id: 'c', skill: 'wait', params: {} },
        'agent:slow',
      );
      await eventually(() => (replies.filter((reply) => reply.seq === 1).length >= 3 ? true : undefined));
      expect(replies.every((reply) => reply.seq === 1 && reply.type === 'task_status')).toBe(true);
      release();
      await eventually(() => (replies.at(-1)?.type === 'task_result' ? true : undefined));
      const ended = replies.length;
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(replies).toHaveLength(ended);
    } finally {
      await ticking.stop();
    }
  });
});

describe('announcing the card', () => {
  const card = (id: string) => ({
    id,
    name: id,
    description: 'announces',
    version: '1',
    skills: [{ id: 'echo', name: 'Echo', description: '' }],
    agentInterfaces: [{ type: 'logos-messaging' as const, version: '1', address: `agent:${id}` }],
  });

  it('announces on the default discovery topic by default, and not at all with announce: false', async () => {
    const heard: string[] = [];
    const listener = network.node('listener');
    await listener.start();
    const stop = listener.subscribe(DEFAULT_DISCOVERY_TOPIC, (payload) =>
      heard.push(JSON.parse(new TextDecoder().decode(payload)).id),
    );
    const loud = new LogosAgent({
      transport: network.node('agent:loud'),
      card: card('loud'),
      skills: { echo: (ctx) => ctx.text },
    });
    const quiet = new LogosAgent({
      transport: network.node('agent:quiet'),
      announce: false,
      card: card('quiet'),
      skills: { echo: (ctx) => ctx.text },
    });
    await Promise.all([loud.start(), quiet.start()]);
    try {
      await eventually(() => (heard.includes('loud') ? true : undefined));
      expect(heard).not.toContain('quiet');
    } finally {
      stop();
      await Promise.all([loud.stop(), quiet.stop()]);
    }
  });
});

describe('a priced agent', () => {
  it('charges its own price: a request that offers less is rejected before any work', async () => {
    const world = pricedWorld();
    const shop = world.agent(network);
    await shop.start();
    try {
      gateway.subscribe(
        taskStatusTopic('cheap'),
        (payload) => {
          const decoded = decodeAgentEnvelope(payload);
          if (decoded.ok) replies.push(decoded.envelope);
        },
        { key: statusKeyBytes(key) },
      );
      await gateway.send(
        'agent:shop',
        encodeEnvelope({
          v: 1,
          id: 'c1',
          from: 'gateway',
          to: 'agent:shop',
          status_key: key,
          type: 'task_request',
          task_id: 'cheap',
          context_id: 'c',
          skill: 'quick',
          params: {},
          lez_price: '0',
        } as GatewayEnvelopeInput),
      );
      await eventually(() => (replies.length === 1 ? true : undefined));
      expect(replies[0]).toMatchObject({ type: 'task_result', state: 'rejected', error: { code: 'payment_invalid' } });
      expect((replies[0] as { message?: string }).message).toMatch(/costs 10; the request offers 0/);
    } finally {
      await shop.stop();
    }
  });
});

describe('forgetting finished tasks', () => {
  it('keeps the last maxRetained finished tasks for replay and forgets the older ones, oldest first', async () => {
    const quick = new LogosAgent({
      transport: network.node('agent:quick'),
      announce: false,
      maxRetained: 2,
      card: minimalCard({ id: 'quick', skills: [{ id: 'echo', name: 'Echo', description: '' }] }),
      skills: { echo: (ctx) => ctx.text },
    });
    await quick.start();
    try {
      for (const taskId of ['f1', 'f2', 'f3']) {
        listen(taskId);
        await send(
          gateway,
          { type: 'task_request', task_id: taskId, context_id: 'c', skill: 'echo', params: { text: taskId } },
          'agent:quick',
        );
        await eventually(() => (replies.some((reply) => reply.task_id === taskId) ? true : undefined));
      }
      replies.length = 0;
      for (const taskId of ['f1', 'f2', 'f3'])
        await send(gateway, { type: 'task_get', task_id: taskId, after_seq: 0 }, 'agent:quick');
      await eventually(() => (replies.length === 3 ? true : undefined));
      const byTask = Object.fromEntries(replies.map((reply) => [reply.task_id, reply]));
      expect(byTask.f1).toMatchObject({ type: 'task_result', state: 'failed', error: { code: 'unknown_task' } });
      expect(byTask.f2).toMatchObject({ type: 'task_result', state: 'completed', result: 'f2' });
      expect(byTask.f3).toMatchObject({ type: 'task_result', state: 'completed', result: 'f3' });
    } finally {
      await quick.stop();
    }
  });
});
