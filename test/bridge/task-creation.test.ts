/**
 * New tasks on their own: recorded before their request leaves, the request sent with the gateway's address and a
 * fresh status key, a message too large for one envelope refused before anything is recorded; and a priced message
 * sent again joining the task the first send created (its retry key: agent, caller, content).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Message, Task, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { AgentReplies } from '../../src/bridge/engine/agent-replies.ts';
import { PaidSteps } from '../../src/bridge/engine/paid-steps.ts';
import { joinEarlier, retriesSince, retryKeyOf } from '../../src/bridge/engine/priced-retries.ts';
import { TaskCreation } from '../../src/bridge/engine/task-creation.ts';
import { PaidTasks } from '../../src/bridge/paid-tasks.ts';
import type { TaskChange } from '../../src/bridge/task-change.ts';
import { closeEngineParts, engineParts } from '../support/engine-parts.ts';
import { eventually } from '../support/eventually.ts';

afterEach(closeEngineParts);

const message = (text: string, extra: Record<string, unknown> = {}) =>
  Message.fromJSON({ messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }], ...extra });

describe('retry keys', () => {
  it('are the same for the same message to the same agent from the same caller, whatever its task or context', () => {
    const key = retryKeyOf('shop', message('buy'), 'key-1');
    expect(retryKeyOf('shop', message('buy', { taskId: 't', contextId: 'c' }), 'key-1')).toBe(key);
    expect(retryKeyOf('shop', message('buy'), 'key-2')).not.toBe(key);
    expect(retryKeyOf('shop', message('buy'), undefined)).not.toBe(key);
    expect(retryKeyOf('other', message('buy'), 'key-1')).not.toBe(key);
    expect(retryKeyOf('shop', message('sell'), 'key-1')).not.toBe(key);
    // The fields are kept apart: an agent id cannot pass for a caller.
    expect(retryKeyOf('a\0b', message('buy'), undefined)).not.toBe(retryKeyOf('a', message('buy'), 'b'));
  });

  it('join tasks created in the last ten minutes', () => {
    expect(retriesSince(Date.parse('2026-01-01T00:10:00Z'))).toBe('2026-01-01T00:00:00.000Z');
  });
});

async function bed() {
  const { store, gateway, received, tasks, sender, finish, resends } = await engineParts({ maxEnvelopeBytes: 4_096 });
  // No payments configured: a priced task cannot be paid, and fails before it reaches the agent.
  const paid = new PaidTasks(undefined, 60_000);
  const paidSteps = new PaidSteps({
    paid,
    tasks,
    store,
    sender,
    resends,
    approvalTimeoutMs: 60_000,
    finish,
    log: () => undefined,
  });
  const replies = new AgentReplies({
    transport: gateway,
    tasks,
    maxEnvelopeBytes: 4_096,
    reorderWaitMs: 1_000,
    resends,
    resend: (live, payload) => sender.sendEncoded(live, payload),
    settleRefund: (live, envelope) => paidSteps.settleRefund(live, envelope),
    retire: (live) => tasks.delete(live),
    log: () => undefined,
  });
  let ids = 0;
  const read = async (agentId: string, taskId: string) => (await store.get(agentId, taskId))?.task;
  const creation = new TaskCreation({
    tasks,
    read,
    store,
    newTaskId: () => `task-${++ids}`,
    sender,
    attach: (live) => replies.attach(live),
    paidSteps,
    resends,
    finish,
  });
  return { store, tasks, creation, received, read };
}

const call = { skill: 'echo', params: { text: 'hi' } };

describe('creating a task', () => {
  it('records it, then sends the request with the gateway’s address and a fresh status key', async () => {
    const { store, tasks, creation, received } = await bed();
    const order: string[] = [];
    const task = await creation.create({
      agentId: 'a',
      agentAddress: 'agent',
      message: message('hi'),
      call,
      price: '0',
      onCreated: async () => void order.push(`created, ${received.length} sent`),
      onRecorded: () => order.push('recorded'),
    });
    expect(task).toMatchObject({ id: 'task-1', status: { state: TaskState.TASK_STATE_SUBMITTED } });
    expect(order).toEqual(['created, 0 sent', 'recorded']);
    expect((await store.get('a', 'task-1'))?.task.id).toBe('task-1');
    expect(tasks.has('task-1')).toBe(true);
    await eventually(() => (received.length ? true : undefined));
    expect(received[0]).toMatchObject({
      type: 'task_request',
      task_id: 'task-1',
      from: 'gateway',
      to: 'agent',
      skill: 'echo',
      lez_price: '0',
      status_key: expect.stringMatching(/^[\w-]{43}$/),
    });
  });

  it('ends the task failed, unsent, when its creation step fails (its webhook not saved), and says why', async () => {
    const { store, tasks, creation, received } = await bed();
    const refused = new Error('the webhook could not be saved');
    for (const price of ['0', '5']) {
      const created = creation.create({
        agentId: 'a',
        agentAddress: 'agent',
        message: message(`hi ${price}`),
        call,
        price,
        onCreated: async () => {
          throw refused;
        },
      });
      await expect(created).rejects.toBe(refused);
    }
    // Before, each stayed submitted for good: recorded, never sent, never ended.
    for (const id of ['task-1', 'task-2']) {
      const stored = await store.get('a', id);
      expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(tasks.has(id)).toBe(false);
    }
    expect(await store.listActive()).toEqual([]);
    expect(received).toEqual([]);
  });

  it('leaves no failed insert unhandled when the creation step fails before it is awaited', async () => {
    const { store, creation } = await bed();
    // The store is down: the insert fails, and so does the webhook's save, first.
    store.insert = () => Promise.reject(new Error('the store is down'));
    store.update = () => Promise.resolve();
    const refused = new Error('the webhook could not be saved');
    const created = creation.create({
      agentId: 'a',
      agentAddress: 'agent',
      message: message('down'),
      call,
      price: '0',
      onCreated: async () => {
        throw refused;
      },
    });
    await expect(created).rejects.toBe(refused);
    // Before, the insert's rejection went unhandled (which ends a Node process): vitest fails the run on one.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('refuses a message too large for one envelope before recording or sending anything', async () => {
    const { store, creation, received } = await bed();
    const big = message('x'.repeat(8_000));
    await expect(
      creation.create({ agentId: 'a', agentAddress: 'agent', message: big, call, price: '0' }),
    ).rejects.toBeInstanceOf(RequestMalformedError);
    expect(await store.listActive()).toEqual([]);
    expect(received).toEqual([]);
  });

  it('joins a priced message sent again to the task the first send created, instead of paying twice', async () => {
    const { creation, received } = await bed();
    const send = (listener?: (change: TaskChange) => void) =>
      creation.create({
        agentId: 'a',
        agentAddress: 'agent',
        message: message('buy'),
        call,
        price: '10',
        payee: 'agent-account',
        caller: 'key-1',
        ...(listener ? { listener } : {}),
      });
    const first = await send();
    const heard: TaskChange[] = [];
    const second = await send((change) => heard.push(change));
    expect(second.id).toBe(first.id);
    // Ended already (it could not be paid): the joining caller hears it at once.
    await eventually(() => (heard.length ? true : undefined));
    expect(heard[0]!.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(received).toEqual([]);
    const other = await creation.create({
      agentId: 'a',
      agentAddress: 'agent',
      message: message('buy'),
      call,
      price: '10',
      caller: 'key-2',
    });
    expect(other.id).not.toBe(first.id);
  });

  it('a joining caller of a live task hears its changes; of a task gone, is told so', async () => {
    const liveBed = await bed();
    await expect(joinEarlier(liveBed, 'a', 'gone', undefined)).rejects.toBeInstanceOf(TaskNotFoundError);
    const task = await liveBed.creation.create({
      agentId: 'a',
      agentAddress: 'agent',
      message: message('hi'),
      call,
      price: '0',
    });
    const heard: Task[] = [];
    const joined = await joinEarlier(liveBed, 'a', task.id, (change) => heard.push(change.task));
    expect(joined.id).toBe(task.id);
    expect([...liveBed.tasks.get(task.id)!.listeners]).toHaveLength(1);
    expect(heard).toEqual([]);
  });

  it('a joining caller of a task on another replica that ended before the follow began is told at once', async () => {
    const working = Task.fromJSON({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } });
    const done = Task.fromJSON({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } });
    const unfollowed: unknown[] = [];
    const joining = {
      tasks: (await bed()).tasks,
      read: async () => working,
      replicas: {
        follow: async () => ({ agentId: 'a', task: done, link: { agentAddress: 'x', lastSeq: 1, request: '' } }),
        unfollow: (listener: unknown) => unfollowed.push(listener),
      },
    };
    const heard: Task[] = [];
    const listener = (change: TaskChange) => heard.push(change.task);
    expect((await joinEarlier(joining, 'a', 't', listener)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await eventually(() => heard.length === 1 || undefined);
    expect(heard[0]!.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(unfollowed).toEqual([listener]);
  });
});
