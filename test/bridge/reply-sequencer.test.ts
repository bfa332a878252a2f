/**
 * Reply sequencing on its own: each reply applied once and in seq order, replies ahead of a gap held until it fills
 * or its wait runs out, and nothing applied to a task that is no longer live. Also what one reply does to a task
 * (apply-reply.ts), and the live tasks' one-change-at-a-time rule with save-then-tell (live-tasks.ts).
 */
import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { applyReply, setStatus } from '../../src/bridge/engine/apply-reply.ts';
import { LiveTasks } from '../../src/bridge/engine/live-tasks.ts';
import { ReplySequencer } from '../../src/bridge/engine/reply-sequencer.ts';
import { LiveTask } from '../../src/bridge/live-task.ts';
import { statusOf } from '../../src/bridge/mapping.ts';
import type { TaskChange } from '../../src/bridge/task-change.ts';
import { decodeAgentEnvelope, type AgentEnvelope, type TaskRequest } from '../../src/logos/envelope.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import { eventually } from '../support/eventually.ts';

const newTask = (id: string): Task => ({
  id,
  contextId: 'ctx',
  status: statusOf(TaskState.TASK_STATE_SUBMITTED),
  artifacts: [],
  history: [],
  metadata: undefined,
});
const liveTask = (id: string) => new LiveTask('agent', newTask(id), 'agent:addr', 0, { task_id: id } as TaskRequest);
/** A reply as the agent writes it, decoded as the engine decodes it. */
function reply(json: Record<string, unknown>): AgentEnvelope {
  const decoded = decodeAgentEnvelope(
    new TextEncoder().encode(JSON.stringify({ v: 1, id: 'r', task_id: 't', ...json })),
  );
  if (!decoded.ok) throw new Error(decoded.detail);
  return decoded.envelope;
}
const status = (seq: number) => reply({ type: 'task_status', seq, state: 'working' });

function sequencerBed(reorderWaitMs = 60_000) {
  const logs: string[] = [];
  const tasks = new LiveTasks({
    store: new SqliteTaskStore(':memory:'),
    sharesChanges: false,
    leaseLost: () => undefined,
    log: (m) => logs.push(m),
  });
  const applied: number[] = [];
  const sequencer = new ReplySequencer({
    tasks,
    reorderWaitMs,
    apply: async (live, envelope) => {
      expect(live.lastSeq).toBe(envelope.seq);
      applied.push(envelope.seq);
    },
    log: (m) => logs.push(m),
  });
  const live = liveTask('t');
  tasks.add(live);
  /** Offers a reply as the engine does: a repeat is refused, the rest offered on the task's chain. */
  const offer = (envelope: AgentEnvelope) =>
    tasks.mutate(live, async () => {
      if (!sequencer.isRepeat(live, envelope)) await sequencer.offer(live, envelope);
    });
  return { tasks, sequencer, live, applied, logs, offer };
}

describe('reply sequencing', () => {
  it('applies replies in seq order, whatever order they arrive in, each once', async () => {
    const { live, applied, offer } = sequencerBed();
    for (const seq of [3, 1, 1, 4, 2, 3]) await offer(status(seq));
    expect(applied).toEqual([1, 2, 3, 4]);
    expect(live.lastSeq).toBe(4);
    expect(live.pending).toBeUndefined();
    expect(live.gapTimer).toBeUndefined();
  });

  it('holds replies ahead of a gap, as repeats too, until the gap fills', async () => {
    const { live, sequencer, applied, offer } = sequencerBed();
    await offer(status(2));
    await offer(status(3));
    expect(applied).toEqual([]);
    expect(sequencer.isRepeat(live, status(3))).toBe(true);
    expect(sequencer.isRepeat(live, status(1))).toBe(false);
    expect(live.gapTimer).toBeDefined();
    await offer(status(1));
    expect(applied).toEqual([1, 2, 3]);
    expect(live.gapTimer).toBeUndefined();
  });

  it('carries on past a reply that never comes once the wait runs out, saying so', async () => {
    const { live, applied, logs, offer } = sequencerBed(30);
    await offer(status(1));
    await offer(status(3));
    await offer(status(6));
    await eventually(() => (applied.length === 3 ? true : undefined));
    expect(applied).toEqual([1, 3, 6]);
    expect(live.lastSeq).toBe(6);
    expect(logs.filter((l) => l.includes('never arrived'))).toEqual([
      'task t: replies 2..2 never arrived; skipping them',
      'task t: replies 4..5 never arrived; skipping them',
    ]);
  });

  it('takes a reply as the next whatever its seq (an agent that lost the task)', async () => {
    const { live, sequencer, applied, offer } = sequencerBed();
    await offer(status(1));
    await offer(status(2));
    await sequencer.offerAsNext(
      live,
      reply({ type: 'task_result', seq: 1, state: 'failed', error: { code: 'unknown_task', message: 'lost' } }),
    );
    expect(applied).toEqual([1, 2, 3]);
  });

  it('applies nothing more to a task no longer live here', async () => {
    const { tasks, live, applied, offer } = sequencerBed(30);
    await offer(status(2));
    tasks.delete(live);
    await offer(status(1));
    expect(applied).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(applied).toEqual([]);
  });
});

