/**
 * What callers and operators do to a running task, on its own: input goes to an agent whose task waits for it (and
 * is refused otherwise, saying why), a cancel the agent does not confirm ends the task locally, saying so, and
 * commands for tasks that are not running here are refused. Over the in-process network and a real SQLite store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Message, Task, TaskState } from '@a2a-js/sdk';
import { setStatus } from '../../src/bridge/engine/apply-reply.ts';
import { PaidSteps } from '../../src/bridge/engine/paid-steps.ts';
import { TaskCommands } from '../../src/bridge/engine/task-commands.ts';
import { LiveTask } from '../../src/bridge/live-task.ts';
import { PaidTasks } from '../../src/bridge/paid-tasks.ts';
import type { TaskChange } from '../../src/bridge/task-change.ts';
import { statusEvent } from '../../src/bridge/task-events.ts';
import { seedBinding } from '../../src/logos/bindings/seed.ts';
import { closeEngineParts, engineParts, taskRequest } from '../support/engine-parts.ts';
import { eventually } from '../support/eventually.ts';

afterEach(closeEngineParts);

async function bed(
  options: {
    paid?: Pick<PaidTasks, 'recordDecision' | 'approval'>;
    /** How the paid steps pay (default: no rail, so a payment fails at once). */
    pay?: PaidTasks['pay'];
    replicas?: ConstructorParameters<typeof TaskCommands>[0]['replicas'];
  } = {},
) {
  const { store, received, tasks, sender, finish, resends } = await engineParts();
  const paid = new PaidTasks(undefined, 60_000);
  const paidSteps = new PaidSteps({
    paid: options.pay ? Object.assign(Object.create(paid) as PaidTasks, { pay: options.pay }) : paid,
    tasks,
    store,
    sender,
    resends,
    approvalTimeoutMs: 60_000,
    finish,
    log: () => undefined,
  });
  const commands = new TaskCommands({
    tasks,
    paid: options.paid ?? paid,
    ...(options.replicas ? { replicas: options.replicas } : {}),
    paidSteps,
    sender,
    resends,
    cancelTimeoutMs: 100,
    read: async (agentId, taskId) => {
      const live = tasks.get(taskId);
      if (live) return live.agentId === agentId ? live.committed : undefined;
      return (await store.get(agentId, taskId))?.task;
    },
    unlisten: (taskId, listener) => tasks.get(taskId)?.listeners.delete(listener),
    finish,
  });
  const liveTask = async (id: string, state: TaskState) => {
    const task = Task.fromJSON({
      id,
      contextId: 'ctx',
      status: { state: TaskState[state] },
      history: [],
      metadata: { logos: { agentId: 'a', skill: 'echo', lezPrice: '0' } },
    });
    const request = taskRequest({ id: `request-${id}`, task_id: id });
    await store.insert({
      agentId: 'a',
      task,
      link: { agentAddress: 'agent', lastSeq: 1, request: JSON.stringify(request) },
    });
    const live = new LiveTask('a', task, 'agent', 1, request);
    tasks.add(live);
    return live;
  };
  return { store, tasks, commands, received, liveTask };
}

