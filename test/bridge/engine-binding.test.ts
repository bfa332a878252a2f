/**
 * The gateway's side of the binding against a hand-driven agent on the in-process network: ordering, duplicates,
 * gaps, foreign and malformed replies, lost input, resumption. Each reply is written byte for byte here.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Message, TaskState, type Task } from '@a2a-js/sdk';
import type { TaskChange } from '../../src/bridge/task-change.ts';
import { TaskEngine } from '../../src/bridge/task-engine.ts';
import {
  decodeGatewayEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelopeInput,
  type GatewayEnvelope,
} from '../../src/logos/envelope.ts';
import { statusKeyBytes } from '../../src/logos/status-key.ts';
import { MemoryNetwork, type MemoryTransport } from '../../src/logos/transports/memory.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import { SilenceTimers } from '../../src/bridge/silence-timers.ts';
import { eventually } from '../support/gateway.ts';

let network: MemoryNetwork;
let store: SqliteTaskStore;
let engine: TaskEngine;
let agent: MemoryTransport;
let inbox: GatewayEnvelope[];
let gatewayNode: MemoryTransport;

function newEngine() {
  return new TaskEngine({
    store,
    transport: gatewayNode,
    agentTimeoutMs: 3_000,
    cancelTimeoutMs: 200,
    reorderWaitMs: 40,
    // Below the transport's limit, so that an oversized reply reaches the engine's own check.
    maxEnvelopeBytes: 64 * 1024,
    log: () => undefined,
  });
}

beforeEach(async () => {
  network = new MemoryNetwork();
  store = new SqliteTaskStore(':memory:');
  agent = network.node('agent:raw');
  await agent.start();
  inbox = [];
  agent.onDirect((payload) => {
    const decoded = decodeGatewayEnvelope(payload);
    if (decoded.ok) inbox.push(decoded.envelope);
  });
  gatewayNode = network.node('gateway');
  await gatewayNode.start();
  engine = newEngine();
  await engine.start();
});
afterEach(async () => {
  await engine.stop();
  await store.close();
});

async function newTask(text = 'hi', changes: TaskChange[] = []): Promise<Task> {
  return engine.createTask({
    agentId: 'raw',
    agentAddress: 'agent:raw',
    message: Message.fromJSON({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] }),
    call: { skill: 's', params: { text } },
    price: '0',
    listener: (change) => changes.push(change),
  });
}

let replyId = 0;
/** The status key the gateway gave the agent for a task (from the task_request it sent). */
const keyOf = (taskId: string) => inbox.find((e) => e.task_id === taskId)!.status_key;
/** Publishing under the task's status key, as its agent does. */
const keyed = (taskId: string) => ({ key: statusKeyBytes(keyOf(taskId)) });
const bytes = (envelope: Record<string, unknown>) => encodeEnvelope(envelope as AgentEnvelopeInput);
const reply = async (taskId: string, body: Record<string, unknown> & { seq: number; type: string }) => {
  await eventually(() => (inbox.some((e) => e.task_id === taskId) ? true : undefined));
  await agent.publish(
    taskStatusTopic(taskId),
    bytes({ v: 1, id: `r${++replyId}`, task_id: taskId, ...body }),
    keyed(taskId),
  );
};

const stateOf = async (taskId: string) => (await engine.getTask('raw', taskId))?.status?.state;

