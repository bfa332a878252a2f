/**
 * The engine's schedules on their own: a request no reply answered is sent again (never to a seed agent), a
 * restarted agent is asked about its task, a paid task's cancel is repeated, and a silent agent's task fails (a
 * paid one after one more question); each stops once its task is no longer live here. Over the in-process network,
 * on fake clocks.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { LiveTask } from '../../src/bridge/live-task.ts';
import { statusOf } from '../../src/bridge/mapping.ts';
import { seedBinding } from '../../src/logos/bindings/seed.ts';
import { type TaskRequest } from '../../src/logos/envelope.ts';
import { closeEngineParts, engineParts, taskRequest } from '../support/engine-parts.ts';

const AGENT_TIMEOUT_MS = 10_000;

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(async () => {
  vi.useRealTimers();
  await closeEngineParts();
});

async function bed() {
  const finished: LiveTask[] = [];
  const { received, tasks, resends } = await engineParts({
    agentTimeoutMs: AGENT_TIMEOUT_MS,
    finish: async (live, tasks) => {
      finished.push(live);
      tasks.delete(live);
    },
  });
  const request = taskRequest({ id: 'first', task_id: 't1' });
  const task: Task = {
    id: 't1',
    contextId: 'ctx',
    status: statusOf(TaskState.TASK_STATE_WORKING),
    artifacts: [],
    history: [],
    metadata: undefined,
  };
  const live = new LiveTask('a', task, 'agent', 0, request);
  tasks.add(live);
  /** Lets the clock run `ms`, with every delivery it sets off. */
  const elapse = async (ms: number) => {
    await vi.advanceTimersByTimeAsync(ms);
  };
  return { tasks, resends, live, received, finished, elapse };
}

describe('retransmission', () => {
  it('sends an unanswered request again 2, 6, 14 and 30 s after it went out, each under a fresh id, then stops', async () => {
    const { resends, live, received, elapse } = await bed();
    const start = performance.now();
    resends.resendUntilAnswered(live);
    await elapse(1_999);
    expect(received).toEqual([]);
    await elapse(1);
    expect(received.map((e) => e.type)).toEqual(['task_request']);
    // Each wait twice the one before: 2 s after it went out, then 6, 14 and 30 s.
    const sentBy = async (at: number) => {
      await elapse(at - (performance.now() - start));
      return received.length;
    };
    expect([await sentBy(5_999), await sentBy(6_000)]).toEqual([1, 2]);
    expect([await sentBy(13_999), await sentBy(14_000)]).toEqual([2, 3]);
    expect([await sentBy(29_999), await sentBy(30_000)]).toEqual([3, 4]);
    await elapse(60_000);
    expect(received.map((e) => e.type)).toEqual(Array(4).fill('task_request'));
    expect(new Set(received.map((e) => e.id)).size).toBe(4);
    expect(
      received.every((e) => e.task_id === 't1' && e.id !== 'first' && e.status_key === live.request.status_key),
    ).toBe(true);
  });

  it('stops resending once a reply came or a cancel went out', async () => {
    const { resends, live, received, elapse } = await bed();
    resends.resendUntilAnswered(live);
    await elapse(2_000);
    live.lastSeq = 1;
    await elapse(60_000);
    expect(received).toHaveLength(1);
    const other = await bed();
    other.resends.resendUntilAnswered(other.live);
    other.live.cancelSent = true;
    await other.elapse(60_000);
    expect(other.received).toEqual([]);
  });

  it('never sends a seed agent its request again', async () => {
    const { resends, live, received, elapse } = await bed();
    live.wireBinding = seedBinding;
    resends.resendUntilAnswered(live);
    await elapse(60_000);
    expect(received).toEqual([]);
  });

  it('asks a restarted agent at once and four times more; after a reply, for what came after it', async () => {
    const { resends, live, received, elapse } = await bed();
    live.lastSeq = 3;
    resends.askAfterRestart(live);
    await elapse(0);
    expect(received).toMatchObject([{ type: 'task_get', after_seq: 3, task_id: 't1', from: 'gateway', to: 'agent' }]);
    // 0.5, 1.5, 3.5 and 7.5 s later.
    await elapse(3_499);
    expect(received).toHaveLength(3);
    await elapse(1);
    expect(received).toHaveLength(4);
    await elapse(4_000);
    expect(received.map((e) => e.type)).toEqual(Array(5).fill('task_get'));
    await elapse(60_000);
    expect(received).toHaveLength(5);
  });

  it('a seed agent that never answered is asked, not sent its request again, in the seed’s fields', async () => {
    const { resends, live, received, elapse } = await bed();
    live.wireBinding = seedBinding;
    resends.askAgain(live);
    await elapse(0);
    expect(received).toEqual([{ type: 'task_get', task_id: 't1', skill: 'echo', params: {}, lez_price: '0' }]);
  });

  it('repeats a paid task’s cancel 1, 3, 7, 15 and 31 s later, and not once the task is no longer live', async () => {
    const { tasks, resends, live, received, elapse } = await bed();
    resends.keepCancelling(live);
    await elapse(7_000);
    expect(received.map((e) => e.type)).toEqual(['cancel', 'cancel', 'cancel']);
    tasks.delete(live);
    await elapse(60_000);
    expect(received).toHaveLength(3);
  });
});

describe('an agent’s silence', () => {
  it('fails the task after the timeout, saying so', async () => {
    const { resends, live, finished, elapse } = await bed();
    resends.watchSilence(live);
    await elapse(AGENT_TIMEOUT_MS - 1);
    expect(finished).toEqual([]);
    await elapse(1);
    expect(finished).toEqual([live]);
    expect(live.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(live.task.metadata).toMatchObject({ error: { code: 'agent_timeout', message: 'no reply for 10 s' } });
  });

  it('counts afresh when watched again, and not at all while ignored', async () => {
    const { resends, live, finished, elapse } = await bed();
    resends.watchSilence(live);
    await elapse(AGENT_TIMEOUT_MS - 1);
    resends.watchSilence(live);
    await elapse(AGENT_TIMEOUT_MS - 1);
    expect(finished).toEqual([]);
    resends.ignoreSilence(live);
    await elapse(3 * AGENT_TIMEOUT_MS);
    expect(finished).toEqual([]);
  });

  it('asks a paid task’s agent once more and gives it another period before failing the task', async () => {
    const { resends, live, received, finished, elapse } = await bed();
    live.request = { ...live.request, payment: { tx_hash: 'ab'.repeat(32), amount: '5' } } as TaskRequest;
    resends.watchSilence(live);
    await elapse(AGENT_TIMEOUT_MS);
    expect(finished).toEqual([]);
    expect(received.map((e) => e.type)).toEqual(['task_request']);
    await elapse(AGENT_TIMEOUT_MS);
    expect(finished).toEqual([live]);
  });
});
