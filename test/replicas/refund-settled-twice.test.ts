/**
 * One refund settled by two replicas at once: a paid task's old owner, stalled past its lease, and its new owner both
 * apply the agent's `cancelled` reply with its refund. The second to write found the refund's transaction used (by
 * the first, on this very payment) and recorded the refund missing over the first's `refunded`, for good: no re-check
 * could accept a transaction already recorded, and the spending gate counted the refunded amount as spent. Now the
 * outcome is written only while the payment is still `paid`, checked under the store's lock between replicas.
 */
import { expect, it } from 'vitest';
import { TaskPayments } from '../../src/bridge/task-payments.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import type { PaymentStore } from '../../src/store/payment-store.ts';
import { postgresAdminUrl } from '../support/postgres.ts';
import { twoReplicaStores } from '../support/replica-stores.ts';

const GATEWAY = 'gateway-account';
const AGENT = 'agent-account-on-the-memory-ledger';

const replicas = twoReplicaStores(10_000);

it.skipIf(postgresAdminUrl === undefined)(
  'records the refund once, whichever replica writes second',
  async () => {
    const { a, b } = replicas;
    const ledger = new MemoryLedger();
    ledger.fund(GATEWAY, 1_000n);
    ledger.fund(AGENT, 1_000n);
    const replica = (store: PaymentStore) =>
      new TaskPayments({
        payer: gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY })),
        store,
        limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 86_400_000 },
        network: 'memory',
      });
    const first = replica(a.payments);
    // The second replica read the payment before the first settled it, and goes on only once the first is done: the
    // interleaving that lost the refund, every time rather than in one round of five.
    let firstDone!: () => void;
    const settledByFirst = new Promise<void>((resolve) => (firstDone = resolve));
    let stalled = false;
    const lateStore = new Proxy(b.payments, {
      get(target, property, receiver) {
        if (property !== 'get') return Reflect.get(target, property, receiver) as unknown;
        return async (taskId: string) => {
          const record = await target.get(taskId);
          if (!stalled) {
            stalled = true;
            await settledByFirst;
          }
          return record;
        };
      },
    });
    const second = replica(lateStore);

    expect((await first.charge({ taskId: 't', agentId: 'shop', payee: AGENT, amount: 7n }, true)).kind).toBe('paid');
    const refund = await new MemoryRail({ ledger, payer: AGENT }).pay({
      paymentId: 'refund:t',
      to: GATEWAY,
      amount: 7n,
    });
    if (refund.kind !== 'paid') throw new Error('the agent could not pay back');
    const reference = { rail: 'memory', tx_hash: refund.receipt.txHash, from: AGENT, to: GATEWAY, amount: '7' };

    const late = second.settleRefund('t', reference);
    expect((await first.settleRefund('t', reference))?.status).toBe('refunded');
    firstDone();
    expect((await late)?.status).toBe('refunded');
    expect(await a.payments.get('t')).toMatchObject({ status: 'refunded', refundTxHash: refund.receipt.txHash });
    // Refunded: nothing of it counts as spent.
    expect(await a.payments.spentSince(new Date(0).toISOString())).toBe(0n);
  },
  30_000,
);