describe('the gateway side of the binding', () => {
  it('sends a task_request, then applies replies in seq order whatever order they arrive in', async () => {
    const changes: TaskChange[] = [];
    const task = await newTask('hello', changes);
    await eventually(() => (inbox.length ? true : undefined));
    expect(inbox[0]).toMatchObject({
      type: 'task_request',
      task_id: task.id,
      skill: 's',
      params: { text: 'hello' },
      from: 'gateway',
      to: 'agent:raw',
    });
    await reply(task.id, { seq: 2, type: 'task_result', state: 'completed', result: 'done' });
    await reply(task.id, { seq: 1, type: 'task_status', state: 'working', message: 'on it' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
    const states = changes.map((c) =>
      c.events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : [])),
    );
    expect(states).toEqual([[TaskState.TASK_STATE_WORKING], [TaskState.TASK_STATE_COMPLETED]]);
  });

  it('names a task by a time-ordered id (UUID v7), so the task table takes it at the end of its key', async () => {
    const before = Date.now();
    const task = await newTask();
    expect(task.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const createdAt = Number.parseInt(task.id.replaceAll('-', '').slice(0, 12), 16);
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
  });

  it('drops the request’s first resend once the task ends: a finished task is not held until it would fire', async () => {
    // Every timer of a task (its silence, its request's first resend) is an entry in one of the engine's queues.
    const armed = vi.spyOn(SilenceTimers.prototype, 'arm');
    try {
      const task = await newTask();
      const queues = armed.mock.contexts as SilenceTimers<unknown>[];
      const live = armed.mock.calls[0]![0];
      expect(new Set(queues).size).toBe(2);
      await reply(task.id, { seq: 1, type: 'task_result', state: 'completed', result: 'done' });
      await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
      for (const queue of queues) expect(queue.armed(live)).toBe(false);
    } finally {
      armed.mockRestore();
    }
  });

  it('drops repeats, replies for another task, malformed and oversized payloads, and counts them', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_status', state: 'working' });
    await reply(task.id, { seq: 1, type: 'task_status', state: 'working' });
    await agent.publish(
      taskStatusTopic(task.id),
      bytes({ v: 1, id: 'x', task_id: 'someone-else', seq: 2, type: 'task_result', state: 'completed' }),
      keyed(task.id),
    );
    await agent.publish(taskStatusTopic(task.id), bytes({ not: 'an envelope' }), keyed(task.id));
    await agent.publish(taskStatusTopic(task.id), new Uint8Array(128 * 1024), keyed(task.id));
    // A well-formed reply that is not published under the task's key never reaches the engine.
    await agent.publish(
      taskStatusTopic(task.id),
      bytes({ v: 1, id: 'y', task_id: task.id, seq: 2, type: 'task_result', state: 'completed' }),
    );
    await eventually(() =>
      engine.dropped.undecodable === 2 && engine.dropped.duplicate === 1 && engine.dropped.wrongTask === 1
        ? true
        : undefined,
    );
    expect(await stateOf(task.id)).toBe(TaskState.TASK_STATE_WORKING);
  });

  it('drops replies published by anyone but the task’s agent', async () => {
    const task = await newTask();
    const forger = network.node('agent:forger');
    await forger.start();
    await eventually(() => (inbox.length ? true : undefined));
    // Even with the task's key (say it leaked), a reply from another party is refused.
    await forger.publish(
      taskStatusTopic(task.id),
      bytes({ v: 1, id: 'f1', task_id: task.id, seq: 1, type: 'task_result', state: 'completed', result: 'forged' }),
      keyed(task.id),
    );
    await eventually(() => (engine.dropped.wrongSender === 1 ? true : undefined));
    await reply(task.id, { seq: 1, type: 'task_status', state: 'working' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_WORKING ? true : undefined));
  });

  it('carries on past replies that never arrive, even across two gaps', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_status', state: 'working' });
    await reply(task.id, { seq: 3, type: 'task_status', state: 'working', message: 'three' });
    await reply(task.id, { seq: 6, type: 'task_result', state: 'completed', result: 'six' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
  });

  it('a null result adds no empty artifact', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_result', state: 'completed', result: null });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
    expect((await engine.getTask('raw', task.id))!.artifacts).toEqual([]);
  });

  it('sends the input again when the agent still asks for it after the input went out', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_status', state: 'input-required', message: 'which?' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_INPUT_REQUIRED ? true : undefined));
    const followUp = Message.fromJSON({ messageId: 'f', role: 'ROLE_USER', parts: [{ text: 'that one' }] });
    await engine.followUp('raw', task.id, followUp, { params: () => ({ text: 'that one' }) });
    await eventually(() => (inbox.filter((e) => e.type === 'task_input').length === 1 ? true : undefined));
    // The agent's heartbeat repeats its last reply: it never got the input.
    await reply(task.id, { seq: 1, type: 'task_status', state: 'input-required', message: 'which?' });
    await eventually(() => (inbox.filter((e) => e.type === 'task_input').length === 2 ? true : undefined));
    const inputs = inbox.filter((e) => e.type === 'task_input');
    expect(inputs[1]).toEqual(inputs[0]);
  });

  it('a restarted gateway asks again: the request under a fresh id if nothing came back, else task_get after the last seq', async () => {
    const silent = await newTask('first');
    const started = await newTask('second');
    await reply(started.id, { seq: 1, type: 'task_status', state: 'working' });
    await eventually(async () => ((await stateOf(started.id)) === TaskState.TASK_STATE_WORKING ? true : undefined));
    await engine.stop();
    inbox.length = 0;
    engine = newEngine();
    await engine.start();
    await eventually(() => (inbox.length === 2 ? true : undefined));
    const request = inbox.find((e) => e.task_id === silent.id)!;
    expect(request.type).toBe('task_request');
    const get = inbox.find((e) => e.task_id === started.id)!;
    expect(get).toMatchObject({ type: 'task_get', after_seq: 1 });
    await reply(started.id, { seq: 2, type: 'task_result', state: 'completed', result: 'ok' });
    await eventually(async () => ((await stateOf(started.id)) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
  });

  it('an agent that lost the task (it restarted) ends it, whatever the seq of its answer', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_status', state: 'working' });
    await reply(task.id, { seq: 2, type: 'task_status', state: 'working', message: 'still on it' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_WORKING ? true : undefined));
    // The restarted agent answers a cancel (or any question) about a task it has no record of, numbered 1.
    const lost = 'The agent has no record of this task; it may have restarted.';
    await reply(task.id, {
      seq: 1,
      type: 'task_result',
      state: 'failed',
      error: { code: 'unknown_task', message: lost },
      message: lost,
    });
    const failed = await eventually(async () => {
      const now = await engine.getTask('raw', task.id);
      return now?.status?.state === TaskState.TASK_STATE_FAILED ? now : undefined;
    });
    // Ended by the agent's answer, not by the silence timeout.
    const text = failed.status?.message?.parts[0]?.content;
    expect(text?.$case === 'text' && text.value).toBe(lost);
  });

  it('cancels locally, saying so, when the agent does not confirm in time', async () => {
    const task = await newTask();
    const cancelled = await engine.cancel('raw', task.id);
    expect(inbox.some((e) => e.type === 'cancel' && e.task_id === task.id)).toBe(true);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const text = cancelled.status?.message?.parts[0]?.content;
    expect(text?.$case === 'text' && text.value).toMatch(/did not confirm/);
  });

  it('refuses a message too large for one envelope before recording anything', async () => {
    // Over the limit even carried once (a text that fits once goes in params.text alone).
    await expect(newTask('x'.repeat(1_100_000))).rejects.toThrow(/Logos envelope/);
    expect((await store.list('raw', { pageSize: 10 })).totalSize).toBe(0);
  });
});