describe('what a reply does to its task', () => {
  it('a status with an artifact chunk moves the state first, then appends the chunk to its artifact', () => {
    const task = newTask('t');
    const chunk = (text: string, append: boolean) =>
      reply({
        type: 'task_status',
        seq: 1,
        state: 'working',
        artifact: { artifact_id: 'a', parts: [{ text }], append, last_chunk: false },
      });
    const first = applyReply(task, chunk('one ', false));
    expect(first.map((e) => e.payload?.$case)).toEqual(['statusUpdate', 'artifactUpdate']);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // The same state without a message: only the chunk is told.
    const second = applyReply(task, chunk('two', true));
    expect(second.map((e) => e.payload?.$case)).toEqual(['artifactUpdate']);
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).toEqual([
      'one ',
      'two',
    ]);
  });

  it('a failed result records the agent’s error and says it in the status and history', () => {
    const task = newTask('t');
    const events = applyReply(
      task,
      reply({ type: 'task_result', seq: 1, state: 'failed', error: { code: 'boom', message: 'it broke' } }),
    );
    expect(events.map((e) => e.payload?.$case)).toEqual(['statusUpdate']);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.metadata).toMatchObject({ error: { code: 'boom', message: 'it broke' } });
    expect(task.history).toHaveLength(1);
  });

  it('a result becomes the first artifact; cancelled says so when the agent gives no message', () => {
    const task = newTask('t');
    applyReply(task, reply({ type: 'task_result', seq: 1, state: 'completed', result: 42 }));
    expect(task.artifacts).toHaveLength(1);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const other = newTask('u');
    applyReply(other, reply({ type: 'cancelled', seq: 1 }));
    expect(other.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify(other.status?.message)).toContain('Task cancelled.');
    // A status without a message adds nothing to the history.
    setStatus(other, TaskState.TASK_STATE_CANCELED);
    expect(other.history).toHaveLength(1);
  });
});

describe('live tasks', () => {
  it('runs one change of a task at a time, in the order asked, and a failing one stops none after it', async () => {
    const { tasks, live, logs } = sequencerBed();
    const order: string[] = [];
    let release!: () => void;
    const first = tasks.mutate(live, () =>
      new Promise<void>((resolve) => (release = resolve)).then(() => void order.push('a')),
    );
    tasks.enqueue(live, 'failing', async () => {
      order.push('b');
      throw new Error('boom');
    });
    const third = tasks.mutate(live, async () => void order.push('c'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    release();
    await Promise.all([first, third]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(logs).toContain('task t: failing: Error: boom');
  });

  it('tells listeners only what was saved, and a listener that throws keeps it from no other', async () => {
    const store = new SqliteTaskStore(':memory:');
    const heard: TaskChange[] = [];
    const logs: string[] = [];
    const tasks = new LiveTasks({
      store,
      onChange: () => {
        throw new Error('observer down');
      },
      sharesChanges: false,
      leaseLost: () => undefined,
      log: (m) => logs.push(m),
    });
    const live = liveTask('t');
    await store.insert({
      agentId: 'agent',
      task: newTask('t'),
      link: { agentAddress: 'agent:addr', lastSeq: 0, request: '{}' },
    });
    live.listeners.add((change) => heard.push(change));
    setStatus(live.task, TaskState.TASK_STATE_WORKING);
    live.lastSeq = 3;
    const change = await tasks.persist(live, { events: [] });
    expect(live.committed.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect((await store.get('agent', 't'))?.task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect((await store.get('agent', 't'))?.link.lastSeq).toBe(3);
    // The saved change is a snapshot: later changes to the live task do not reach it.
    setStatus(live.task, TaskState.TASK_STATE_COMPLETED);
    tasks.emit(live, change);
    expect(heard.map((c) => c.task.status?.state)).toEqual([TaskState.TASK_STATE_WORKING]);
    expect(logs).toEqual(['task t: a listener threw: Error: observer down']);
    await store.close();
  });
});
