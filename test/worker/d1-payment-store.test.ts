/**
 * The D1 payment store's update on real D1 (local-d1.ts): it changes exactly the columns it is given, keeps the rest,
 * refuses a task with no payment, and two writers of different columns at once (the wallet object recording the
 * signed transfer, the task's object its status) both keep what they wrote.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TaskPaymentRecord } from '../../src/store/payment-store.ts';
import { D1PaymentStore } from '../../src/store/d1/payment-store.ts';
import { openLocalD1 } from './local-d1.ts';

let d1: Awaited<ReturnType<typeof openLocalD1>>;
let store: D1PaymentStore;

beforeAll(async () => {
  d1 = await openLocalD1();
  store = new D1PaymentStore(d1.db);
}, 60_000);
afterAll(async () => {
  await d1?.dispose();
});

const payment = (taskId: string): TaskPaymentRecord => ({
  taskId,
  agentId: 'echo',
  amount: '5',
  payee: 'payee',
  rail: 'lez',
  railState: null,
  status: 'pending',
  caller: 'alice',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

it('changes only the columns named, and refuses a task with no payment', async () => {
  await store.create(payment('p1'));
  await store.update('p1', { railState: { nonce: '1', txHash: 'tx1' } });
  expect(await store.get('p1')).toMatchObject({ status: 'pending', railState: { nonce: '1', txHash: 'tx1' } });
  await store.update('p1', { status: 'paid', txHash: 'tx1' });
  await store.update('p1', { status: 'refunded', refundTxHash: 'rx1' });
  const record = await store.get('p1');
  expect(record).toEqual({
    ...payment('p1'),
    railState: { nonce: '1', txHash: 'tx1' },
    status: 'refunded',
    txHash: 'tx1',
    refundTxHash: 'rx1',
    updatedAt: record!.updatedAt,
  });
  expect(Date.parse(record!.updatedAt)).toBeGreaterThan(Date.parse(payment('p1').updatedAt));
  await expect(store.update('nope', { status: 'paid' })).rejects.toThrow('no payment for task nope');
  expect(await store.get('nope')).toBeUndefined();
});

it('keeps both of two updates of different columns made at once', async () => {
  await store.create(payment('p2'));
  await Promise.all([
    store.update('p2', { railState: { nonce: '2', txHash: 'tx2' } }),
    store.update('p2', { txHash: 'tx2' }),
  ]);
  expect(await store.get('p2')).toMatchObject({ railState: { nonce: '2', txHash: 'tx2' }, txHash: 'tx2' });
});

it('takes turns one at a time, in the order asked, within the isolate (none spins against its own)', async () => {
  let running = 0;
  const overlaps: number[] = [];
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      store.exclusively(async () => {
        overlaps.push(++running);
        order.push(i);
        await store.get('p1');
        running--;
      }),
    ),
  );
  expect(Math.max(...overlaps)).toBe(1);
  expect(order).toEqual(Array.from({ length: 10 }, (_, i) => i));
});