describe('the gateway side of the binding, after a restart', () => {
  it('asks the caller again when a follow-up was lost before the restart', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_status', state: 'input-required', message: 'which?' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_INPUT_REQUIRED ? true : undefined));
    await engine.followUp(
      'raw',
      task.id,
      Message.fromJSON({ messageId: 'f', role: 'ROLE_USER', parts: [{ text: 'x' }] }),
      { params: () => ({ text: 'x' }) },
    );
    await engine.stop();
    engine = newEngine();
    await engine.start();
    // The agent never got the input: its heartbeat repeats the question.
    await reply(task.id, { seq: 1, type: 'task_status', state: 'input-required', message: 'which?' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_INPUT_REQUIRED ? true : undefined));
  });

  it('refuses a follow-up too large for one envelope, changing nothing', async () => {
    const task = await newTask();
    await reply(task.id, { seq: 1, type: 'task_status', state: 'input-required' });
    await eventually(async () => ((await stateOf(task.id)) === TaskState.TASK_STATE_INPUT_REQUIRED ? true : undefined));
    const big = 'x'.repeat(1_100_000);
    await expect(
      engine.followUp('raw', task.id, Message.fromJSON({ messageId: 'b', role: 'ROLE_USER', parts: [{ text: big }] }), {
        params: () => ({ text: big }),
      }),
    ).rejects.toThrow(/Logos envelope/);
    expect(await stateOf(task.id)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });
});
