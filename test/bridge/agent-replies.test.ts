/**
 * Hearing agents, on its own: replies reach a task through its wire binding (ours: keyed status topic; the seed's:
 * open topic and 1:1), what is not the task's agent's is refused and counted by reason, a task whose agent lost it
 * ends whatever the seq of its answer, and input the agent never got is sent again. Over the in-process network.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { AgentReplies } from '../../src/bridge/engine/agent-replies.ts';
import { LiveTask } from '../../src/bridge/live-task.ts';
import type { TaskChange } from '../../src/bridge/task-change.ts';
import { encodeEnvelope, taskStatusTopic } from '../../src/logos/envelope.ts';
import { wireBindingOf } from '../../src/logos/bindings/binding-of.ts';
import { seedStatusTopic } from '../../src/logos/seed-dialect.ts';
import { statusKeyBytes } from '../../src/logos/status-key.ts';
import { closeEngineParts, engineParts, taskRequest } from '../support/engine-parts.ts';
import { eventually } from '../support/eventually.ts';

afterEach(closeEngineParts);

async function bed(dialect: 'binding' | 'seed' = 'binding') {
  const parts = await engineParts({ others: ['stranger'] });
  const { store, gateway, agent, tasks, sender, resends } = parts;
  const stranger = parts.others[0]!;
  const inbox = parts.received;
  const retired: LiveTask[] = [];
  const replies = new AgentReplies({
    transport: gateway,
    tasks,
    maxEnvelopeBytes: 64 * 1024,
    reorderWaitMs: 60_000,
    bindingOf: (address) => wireBindingOf(address === 'agent' ? dialect : 'binding'),
    resends,
    resend: (live, payload) => sender.sendEncoded(live, payload),
    settleRefund: async () => undefined,
    retire: (live) => {
      retired.push(live);
      tasks.delete(live);
    },
    log: () => undefined,
  });
  gateway.onDirect((payload, { sender: from }) => replies.hearDirect(payload, from));
  const request = taskRequest({ id: 'request', task_id: 't1' });
  const task = Task.fromJSON({ id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED' }, history: [] });
  await store.insert({
    agentId: 'a',
    task,
    link: { agentAddress: 'agent', lastSeq: 0, request: JSON.stringify(request) },
  });
  const live = new LiveTask('a', task, 'agent', 0, request);
  const changes: TaskChange[] = [];
  live.listeners.add((change) => changes.push(change));
  replies.attach(live);
  const key = { key: statusKeyBytes(request.status_key) };
  /** A reply of ours, published under the task's status key by `from`. */
  const publish = (body: Record<string, unknown>, from = agent) =>
    from.publish(
      taskStatusTopic('t1'),
      encodeEnvelope({ v: 1, id: `r-${Math.random()}`, task_id: 't1', ...body } as never),
      key,
    );
  return { tasks, replies, live, changes, retired, inbox, agent, stranger, publish };
}

const stateOf = (live: LiveTask) => live.task.status?.state;

describe('replies of our binding', () => {
  it('applies the agent’s replies in order and counts what it refuses, by reason', async () => {
    const { replies, live, changes, stranger, agent, publish } = await bed();
    await publish({ type: 'task_status', seq: 1, state: 'working' });
    await publish({ type: 'task_status', seq: 1, state: 'working' });
    await publish({ type: 'task_status', seq: 2, state: 'working' }, stranger);
    await publish({ type: 'task_status', seq: 2, state: 'working', task_id: 'another' });
    await agent.publish(taskStatusTopic('t1'), new TextEncoder().encode('{not json'), {
      key: statusKeyBytes(live.request.status_key),
    });
    await publish({ type: 'task_result', seq: 2, state: 'completed', result: 'done' });
    await eventually(() => (stateOf(live) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
    expect(changes.map((c) => c.task.status?.state)).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    expect(replies.dropped).toEqual({ wrongSender: 1, undecodable: 1, wrongTask: 1, duplicate: 1 });
  });

  it('ends a task its agent lost, whatever the seq of the agent’s answer', async () => {
    const { live, retired, publish } = await bed();
    await publish({ type: 'task_status', seq: 1, state: 'working' });
    await publish({ type: 'task_status', seq: 2, state: 'working' });
    await publish({
      type: 'task_result',
      seq: 1,
      state: 'failed',
      error: { code: 'unknown_task', message: 'no such task' },
    });
    await eventually(() => (retired.length ? true : undefined));
    expect(stateOf(live)).toBe(TaskState.TASK_STATE_FAILED);
    expect(live.lastSeq).toBe(3);
  });

  it('sends the input again when the agent still asks for it after it went out', async () => {
    const { live, inbox, publish } = await bed();
    await publish({ type: 'task_status', seq: 1, state: 'input-required' });
    await eventually(() => (stateOf(live) === TaskState.TASK_STATE_INPUT_REQUIRED ? true : undefined));
    live.sentInput = encodeEnvelope({ v: 1, id: 'in', type: 'task_input', task_id: 't1', params: {} } as never);
    await publish({ type: 'task_status', seq: 1, state: 'input-required' });
    await eventually(() => (inbox.length ? true : undefined));
    expect(inbox[0]).toMatchObject({ id: 'in', type: 'task_input' });
  });

  it('takes no 1:1 message as a reply to a task of ours', async () => {
    const { replies, live, agent } = await bed();
    await agent.send('gateway', new TextEncoder().encode(JSON.stringify({ type: 'task_result', task_id: 't1' })));
    await eventually(() => (replies.dropped.wrongTask === 1 ? true : undefined));
    expect(stateOf(live)).toBe(TaskState.TASK_STATE_SUBMITTED);
  });
});

describe('replies of the seed dialect', () => {
  it('moves a task along from the open topic, but ends it only by a 1:1 reply from its agent', async () => {
    const { replies, live, agent, stranger } = await bed('seed');
    const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    await stranger.publish(seedStatusTopic('t1'), json({ type: 'task_status', task_id: 't1', state: 'working' }));
    await eventually(() => (stateOf(live) === TaskState.TASK_STATE_WORKING ? true : undefined));
    await stranger.publish(seedStatusTopic('t1'), json({ type: 'task_result', task_id: 't1', state: 'completed' }));
    await eventually(() => (replies.dropped.wrongSender === 1 ? true : undefined));
    await stranger.send('gateway', json({ type: 'task_result', task_id: 't1', state: 'completed' }));
    await eventually(() => (replies.dropped.wrongSender === 2 ? true : undefined));
    expect(stateOf(live)).toBe(TaskState.TASK_STATE_WORKING);
    await agent.send('gateway', json({ type: 'task_result', task_id: 't1', state: 'completed', result: 'ok' }));
    await eventually(() => (stateOf(live) === TaskState.TASK_STATE_COMPLETED ? true : undefined));
  });
});