const message = (text: string, contextId?: string) =>
  Message.fromJSON({
    messageId: `m-${text}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(contextId ? { contextId } : {}),
  });
const params = () => ({ text: 'more' });

/** A task recorded as ended, and so not live here. */
const recordEnded = (store: Awaited<ReturnType<typeof bed>>['store'], id: string, state: string) =>
  store.insert({
    agentId: 'a',
    task: Task.fromJSON({ id, contextId: 'ctx', status: { state }, history: [] }),
    link: { agentAddress: 'agent', lastSeq: 1, request: '' },
  });

describe('follow-ups', () => {
  it('sends input to a task that waits for it; the task is working again and the listener hears it', async () => {
    const { commands, received, liveTask } = await bed();
    const live = await liveTask('t1', TaskState.TASK_STATE_INPUT_REQUIRED);
    const heard: TaskChange[] = [];
    const task = await commands.followUp('a', 't1', message('more'), { params, listener: (c) => heard.push(c) });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(heard.map((c) => c.task.status?.state)).toEqual([TaskState.TASK_STATE_WORKING]);
    await eventually(() => (received.length ? true : undefined));
    expect(received[0]).toMatchObject({ type: 'task_input', task_id: 't1', params: { text: 'more' } });
    expect(live.sentInput).toBeDefined();
  });

  it('refuses a message to a task that waits for nothing, to an ended one, or naming another context', async () => {
    const { commands, store, liveTask } = await bed();
    await liveTask('working', TaskState.TASK_STATE_WORKING);
    await expect(commands.followUp('a', 'working', message('x'), { params })).rejects.toThrow(
      /is working; it takes a new message only while input-required/,
    );
    const ended = await liveTask('ended', TaskState.TASK_STATE_COMPLETED);
    await store.update('ended', ended.task, 1);
    await expect(commands.followUp('a', 'ended', message('x'), { params })).rejects.toThrow(/already completed/);
    await liveTask('waiting', TaskState.TASK_STATE_INPUT_REQUIRED);
    await expect(commands.followUp('a', 'waiting', message('x', 'other'), { params })).rejects.toThrow(
      /does not match task waiting's context/,
    );
    await expect(commands.followUp('b', 'waiting', message('x'), { params })).rejects.toThrow(/was not found/);
  });

  it('refuses a message to a task that ended while it was taken in, saying how it ended', async () => {
    let cancelMeanwhile = async () => undefined;
    const { commands, store, tasks, liveTask } = await bed({
      replicas: {
        // Cancelled at once while this replica asked whether another runs the task.
        runsElsewhere: async () => {
          await cancelMeanwhile();
          return false;
        },
        follow: async () => undefined,
        forward: async () => 'ended',
      },
    });
    const live = await liveTask('raced', TaskState.TASK_STATE_INPUT_REQUIRED);
    cancelMeanwhile = async () => {
      tasks.delete(live);
      setStatus(live.task, TaskState.TASK_STATE_CANCELED);
      await store.update('raced', live.task, 1);
    };
    // Before, it was refused as "input-required; it takes a new message only while input-required".
    await expect(commands.followUp('a', 'raced', message('x'), { params })).rejects.toThrow(
      /Task raced is already canceled; start a new task instead/,
    );
  });

  it('refuses input for an agent whose binding takes none, saying why, and sends it nothing', async () => {
    const { commands, received, liveTask } = await bed();
    const live = await liveTask('seed', TaskState.TASK_STATE_INPUT_REQUIRED);
    live.wireBinding = seedBinding;
    await expect(commands.followUp('a', 'seed', message('x'), { params })).rejects.toThrow(
      /speaks the seed binding, which takes no input/,
    );
    expect(received).toEqual([]);
  });
});

describe('cancel', () => {
  it('asks the agent, and ends the task with the agent’s confirmation', async () => {
    const { tasks, commands, received, liveTask } = await bed();
    const live = await liveTask('t2', TaskState.TASK_STATE_WORKING);
    const cancelled = commands.cancel('a', 't2');
    await eventually(() => (received.length ? true : undefined));
    expect(received[0]).toMatchObject({ type: 'cancel', task_id: 't2' });
    // The agent's `cancelled`, applied as the engine applies replies.
    await tasks.mutate(live, async () => {
      setStatus(live.task, TaskState.TASK_STATE_CANCELED, 'Stopped.');
      tasks.emit(live, await tasks.persist(live, { events: [statusEvent(live.task)] }));
    });
    expect((await cancelled).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify((await cancelled).status?.message)).toContain('Stopped.');
  });

  it('cancels locally, saying so, when the agent does not confirm in time', async () => {
    const { tasks, commands, store, liveTask } = await bed();
    const live = await liveTask('t3', TaskState.TASK_STATE_WORKING);
    const task = await commands.cancel('a', 't3');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify(task.status?.message)).toContain('the agent did not confirm in time');
    expect(tasks.holds(live)).toBe(false);
    expect((await store.get('a', 't3'))?.task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

/** A priced task held for an operator's approval, as the paid steps leave it. */
async function heldTask(liveTask: Awaited<ReturnType<typeof bed>>['liveTask'], id: string) {
  const live = await liveTask(id, TaskState.TASK_STATE_INPUT_REQUIRED);
  live.request = { ...live.request, lez_price: '5' };
  live.approvalTimer = setTimeout(() => undefined, 60_000);
}

/** Decisions recorded as on PostgreSQL: each takes a round trip, and the first one recorded wins. */
function roundTripDecisions() {
  const decisions = {
    recorded: undefined as 'approved' | 'rejected' | undefined,
    recordDecision: async (_taskId: string, approve: boolean) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (decisions.recorded) return false;
      decisions.recorded = approve ? 'approved' : 'rejected';
      return true;
    },
    approval: async () =>
      decisions.recorded && ({ status: decisions.recorded } as Awaited<ReturnType<PaidTasks['approval']>>),
  };
  return decisions;
}

describe('a task held for an operator’s approval', () => {
  it.each(['approve', 'cancel'] as const)(
    'is approved or cancelled, never both, when a decision and a cancel come at once (%s first)',
    async (first) => {
      const decisions = roundTripDecisions();
      const { commands, store, liveTask } = await bed({ paid: decisions });
      await heldTask(liveTask, 'held');
      // The second comes while the first's decision is being recorded.
      const approve = () => commands.decideApproval('held', true);
      const cancel = () => commands.cancel('a', 'held');
      const [firstCall, secondCall] = first === 'approve' ? [approve, cancel] : [cancel, approve];
      const one = firstCall();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const two = secondCall();
      const [approved, cancelled] = (
        first === 'approve' ? await Promise.all([one, two]) : await Promise.all([two, one])
      ) as [boolean, Task];
      const { recorded } = decisions;
      expect(recorded).toBe(first === 'approve' ? 'approved' : 'rejected');
      // The operator hears "approved" only for an approval that stands; the caller hears "nothing was charged" only
      // for a cancel that stands (before, both: the task was cancelled, then paid by the approval's step).
      expect(approved).toBe(recorded === 'approved');
      expect(JSON.stringify(cancelled.status?.message).includes('nothing was charged')).toBe(recorded === 'rejected');
      // What the caller was told is what the task is.
      expect((await store.get('a', 'held'))?.task.status?.state).toBe(cancelled.status?.state);
    },
  );
});

describe('a held task approved, then cancelled while its payment waits for the sequencer', () => {
  it('stops the payment that has sent nothing, and answers the task as that ends it', async () => {
    const decisions = roundTripDecisions();
    // A payment waiting for a sequencer that does not answer: only the task's cancel signal ends it, with nothing sent.
    const pay: PaidTasks['pay'] = (_task, _approved, cancelled) =>
      new Promise((resolve) => {
        const stopped = () =>
          resolve({
            kind: 'end',
            state: 'canceled',
            note: 'Cancelled before the payment was sent; nothing was charged.',
          });
        if (cancelled!.aborted) stopped();
        else cancelled!.addEventListener('abort', stopped);
      });
    const { commands, store, liveTask } = await bed({ paid: decisions, pay });
    await heldTask(liveTask, 'held');
    const approving = commands.decideApproval('held', true);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the approval is being recorded
    const cancelled = await commands.cancel('a', 'held');
    expect(await approving).toBe(true);
    expect(decisions.recorded).toBe('approved');
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify(cancelled.status?.message)).toContain('before the payment was sent');
    expect((await store.get('a', 'held'))?.task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe('a held task whose approval another replica decided, not yet carried out here', () => {
  it('is cancelled by carrying out that decision, not by overriding it', async () => {
    const decided = { status: 'rejected' } as Awaited<ReturnType<PaidTasks['approval']>>;
    const { commands, store, liveTask } = await bed({
      paid: { recordDecision: async () => false, approval: async () => decided },
    });
    await heldTask(liveTask, 'decided');
    const cancelled = await commands.cancel('a', 'decided');
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(JSON.stringify(cancelled.status?.message)).toContain('An operator rejected the payment');
    expect((await store.get('a', 'decided'))?.task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  });
});

describe('commands for tasks not running here', () => {
  it('are answered as the task stands: no approval waits, and a command whose task ended meanwhile is no error', async () => {
    const { commands, store } = await bed();
    expect(await commands.decideApproval('nothing', true)).toBe(false);
    await expect(commands.run('nothing', { kind: 'cancel', agentId: 'a' })).rejects.toThrow(/was not found/);
    await recordEnded(store, 'cancelled', 'TASK_STATE_CANCELED');
    await recordEnded(store, 'completed', 'TASK_STATE_COMPLETED');
    // Two cancels at once, one here and one from another replica: the one that comes second gets the cancelled task
    // (it was an internal error, "task … is not live"), whether it came as a command or as a call here.
    expect((await commands.run('cancelled', { kind: 'cancel', agentId: 'a' })).valueOf()).toMatchObject({
      status: { state: TaskState.TASK_STATE_CANCELED },
    });
    expect((await commands.cancel('a', 'cancelled')).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(commands.cancel('a', 'completed')).rejects.toThrow(/already completed and cannot be cancelled/);
    await expect(
      commands.run('completed', { kind: 'follow-up', agentId: 'a', message: message('x'), params: {} }),
    ).rejects.toThrow(/already completed; start a new task/);
  });
});

describe('commands run again (their first run, on a replica that died or lost the task, never answered)', () => {
  it('does not send again input the task already took, and resends it only if the agent still waits for it', async () => {
    const { commands, received, liveTask, tasks } = await bed();
    // Taken over as the first run left it: the input recorded, the task working, nothing known of what was sent.
    const live = await liveTask('again-1', TaskState.TASK_STATE_WORKING);
    await tasks.mutate(live, async () => {
      live.task.history = [{ ...message('more'), taskId: 'again-1', contextId: 'ctx' }];
      await tasks.persist(live);
    });
    const command = { kind: 'follow-up', agentId: 'a', message: message('more'), params: { text: 'more' } } as const;
    const task = await commands.run('again-1', command, true);
    expect((task as Task).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(received).toEqual([]);
    // Kept to resend should the agent say it still waits for input (agent-replies.ts).
    expect(live.sentInput).toBeDefined();

    // Input the first run never recorded goes to the agent, once.
    await liveTask('again-2', TaskState.TASK_STATE_INPUT_REQUIRED);
    await commands.run('again-2', command, true);
    await eventually(() => (received.length ? true : undefined));
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ type: 'task_input', task_id: 'again-2' });
  });

  it('answers true for an approval the first run recorded, which a first run would refuse', async () => {
    const recorded = { status: 'approved' } as Awaited<ReturnType<PaidTasks['approval']>>;
    const { commands, liveTask } = await bed({
      paid: { approval: async () => recorded, recordDecision: async () => false },
    });
    await liveTask('approved', TaskState.TASK_STATE_WORKING);
    expect(await commands.run('approved', { kind: 'approval', approve: true }, true)).toBe(true);
    expect(await commands.run('approved', { kind: 'approval', approve: true })).toBe(false);
    // The other decision was not the one recorded: refused, as a first run would be.
    expect(await commands.run('approved', { kind: 'approval', approve: false }, true)).toBe(false);
  });

  it('answers a cancel whose task ended unanswered from the ended task, on the asking replica', async () => {
    const { commands, store } = await bed({
      // Another replica ran the task; it ended with the command unanswered (replica-store.ts: `ended`).
      replicas: { runsElsewhere: async () => true, follow: async () => undefined, forward: async () => 'ended' },
    });
    await recordEnded(store, 'cancelled', 'TASK_STATE_CANCELED');
    await recordEnded(store, 'completed', 'TASK_STATE_COMPLETED');
    // The cancel took effect: the caller gets the cancelled task, not a refusal for the task's having ended.
    expect((await commands.cancel('a', 'cancelled')).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(commands.cancel('a', 'completed')).rejects.toThrow(/already completed and cannot be cancelled/);
  });

  it('a follow-up forwarded as its task ends elsewhere: the listener hears the end its follow starts after', async () => {
    // The same message sent to the owner at once was applied there, and the task completed, between this replica's
    // read of it (input-required) and its follow of the feed (which starts after the completion).
    const waiting = Task.fromJSON({
      id: 'raced',
      contextId: 'ctx',
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      history: [],
    });
    const completed = Task.fromJSON({
      ...(Task.toJSON(waiting) as object),
      status: { state: 'TASK_STATE_COMPLETED' },
      history: [Message.toJSON(message('more'))],
    });
    const { commands, store } = await bed({
      replicas: {
        runsElsewhere: async () => true,
        follow: async () => ({
          agentId: 'a',
          task: completed,
          link: { agentAddress: 'agent', lastSeq: 2, request: '' },
        }),
        forward: async () => ({ result: completed }),
      },
    });
    await store.insert({ agentId: 'a', task: waiting, link: { agentAddress: 'agent', lastSeq: 1, request: '' } });
    const heard: TaskChange[] = [];
    const task = await commands.followUp('a', 'raced', message('more'), { params, listener: (c) => heard.push(c) });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Before, the listener heard nothing, ever: a blocking SendMessage on this replica never answered.
    expect(heard.map((change) => change.task.status?.state)).toEqual([TaskState.TASK_STATE_COMPLETED]);
  });
});
