/**
 * A receipt correction of an ended task, made by a replica that lost the task before it ended. Replica A took the
 * task over, stalled past its lease, and B took it from A and ended it with its payment in doubt. A's settlement then
 * finds the payment failed on chain and corrects the receipt: an ended task has no lease, and the correction comes
 * from the payment row all replicas share, so it is written, once, whoever makes it. Before, A's write carried its
 * stale lease epoch, was refused (LeaseLostError), and the receipt said `pending` beside a failed payment for good:
 * the payment row was settled, so no later settlement looked at it again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { Task } from '@a2a-js/sdk';
import { Settlement } from '../../src/bridge/engine/settlement.ts';
import { PaidTasks } from '../../src/bridge/paid-tasks.ts';
import { TaskPayments } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { postgresAdminUrl } from '../support/postgres.ts';
import type { Stores } from '../../src/store/open-stores.ts';
import { twoReplicaStores } from '../support/replica-stores.ts';

const LEASE_MS = 500;
const AGENT = 'agent-account-on-the-memory-ledger';

const replicas = twoReplicaStores(LEASE_MS);

it.skipIf(postgresAdminUrl === undefined)(
  'writes the corrected receipt of an ended task from a replica that lost the task, once',
  async () => {
    const { a, b } = replicas;
    const task = (state: string) =>
      Task.fromJSON({
        id: 'paid',
        contextId: 'c',
        status: { state, timestamp: new Date().toISOString() },
        history: [],
        metadata: { lez: { amount: '10', payee: AGENT, status: 'pending' } },
      });
    const link = { agentAddress: 'agent:shop', lastSeq: 0, request: JSON.stringify({ lez_price: '10' }) };
    const now = new Date().toISOString();
    // Recorded by a replica that died at once: its lease runs out, A takes the task, stalls, and B takes it from A.
    await b.tasks.insert({ agentId: 'shop', task: task('TASK_STATE_SUBMITTED'), link });
    await b.payments.create({
      taskId: 'paid',
      agentId: 'shop',
      amount: '10',
      payee: AGENT,
      rail: 'memory',
      railState: null,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    });
    await b.replicas!.releaseAll();
    expect(await a.replicas!.takeOver()).toEqual(['paid']);
    await sleep(LEASE_MS + 100);
    expect(await b.replicas!.takeOver()).toEqual(['paid']);
    await b.tasks.update('paid', task('TASK_STATE_CANCELED'), 1);

    const ledger = new MemoryLedger();
    const settle = (stores: Stores, log: string[]) =>
      new Settlement({
        paid: new PaidTasks(
          new TaskPayments({
            payer: gatewayPayer(new MemoryRail({ ledger, payer: 'gateway-account' })),
            store: stores.payments,
            limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 },
            network: 'memory',
          }),
          60_000,
        ),
        store: stores.tasks,
        isLive: () => false,
        leasedElsewhere: () => stores.replicas!.leasedElsewhere(),
        log: (message) => log.push(message),
      }).settle();
    const logged: string[] = [];
    await settle(a, logged);
    // Never signed: the payment failed, and the receipt says so.
    expect((await a.payments.get('paid'))?.status).toBe('failed');
    const stored = await b.tasks.get('shop', 'paid');
    expect(stored?.task.metadata?.lez).toMatchObject({ status: 'failed' });
    expect(logged.filter((line) => /LeaseLost|leased to another replica/.test(line))).toEqual([]);
    // B settling after it finds nothing left to correct, and writes nothing.
    const [before] = await b.sql!<{ task_json: string }[]>`SELECT task_json FROM tasks WHERE id = 'paid'`;
    await settle(b, []);
    const [after] = await b.sql!<{ task_json: string }[]>`SELECT task_json FROM tasks WHERE id = 'paid'`;
    expect(after).toEqual(before);
  },
  30_000,
);
