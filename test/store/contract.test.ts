/**
 * One contract for every store backend: the same tests run against SQLite and PostgreSQL (each run in a database of
 * its own, dropped afterwards). PostgreSQL runs are skipped only where no server answers, and never under CI.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { openStores, type Stores } from '../../src/store/open-stores.ts';
import { migrate, openPostgres } from '../../src/store/postgres/connection.ts';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import type { TaskPaymentRecord } from '../../src/store/payment-store.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const task = (id: string, state: string, timestamp: string, contextId = 'c') =>
  Task.fromJSON({
    id,
    contextId,
    status: { state, timestamp },
    history: [{ messageId: id, role: 'ROLE_USER', parts: [{ text: id }] }],
  });

const link = { agentAddress: 'a', lastSeq: 0, request: '{"r":1}' };

const payment = (taskId: string, fields: Partial<TaskPaymentRecord> = {}): TaskPaymentRecord => ({
  taskId,
  agentId: 'echo',
  amount: '340282366920938463463374607431768211455',
  payee: 'payee',
  rail: 'memory',
  railState: { nonce: 1 },
  status: 'pending',
  caller: 'alice',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});

const delivery = (eventId: string, configId: string, taskId = 't1') => ({
  eventId,
  taskId,
  configId,
  url: 'https://hook.example/a2a',
  headers: { 'content-type': 'application/a2a+json' },
  body: `{"event":"${eventId}"}`,
});

const backends = [
  { name: 'SQLite', available: true },
  { name: 'PostgreSQL', available: postgresAdminUrl !== undefined },
];

describe.each(backends)('the $name stores', ({ name, available }) => {
  let stores: Stores;
  // One database per backend run; each test starts from empty tables.
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    if (name === 'PostgreSQL' && available) database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  beforeEach(async () => {
    stores = await openStores(database?.url ?? ':memory:');
  });
  afterEach(async () => {
    const sql = stores.sql;
    if (sql)
      await sql`TRUNCATE tasks, task_leases, task_changes, payments, approvals, push_configs, push_outbox, agents`;
    await stores.close();
  });

  describe.skipIf(!available)('tasks', () => {
    /** A task just created, its request kept for a resend. */
    const insertSubmitted = (id: string) =>
      stores.tasks.insert({
        agentId: 'echo',
        task: task(id, 'TASK_STATE_SUBMITTED', '2026-01-01T00:00:01.000Z'),
        link,
      });

    async function seed() {
      const { tasks } = stores;
      await tasks.insert({
        agentId: 'echo',
        task: task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:01.000Z'),
        link,
      });
      await tasks.insert({
        agentId: 'echo',
        task: task('t2', 'TASK_STATE_WORKING', '2026-01-01T00:00:02.000Z', 'd'),
        link,
        owner: 'alice',
        retryKey: 'rk',
      });
      await tasks.insert({
        agentId: 'echo',
        task: task('t3', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:03.000Z'),
        link,
      });
      await tasks.insert({
        agentId: 'other',
        task: task('t4', 'TASK_STATE_WORKING', '2026-01-01T00:00:04.000Z'),
        link,
      });
    }

    it('lists one agent’s tasks newest first, with filters and stable paging', async () => {
      await seed();
      const { tasks } = stores;
      const first = await tasks.list('echo', { pageSize: 2 });
      expect(first.tasks.map((t) => t.id)).toEqual(['t3', 't2']);
      expect(first.totalSize).toBe(3);
      const next = await tasks.list('echo', { pageSize: 2, pageToken: first.nextPageToken });
      expect(next.tasks.map((t) => t.id)).toEqual(['t1']);
      expect(next.nextPageToken).toBe('');
      expect((await tasks.list('echo', { pageSize: 10, contextId: 'd' })).tasks.map((t) => t.id)).toEqual(['t2']);
      expect((await tasks.list('echo', { pageSize: 10, owner: 'alice' })).tasks.map((t) => t.id)).toEqual(['t2']);
      expect((await tasks.list('echo', { pageSize: 10, state: TaskState.TASK_STATE_COMPLETED })).totalSize).toBe(2);
      expect(
        (await tasks.list('echo', { pageSize: 10, statusAfter: '2026-01-01T00:00:01.500Z' })).tasks.map((t) => t.id),
      ).toEqual(['t3', 't2']);
      await expect(tasks.list('echo', { pageSize: 2, pageToken: 'bogus' })).rejects.toThrow(
        /not one this server issued/,
      );
    });

    it('scopes reads by agent, finds the unfinished tasks, and keeps updates', async () => {
      await seed();
      const { tasks } = stores;
      expect(await tasks.get('other', 't1')).toBeUndefined();
      expect((await tasks.get('echo', 't1'))?.task.history[0]?.messageId).toBe('t1');
      expect((await tasks.listActive()).map((s) => s.task.id).sort()).toEqual(['t2', 't4']);

      await tasks.updateRequest('t2', '{"r":2}');
      expect((await tasks.get('echo', 't2'))?.link).toEqual({ agentAddress: 'a', lastSeq: 0, request: '{"r":2}' });
      await tasks.update('t2', task('t2', 'TASK_STATE_INPUT_REQUIRED', '2026-01-01T00:00:05.000Z', 'd'), 2);
      expect((await tasks.get('echo', 't2'))?.link).toEqual({ agentAddress: 'a', lastSeq: 2, request: '{"r":2}' });
      await tasks.update('t2', task('t2', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:06.000Z', 'd'), 3);
      const done = await tasks.get('echo', 't2');
      expect(done?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(done?.link.lastSeq).toBe(3);
      expect((await tasks.listActive()).map((s) => s.task.id)).toEqual(['t4']);
      expect((await tasks.list('echo', { pageSize: 1 })).tasks.map((t) => t.id)).toEqual(['t2']);
    });
    it('creates one task per priced message however many inserts race, and frees the key of one long ended', async () => {
      const { tasks } = stores;
      const priced = (id: string, agentId = 'echo') => ({
        agentId,
        task: task(id, 'TASK_STATE_SUBMITTED', '2026-01-01T00:00:10.000Z'),
        link,
        retryKey: 'rk',
      });
      const since = '2026-01-01T00:00:00.000Z';
      const ids = ['p1', 'p2', 'p3', 'p4', 'p5'];
      // At once: on PostgreSQL each on a connection of its own.
      const outcomes = await Promise.all(ids.map((id) => tasks.insertPriced(priced(id), since)));
      const winner = ids[outcomes.findIndex((outcome) => outcome.kind === 'created')]!;
      expect(outcomes.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'retry')).toEqual(
        Array(4).fill({ kind: 'retry', taskId: winner }),
      );
      expect((await tasks.list('echo', { pageSize: 10 })).tasks.map((t) => t.id)).toEqual([winner]);
      // Another agent's key is its own.
      expect(await tasks.insertPriced(priced('q1', 'other'), since)).toEqual({ kind: 'created' });
      // Ended within the window: still the answer (a late retry must not pay again).
      await tasks.update(winner, task(winner, 'TASK_STATE_COMPLETED', '2026-01-01T00:00:20.000Z'), 1);
      expect(await tasks.insertPriced(priced('p6'), since)).toEqual({ kind: 'retry', taskId: winner });
      // Ended before the window: the key goes to a new task; the old one is kept.
      const later = '2026-01-01T00:00:30.000Z';
      expect(await tasks.insertPriced(priced('p7'), later)).toEqual({ kind: 'created' });
      expect(await tasks.insertPriced(priced('p8'), later)).toEqual({ kind: 'retry', taskId: 'p7' });
      expect((await tasks.get('echo', winner))?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('keeps a task’s writes in order: an update made before the insert settled is not lost', async () => {
      const { tasks } = stores;
      const inserted = tasks.insert({
        agentId: 'echo',
        task: task('t1', 'TASK_STATE_SUBMITTED', '2026-01-01T00:00:01.000Z'),
        link,
      });
      const updated = tasks.update('t1', task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:02.000Z'), 2);
      await Promise.all([inserted, updated]);
      const stored = await tasks.get('echo', 't1');
      expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // Finished: it will never be resent, so its request is not kept.
      expect(stored?.link).toEqual({ agentAddress: 'a', lastSeq: 2, request: '' });
      expect(await tasks.listActive()).toEqual([]);
    });

    it('drops the request of a task that ends in a later write, as of one inserted finished', async () => {
      const { tasks } = stores;
      await insertSubmitted('t1');
      await tasks.update('t1', task('t1', 'TASK_STATE_WORKING', '2026-01-01T00:00:02.000Z'), 1);
      // Still running: its request is kept for a resend.
      expect((await tasks.get('echo', 't1'))?.link).toEqual({ ...link, lastSeq: 1 });
      await tasks.update('t1', task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:03.000Z'), 2);
      expect((await tasks.get('echo', 't1'))?.link).toEqual({ agentAddress: 'a', lastSeq: 2, request: '' });
    });

    it('keeps a paid request written before the task’s insert settled, and none written after it ended', async () => {
      const { tasks } = stores;
      const paid = '{"r":1,"payment":"tx"}';
      const inserted = insertSubmitted('t1');
      await Promise.all([inserted, tasks.updateRequest('t1', paid)]);
      expect((await tasks.get('echo', 't1'))?.link.request).toBe(paid);
      await insertSubmitted('t2');
      await tasks.update('t2', task('t2', 'TASK_STATE_CANCELED', '2026-01-01T00:00:02.000Z'), 1);
      await tasks.updateRequest('t2', paid);
      expect((await tasks.get('echo', 't2'))?.link.request).toBe('');
    });

    it('keeps a reply seq past 2^31, up to the largest safe integer, as the binding allows', async () => {
      const { tasks } = stores;
      await insertSubmitted('t1');
      await tasks.update('t1', task('t1', 'TASK_STATE_WORKING', '2026-01-01T00:00:02.000Z'), 3_000_000_000);
      expect((await tasks.get('echo', 't1'))?.link.lastSeq).toBe(3_000_000_000);
      const last = Number.MAX_SAFE_INTEGER;
      await tasks.update('t1', task('t1', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:03.000Z'), last);
      const stored = await tasks.get('echo', 't1');
      expect(stored?.link.lastSeq).toBe(last);
      expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('corrects the receipt of an ended task once, over the receipt it corrects, and never a task still running', async () => {
      const { tasks } = stores;
      const withLez = (id: string, state: string, lez?: Record<string, string>) =>
        Task.fromJSON({
          ...(Task.toJSON(task(id, state, '2026-01-01T00:00:01.000Z')) as object),
          ...(lez && { metadata: { lez } }),
        });
      const pending = { amount: '5', status: 'pending' };
      await tasks.insert({ agentId: 'echo', task: withLez('ended', 'TASK_STATE_FAILED', pending), link });
      await tasks.insert({ agentId: 'echo', task: withLez('running', 'TASK_STATE_WORKING', pending), link });
      await tasks.insert({ agentId: 'echo', task: withLez('bare', 'TASK_STATE_COMPLETED'), link });
      const lezOf = async (id: string) => (await tasks.get('echo', id))?.task.metadata?.lez;

      const paid = withLez('ended', 'TASK_STATE_FAILED', { amount: '5', status: 'paid' });
      const failed = withLez('ended', 'TASK_STATE_FAILED', { amount: '5', status: 'failed' });
      // Two replicas settle the same payment at once, from the same receipt: one correction is written.
      expect(
        await Promise.all([tasks.correctEnded('ended', paid, 'pending'), tasks.correctEnded('ended', paid, 'pending')]),
      ).toEqual(expect.arrayContaining([true, false]));
      // A stale reader's correction, over a receipt already corrected, is refused and leaves the later one.
      expect(await tasks.correctEnded('ended', failed, 'pending')).toBe(false);
      expect(await lezOf('ended')).toEqual({ amount: '5', status: 'paid' });
      // A task that has not ended is never rewritten this way (its owner writes it, fenced).
      expect(
        await tasks.correctEnded(
          'running',
          withLez('running', 'TASK_STATE_WORKING', { amount: '5', status: 'paid' }),
          'pending',
        ),
      ).toBe(false);
      expect(await lezOf('running')).toEqual(pending);
      // A task without a receipt is corrected over none.
      expect(
        await tasks.correctEnded(
          'bare',
          withLez('bare', 'TASK_STATE_COMPLETED', { amount: '5', status: 'paid' }),
          'pending',
        ),
      ).toBe(false);
      expect(
        await tasks.correctEnded(
          'bare',
          withLez('bare', 'TASK_STATE_COMPLETED', { amount: '5', status: 'paid' }),
          null,
        ),
      ).toBe(true);
      expect(await lezOf('bare')).toEqual({ amount: '5', status: 'paid' });
    });

    it('corrects the receipt of a task whose messages hold U+0000 or a lone surrogate, and keeps their text', async () => {
      const { tasks } = stores;
      const ended = (status: string) =>
        Task.fromJSON({
          id: 'nul',
          contextId: 'c',
          status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:01.000Z' },
          // An agent's reply may hold either: JSON has escapes for both, which jsonb refuses.
          history: [{ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'before\u0000after \\u0000 \ud800' }] }],
          metadata: { lez: { amount: '5', status } },
        });
      await tasks.insert({ agentId: 'echo', task: ended('pending'), link });
      expect(await tasks.correctEnded('nul', ended('paid'), 'pending')).toBe(true);
      const stored = await tasks.get('echo', 'nul');
      expect(stored?.task.metadata?.lez).toEqual({ amount: '5', status: 'paid' });
      expect(stored?.task.history?.[0]?.parts[0]).toMatchObject({
        content: { value: 'before\u0000after \\u0000 \ud800' },
      });
      expect(await tasks.correctEnded('nul', ended('failed'), 'pending')).toBe(false);
    });
  });

  describe.skipIf(!available)('payments', () => {
    it('refuses a payment or an approval missing a required field, loudly, and keeps nothing of it', async () => {
      const { payments } = stores;
      // As a caller whose record lost a field on its way would hand it over: null where the column needs a value.
      await expect(payments.create({ ...payment('p1'), payee: null as unknown as string })).rejects.toThrow();
      expect(await payments.get('p1')).toBeUndefined();
      await expect(
        payments.createApproval({
          taskId: 'a1',
          agentId: 'echo',
          amount: '5',
          reason: null as unknown as string,
          status: 'pending',
          createdAt: '2026-01-01T00:00:00.000Z',
        }),
      ).rejects.toThrow();
      expect(await payments.getApproval('a1')).toBeUndefined();
    });

    it('records a payment once, updates only what changes, and sums what counts as spent', async () => {
      const { payments } = stores;
      expect(await payments.create(payment('p1'))).toBe(true);
      expect(await payments.create(payment('p1', { amount: '1' }))).toBe(false);
      expect(await payments.get('p1')).toEqual(payment('p1'));
      expect(await payments.get('nope')).toBeUndefined();

      await payments.update('p1', { status: 'paid', txHash: 'tx1', railState: { nonce: 1, hash: 'tx1' } });
      expect(await payments.get('p1')).toMatchObject({ status: 'paid', txHash: 'tx1', railState: { hash: 'tx1' } });
      await payments.update('p1', { status: 'refunded', refundTxHash: 'rx1' });
      expect(await payments.get('p1')).toMatchObject({ status: 'refunded', txHash: 'tx1', refundTxHash: 'rx1' });
      await expect(payments.update('nope', { status: 'paid' })).rejects.toThrow('no payment for task nope');
      // A field named as undefined is cleared; one not named stays.
      await payments.update('p1', { refundTxHash: undefined });
      const cleared = await payments.get('p1');
      expect(cleared).toMatchObject({ status: 'refunded', txHash: 'tx1' });
      expect(cleared!.refundTxHash).toBeUndefined();
      await payments.update('p1', { refundTxHash: 'rx1' });

      await payments.create(payment('p2', { amount: '5', createdAt: '2026-01-02T00:00:00.000Z' }));
      await payments.create(payment('p3', { amount: '7', status: 'paid', caller: 'bob' }));
      await payments.create(payment('p4', { amount: '9', status: 'failed' }));
      expect((await payments.pending()).map((record) => record.taskId)).toEqual(['p2']);
      expect(await payments.refundsMissing()).toEqual([]);
      await payments.create(payment('p5', { amount: '3', status: 'refund-missing', txHash: 'tx5' }));
      expect((await payments.refundsMissing()).map((record) => record.taskId)).toEqual(['p5']);
      await payments.update('p5', { status: 'refunded', refundTxHash: 'rx5' });
      expect(await payments.refundsMissing()).toEqual([]);
      expect(await payments.spentSince('2026-01-01T00:00:00.000Z')).toBe(12n);
      expect(await payments.spentSince('2026-01-01T12:00:00.000Z')).toBe(5n);
      expect(await payments.spentByCaller('alice')).toBe(5n);
      expect(await payments.spentByCaller('bob')).toBe(7n);
      expect(await payments.txHashUsed('tx1')).toBe(true);
      expect(await payments.txHashUsed('rx1')).toBe(true);
      expect(await payments.txHashUsed('tx9')).toBe(false);
    });

    it('counts in the spending sums the fee each committed payment may take (maxFee in its rail state), refunded or not', async () => {
      const { payments } = stores;
      await payments.create(payment('f1', { amount: '5', caller: 'carol', railState: { maxFee: '400', nonce: '0' } }));
      await payments.create(
        payment('f2', { amount: '6', caller: 'carol', status: 'paid', railState: { maxFee: '30' } }),
      );
      await payments.create(
        payment('f3', { amount: '7', caller: 'carol', status: 'failed', railState: { maxFee: '900' } }),
      );
      await payments.create(payment('f4', { amount: '8', caller: 'carol', railState: null }));
      // Refunded: the price came back, the fee did not.
      await payments.create(
        payment('f5', {
          amount: '9',
          caller: 'carol',
          status: 'refunded',
          txHash: 'tx-f5',
          railState: { maxFee: '50' },
        }),
      );
      // The rail writes a fee as a decimal string; any other value counts nothing, and fails no sum.
      await payments.create(payment('f6', { amount: '1', caller: 'carol', railState: { maxFee: 70 } }));
      await payments.create(payment('f7', { amount: '2', caller: 'carol', railState: { maxFee: 'a lot' } }));
      await payments.create(payment('f8', { amount: '3', caller: 'carol', railState: { maxFee: { fee: '9' } } }));
      expect(await payments.spentByCaller('carol')).toBe(5n + 400n + 6n + 30n + 8n + 50n + 1n + 2n + 3n);
      expect(await payments.spentSince('2026-01-01T00:00:00.000Z')).toBe(5n + 400n + 6n + 30n + 8n + 50n + 6n);
    });

    it('keeps both of two updates of different columns made at once (no read before the write)', async () => {
      const { payments } = stores;
      await payments.create(payment('both'));
      await Promise.all([
        payments.update('both', { railState: { nonce: 2, hash: 'tx2' } }),
        payments.update('both', { status: 'paid', txHash: 'tx2' }),
      ]);
      expect(await payments.get('both')).toMatchObject({
        status: 'paid',
        txHash: 'tx2',
        railState: { nonce: 2, hash: 'tx2' },
      });
    });

    it('takes turns one at a time, in order, however many ask at once (more than a pool has connections)', async () => {
      const { payments } = stores;
      let running = 0;
      const overlaps: number[] = [];
      const order: number[] = [];
      // Each turn reads and writes through the store, as the spending gate's do.
      const turns = Array.from({ length: 25 }, (_, i) =>
        payments.exclusively(async () => {
          overlaps.push(++running);
          order.push(i);
          await payments.create(payment(`turn-${i}`));
          const created = await payments.get(`turn-${i}`);
          running--;
          if (i === 3) throw new Error('a failed turn');
          return created?.taskId;
        }),
      );
      const results = await Promise.allSettled(turns);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
      expect(results[4]).toEqual({ status: 'fulfilled', value: 'turn-4' });
      expect(Math.max(...overlaps)).toBe(1);
      expect(order).toEqual(Array.from({ length: 25 }, (_, i) => i));
    });

    it('keeps approvals, decided once each', async () => {
      const { payments } = stores;
      const approval = {
        taskId: 'a1',
        agentId: 'echo',
        amount: '500',
        reason: 'above the limit',
        status: 'pending' as const,
        createdAt: '2026-01-01T00:00:00.000Z',
      };
      await payments.createApproval(approval);
      await payments.createApproval({ ...approval, taskId: 'a2', createdAt: '2026-01-01T00:00:01.000Z' });
      await payments.createApproval({ ...approval, reason: 'again' });
      expect(await payments.getApproval('a1')).toEqual(approval);
      const decided = await payments.decideApproval('a1', 'approved');
      expect(decided).toMatchObject({ taskId: 'a1', status: 'approved', decidedAt: expect.any(String) });
      expect(await payments.decideApproval('a1', 'rejected')).toBeUndefined();
      expect(await payments.decideApproval('none', 'rejected')).toBeUndefined();
      expect((await payments.approvals()).map((a) => a.taskId)).toEqual(['a1', 'a2']);
      expect((await payments.approvals('pending')).map((a) => a.taskId)).toEqual(['a2']);
    });
  });

  describe.skipIf(!available)('push', () => {
    it('keeps configs by task, replaced by id, deleted with their deliveries', async () => {
      const { push } = stores;
      const config = {
        taskId: 't1',
        id: 'c1',
        url: 'https://hook.example/1',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 's' },
        protocolVersion: '1.0' as const,
        owner: 'alice',
        createdAt: '2026-01-01T00:00:00.000Z',
      };
      await push.saveConfig(config);
      await push.saveConfig({ ...config, id: 'c2', createdAt: '2026-01-01T00:00:01.000Z' });
      await push.saveConfig({
        taskId: 't1',
        id: 'c1',
        url: 'https://hook.example/2',
        protocolVersion: '0.3',
        createdAt: config.createdAt,
      });
      expect(await push.getConfig('t1', 'c1')).toEqual({
        taskId: 't1',
        id: 'c1',
        url: 'https://hook.example/2',
        protocolVersion: '0.3',
        createdAt: config.createdAt,
      });
      expect(await push.getConfig('t1', 'c2')).toEqual({ ...config, id: 'c2', createdAt: '2026-01-01T00:00:01.000Z' });
      expect((await push.listConfigs('t1')).map((c) => c.id)).toEqual(['c1', 'c2']);
      expect(await push.listConfigs('t2')).toEqual([]);

      await push.enqueue([delivery('e1', 'c1'), delivery('e1', 'c2')], 1000);
      expect(await push.deleteConfig('t1', 'c1')).toBe(true);
      expect(await push.deleteConfig('t1', 'c1')).toBe(false);
      expect((await push.deliveries('t1')).map((d) => d.configId)).toEqual(['c2']);
    });

    it('hands out each config’s deliveries in order, one at a time, and keeps retries and failures', async () => {
      const { push } = stores;
      await push.enqueue([delivery('e1', 'c1'), delivery('e1', 'c2'), delivery('e2', 'c1')], 1000);
      expect(await push.due(999, 10)).toEqual([]);
      const heads = await push.due(1000, 10);
      expect(heads.map((d) => [d.eventId, d.configId])).toEqual([
        ['e1', 'c1'],
        ['e1', 'c2'],
      ]);
      expect(heads[0]).toMatchObject({
        url: 'https://hook.example/a2a',
        headers: { 'content-type': 'application/a2a+json' },
        body: '{"event":"e1"}',
        state: 'pending',
        attempts: 0,
      });
      const [c1, c2] = heads;
      await push.scheduleRetry(c1!.seq, 1, 5000, 'the receiver answered 503');
      await push.markDelivered(c2!.seq);
      // e2 waits behind e1's retry on the same config.
      expect(await push.due(2000, 10)).toEqual([]);
      expect(await push.nextAttemptAfter(2000)).toBe(5000);
      const [retried] = await push.due(5000, 10);
      expect(retried).toMatchObject({
        eventId: 'e1',
        configId: 'c1',
        attempts: 1,
        lastError: 'the receiver answered 503',
      });
      await push.markFailed(retried!.seq, 2, 'the receiver answered 410');
      const [second] = await push.due(5000, 10);
      expect(second).toMatchObject({ eventId: 'e2', configId: 'c1' });
      await push.markDelivered(second!.seq);
      expect(await push.deliveries('t1')).toMatchObject([
        { eventId: 'e1', configId: 'c1', state: 'failed', attempts: 2, lastError: 'the receiver answered 410' },
      ]);
      expect(await push.nextAttemptAfter(0)).toBeUndefined();
    });
  });

  describe.skipIf(!available)('push outbox', () => {
    it('never gives a deleted delivery’s seq to another: a late mark of the deleted one touches nothing', async () => {
      const { push } = stores;
      await push.saveConfig({
        taskId: 't1',
        id: 'c1',
        url: 'https://hook.example/1',
        protocolVersion: '1.0',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      await push.enqueue([delivery('e1', 'c1', 't1')], 1000);
      const [attempted] = await push.due(1000, 10);
      // While its attempt runs, the client deletes the webhook; then another task's event is enqueued.
      await push.deleteConfig('t1', 'c1');
      await push.enqueue([delivery('e2', 'c2', 't2')], 1000);
      const [other] = await push.deliveries('t2');
      expect(other!.seq).not.toBe(attempted!.seq);
      await push.markDelivered(attempted!.seq);
      await push.markFailed(attempted!.seq, 1, 'the receiver answered 500');
      expect(await push.deliveries('t2')).toMatchObject([{ eventId: 'e2', state: 'pending', attempts: 0 }]);
    });
  });

  describe.skipIf(!available)('directory', () => {
    it('saves agents, touches their last-seen time, and reads them all back', async () => {
      const { directory } = stores;
      const agent = {
        id: 'echo',
        cardJson: '{"id":"echo"}',
        updatedAt: '2026-01-01T00:00:00.000Z',
        lastSeenAt: '2026-01-01T00:00:00.000Z',
      };
      await directory.save(agent);
      await directory.save({ ...agent, id: 'alpha' });
      await directory.touch('echo', '2026-01-01T00:01:00.000Z');
      await directory.save({ ...agent, id: 'alpha', cardJson: '{"id":"alpha","v":2}' });
      expect(await directory.all()).toEqual([
        { ...agent, id: 'alpha', cardJson: '{"id":"alpha","v":2}' },
        { ...agent, lastSeenAt: '2026-01-01T00:01:00.000Z' },
      ]);
    });

    it('forgets an agent only if it was last heard before the time given', async () => {
      const { directory } = stores;
      const agent = { id: 'echo', cardJson: '{}', updatedAt: '2026-01-01T00:00:00.000Z' };
      await directory.save({ ...agent, lastSeenAt: '2026-01-01T00:00:00.000Z' });
      await directory.save({ ...agent, id: 'alpha', lastSeenAt: '2026-01-02T00:00:00.000Z' });
      await directory.forget('echo', '2026-01-01T00:00:00.000Z');
      await directory.forget('alpha', '2026-01-01T12:00:00.000Z');
      expect((await directory.all()).map((each) => each.id)).toEqual(['alpha', 'echo']);
      await directory.forget('echo', '2026-01-01T12:00:00.000Z');
      expect((await directory.all()).map((each) => each.id)).toEqual(['alpha']);
    });
  });
});

describe.skipIf(postgresAdminUrl === undefined)('the PostgreSQL schema and its sharing', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('is migrated once, in order, by replicas starting together, and records each version', async () => {
    const pools = [openPostgres(database.url), openPostgres(database.url), openPostgres(database.url)];
    try {
      const applied = await Promise.all(pools.map((sql) => migrate(sql)));
      expect(applied.flat()).toEqual(MIGRATIONS.map((migration) => migration.version));
      expect(await migrate(pools[0]!)).toEqual([]);
      const rows = await pools[0]!`SELECT version, name FROM logos_a2a_migrations ORDER BY version`;
      expect(rows.map((row) => ({ ...row }))).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    } finally {
      await Promise.all(pools.map((sql) => sql.end({ timeout: 1 })));
    }
  });

  it('hands each due delivery to one replica only, and again once its claim runs out', async () => {
    const replicas = await Promise.all([openStores(database.url), openStores(database.url)]);
    try {
      const [a, b] = replicas;
      await a!.push.enqueue(
        Array.from({ length: 40 }, (_, index) => delivery(`e${index}`, `c${index}`)),
        1000,
      );
      const claimed = await Promise.all([a!.push.due(1000, 40), b!.push.due(1000, 40), a!.push.due(1000, 40)]);
      const seqs = claimed.flat().map((row) => row.seq);
      expect(seqs).toHaveLength(40);
      expect(new Set(seqs).size).toBe(40);
      // Claims last a minute by default: a replica that died mid-attempt leaves its rows due again after that.
      expect(await b!.push.due(30_000, 40)).toEqual([]);
      expect(await b!.push.due(61_000, 40)).toHaveLength(40);
    } finally {
      for (const stores of replicas) await stores.close();
    }
  });
});
