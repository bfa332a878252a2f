/**
 * Priced tasks applied, on their own: over real payments (a memory ledger and rail, SQLite stores) and the
 * in-process network, the paid flow's decisions become the task's status, receipt, timers and its forwarded
 * request; and ended tasks' money is settled with the chain (settlement.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { PaidSteps, unforwarded } from '../../src/bridge/engine/paid-steps.ts';
import { Settlement } from '../../src/bridge/engine/settlement.ts';
import { LiveTask } from '../../src/bridge/live-task.ts';
import { PaidTasks } from '../../src/bridge/paid-tasks.ts';
import { receiptOf } from '../../src/bridge/task-metadata.ts';
import { TaskPayments } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { SqlitePaymentStore } from '../../src/store/sqlite/payment-store.ts';
import { closeEngineParts, closeWithEngineParts, engineParts, taskRequest } from '../support/engine-parts.ts';
import { eventually } from '../support/eventually.ts';

const GATEWAY = 'gateway-account-on-the-memory-ledger';
const AGENT = 'agent-account-on-the-memory-ledger';

afterEach(closeEngineParts);

async function bed(options: { approvalTimeoutMs?: number } = {}) {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY, 1_000n);
  ledger.initialise(AGENT);
  const paymentStore = new SqlitePaymentStore(':memory:');
  closeWithEngineParts(paymentStore);
  const payments = new TaskPayments({
    payer: gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY })),
    store: paymentStore,
    limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 },
    network: 'memory',
  });
  const approvalTimeoutMs = options.approvalTimeoutMs ?? 3_600_000;
  const paid = new PaidTasks(payments, approvalTimeoutMs);
  const finished: LiveTask[] = [];
  const { store, received, tasks, sender, finish, resends } = await engineParts({
    finish: async (live, tasks) => {
      await tasks.persist(live);
      tasks.delete(live);
      finished.push(live);
    },
  });
  const logs: string[] = [];
  const steps = new PaidSteps({
    paid,
    tasks,
    store,
    sender,
    resends,
    approvalTimeoutMs,
    finish,
    log: (m) => logs.push(m),
  });
  /** A priced task as createTask records it: its receipt pending, its request not yet paid. */
  const pricedTask = async (id: string, price: string) => {
    const task = Task.fromJSON({
      id,
      contextId: 'ctx',
      status: { state: 'TASK_STATE_SUBMITTED' },
      history: [],
      metadata: {
        logos: { agentId: 'shop', skill: 'buy', lezPrice: price },
        lez: { amount: price, payee: AGENT, status: 'pending' },
      },
    });
    const request = taskRequest({ id: `request-${id}`, task_id: id, skill: 'buy', lez_price: price });
    await store.insert({
      agentId: 'shop',
      task,
      link: { agentAddress: 'agent', lastSeq: 0, request: JSON.stringify(request) },
    });
    const live = new LiveTask('shop', task, 'agent', 0, request);
    tasks.add(live);
    return live;
  };
  const onChain = (live: LiveTask, run: () => Promise<void>) => tasks.mutate(live, run);
  return { ledger, store, paymentStore, paid, tasks, steps, received, finished, logs, pricedTask, onChain };
}

