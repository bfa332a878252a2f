/** The typed task metadata: `metadata.logos` (binding §7.10) and the receipt `metadata.lez` (docs/payments.md §7). */
import type { Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import {
  LogosMetadata,
  receiptOf,
  logosMetadataOf,
  TASK_RECEIPT_STATUSES,
  TaskReceipt,
  withReceipt,
} from '../../src/bridge/task-metadata.ts';

const task = (metadata: Record<string, unknown> | undefined): Task =>
  ({ id: 't', contextId: 'c', status: undefined, artifacts: [], history: [], metadata }) as Task;

const HASH = 'd848935604249eae042a3a2e3977f1a58b220c63ae410b9b8a3e4bf91af12c8c';

describe('task metadata', () => {
  it('reads the examples of binding §7.10 and payments §7', () => {
    const metadata = {
      logos: { agentId: 'translator', skill: 'translate', lezPrice: '2500' },
      lez: {
        rail: 'lez',
        network: 'http://127.0.0.1:3040',
        amount: '2500',
        payee: 't9dfnfQuJuqfVZYdPRGEK92H8upSW7zKwvbdUj5zHU5',
        status: 'refunded',
        txHash: HASH,
        refundTxHash: '3bfdf5f89200ba5489831ddf64455ce0259a2683dc3c373a83db75f47bb8c40c',
      },
    };
    expect(logosMetadataOf(task(metadata))).toEqual(metadata.logos);
    expect(receiptOf(task(metadata))).toEqual(metadata.lez);
  });

  it('takes every status the gateway writes, the waits before payment included', () => {
    expect([...TASK_RECEIPT_STATUSES].sort()).toEqual(
      [
        'awaiting-approval',
        'awaiting-payment',
        'expired',
        'failed',
        'paid',
        'pending',
        'refund-missing',
        'no-refund',
        'refunded',
        'rejected',
      ].sort(),
    );
    for (const status of TASK_RECEIPT_STATUSES)
      expect(TaskReceipt.safeParse({ amount: '5', status }).success).toBe(true);
    expect(TaskReceipt.safeParse({ amount: '5', status: 'included' }).success).toBe(false);
  });

  it('keeps the caller (API key) and the paying client', () => {
    const lez = { amount: '10', payee: 'shop', caller: 'alice', payer: 'client-account', status: 'pending' };
    expect(receiptOf(task({ lez }))).toEqual(lez);
    expect(LogosMetadata.parse({ agentId: 'a', skill: 's', lezPrice: '0', caller: 'alice' }).caller).toBe('alice');
  });

  it('reads absent or malformed metadata as absent', () => {
    expect(receiptOf(task(undefined))).toBeUndefined();
    expect(receiptOf(task({ lez: { amount: 'ten', status: 'paid' } }))).toBeUndefined();
    expect(receiptOf(task({ lez: { amount: '10', status: 'paid', txHash: 'not-a-hash' } }))).toBeUndefined();
    expect(logosMetadataOf(task({ logos: { agentId: 'a' } }))).toBeUndefined();
  });

  it('replaces the receipt and keeps the rest', () => {
    const before = { logos: { agentId: 'a', skill: 's', lezPrice: '5' }, error: { code: 'x', message: 'y' } };
    expect(withReceipt(before, { amount: '5', status: 'expired' })).toEqual({
      ...before,
      lez: { amount: '5', status: 'expired' },
    });
  });
});