describe('paid steps', () => {
  it('pays within the limits, then forwards the request naming the payment, saved with the paid receipt', async () => {
    const { ledger, store, steps, received, pricedTask, onChain } = await bed();
    const live = await pricedTask('t1', '10');
    expect(unforwarded(live)).toBe(true);
    await onChain(live, () => steps.payAndForward(live, false));
    expect(unforwarded(live)).toBe(false);
    expect(ledger.balanceOf(AGENT)).toBe(10n);
    expect(receiptOf(live.task)).toMatchObject({ amount: '10', payee: AGENT, status: 'paid' });
    await eventually(() => (received.length ? true : undefined));
    expect(received[0]).toMatchObject({ type: 'task_request', task_id: 't1', payment: live.request.payment });
    const stored = await store.get('shop', 't1');
    expect(JSON.parse(stored!.link.request)).toMatchObject({ payment: live.request.payment });
    expect(receiptOf(stored!.task)?.status).toBe('paid');
  });

  it('holds a task above the limits for an operator, and pays and forwards it once approved', async () => {
    const { ledger, paid, steps, received, pricedTask, onChain } = await bed();
    const live = await pricedTask('t2', '500');
    await onChain(live, () => steps.payAndForward(live, false));
    expect(live.task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(live.approvalTimer).toBeDefined();
    expect(ledger.balanceOf(AGENT)).toBe(0n);
    expect(received).toEqual([]);
    expect(await paid.recordDecision('t2', true)).toBe(true);
    await onChain(live, () => steps.decided(live, true));
    expect(live.approvalTimer).toBeUndefined();
    expect(ledger.balanceOf(AGENT)).toBe(500n);
    await eventually(() => (received.length ? true : undefined));
    expect(received[0]).toMatchObject({ type: 'task_request', task_id: 't2' });
  });

  it('ends a held task rejected when the operator says no, charging nothing', async () => {
    const { ledger, paid, steps, finished, received, pricedTask, onChain } = await bed();
    const live = await pricedTask('t3', '500');
    await onChain(live, () => steps.payAndForward(live, false));
    await paid.recordDecision('t3', false);
    await onChain(live, () => steps.decided(live, false));
    expect(finished).toEqual([live]);
    expect(live.task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(receiptOf(live.task)?.status).toBe('rejected');
    expect(ledger.balanceOf(AGENT)).toBe(0n);
    expect(received).toEqual([]);
  });

  it('fails a held task nobody approved in time', async () => {
    const { steps, finished, pricedTask, onChain } = await bed({ approvalTimeoutMs: 50 });
    const live = await pricedTask('t4', '500');
    await onChain(live, () => steps.payAndForward(live, false));
    await eventually(() => (finished.length ? true : undefined));
    expect(live.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(receiptOf(live.task)?.status).toBe('expired');
  });

  it('fails a task whose payment threw behind its caller, unless it was forwarded meanwhile', async () => {
    const { steps, finished, logs, pricedTask, onChain } = await bed();
    const live = await pricedTask('t5', '10');
    steps.failedBehind(live, new Error('sequencer gone'));
    await eventually(() => (finished.length ? true : undefined));
    expect(live.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(logs).toContain('paying for task t5: Error: sequencer gone');
    const forwarded = await pricedTask('t6', '10');
    await onChain(forwarded, () => steps.payAndForward(forwarded, false));
    steps.failedBehind(forwarded, new Error('late'));
    await onChain(forwarded, async () => undefined);
    expect(finished).toEqual([live]);
    expect(forwarded.task.status?.state).not.toBe(TaskState.TASK_STATE_FAILED);
  });
});

describe('settlement', () => {
  it('fails the unsigned payment of an ended task, and leaves that of a live one', async () => {
    const { store, paymentStore, paid, tasks, pricedTask } = await bed();
    const now = new Date().toISOString();
    const live = await pricedTask('live', '10');
    const ended = await pricedTask('ended', '10');
    ended.task.status = { state: TaskState.TASK_STATE_CANCELED, timestamp: now, message: undefined };
    await tasks.persist(ended);
    tasks.delete(ended);
    for (const taskId of ['live', 'ended'])
      await paymentStore.create({
        taskId,
        agentId: 'shop',
        amount: '10',
        payee: AGENT,
        rail: 'memory',
        railState: null,
        status: 'pending',
        createdAt: now,
        updatedAt: now,
      });
    const settlement = new Settlement({ paid, store, isLive: (id) => tasks.has(id), log: () => undefined });
    await settlement.settle();
    expect((await paymentStore.get('ended'))?.status).toBe('failed');
    expect(receiptOf((await store.get('shop', 'ended'))!.task)?.status).toBe('failed');
    expect((await paymentStore.get('live'))?.status).toBe('pending');
    expect(tasks.holds(live)).toBe(true);
  });

  it('logs what it could not settle and carries on', async () => {
    const { paid, store } = await bed();
    const logs: string[] = [];
    const settlement = new Settlement({
      paid,
      store,
      isLive: () => false,
      leasedElsewhere: () => Promise.reject(new Error('database gone')),
      log: (m) => logs.push(m),
    });
    await settlement.settle();
    expect(logs).toEqual(['settling the money of ended tasks: Error: database gone']);
  });
});
