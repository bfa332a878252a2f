/**
 * What the gateway keeps in a task's `metadata`, typed: `metadata.logos`, the Logos side of the task (binding
 * §7.10), and `metadata.lez`, the receipt of a priced task (docs/payments.md §7). The engine and the paid flow write them
 * through these types and read them back through these schemas; nothing reads them through casts.
 */
import type { Task } from '@a2a-js/sdk';
import { z } from 'zod';
import { LezAmount } from '../logos/card.ts';
import { TxHash } from '../lez/tx-hash.ts';

/** `metadata.logos` (binding §7.10). */
export const LogosMetadata = z.object({
  agentId: z.string().min(1),
  skill: z.string().min(1),
  /** The skill's price when the task was created ("0" when free). */
  lezPrice: LezAmount,
  /** The API key the task was sent with; absent on a gateway without API keys. */
  caller: z.string().min(1).optional(),
});
export type LogosMetadata = z.infer<typeof LogosMetadata>;

/**
 * `metadata.lez.status` (docs/payments.md §7): the status of the task's payment record (`PaymentStatus`,
 * store/payment-store.ts), or, before any payment is recorded, what the task waits for or why it ended unpaid.
 */
export const TASK_RECEIPT_STATUSES = [
  'pending',
  'paid',
  'failed',
  'refunded',
  'refund-missing',
  'no-refund',
  'awaiting-approval',
  'awaiting-payment',
  'rejected',
  'expired',
] as const;
export type TaskReceiptStatus = (typeof TASK_RECEIPT_STATUSES)[number];

/** `metadata.lez`, the receipt of a priced task (docs/payments.md §7). Members are present as far as they are known. */
export const TaskReceipt = z.object({
  rail: z.string().min(1).optional(),
  network: z.string().min(1).optional(),
  amount: LezAmount,
  /** The agent's account (`x-lez-identity.account_id`). */
  payee: z.string().min(1).optional(),
  /** The client's account, when the client paid the agent itself (client-pays extension): refunds go there. */
  payer: z.string().min(1).optional(),
  /** The API key the task was sent with, until the payment is recorded. */
  caller: z.string().min(1).optional(),
  status: z.enum(TASK_RECEIPT_STATUSES),
  txHash: TxHash.optional(),
  refundTxHash: TxHash.optional(),
  /** On a chain with fees: the most the payment's fee took beyond `amount` (the max_fee its transfer declared). */
  maxFee: LezAmount.optional(),
});
export type TaskReceipt = z.infer<typeof TaskReceipt>;

/** The task's `metadata.logos`; undefined when absent or not of that shape. */
export function logosMetadataOf(task: Task): LogosMetadata | undefined {
  const parsed = LogosMetadata.safeParse(task.metadata?.logos);
  return parsed.success ? parsed.data : undefined;
}

/** The task's receipt (`metadata.lez`); undefined for a free task, or one whose receipt is not of that shape. */
export function receiptOf(task: Task): TaskReceipt | undefined {
  const parsed = TaskReceipt.safeParse(task.metadata?.lez);
  return parsed.success ? parsed.data : undefined;
}

/** The metadata with `receipt` as its `metadata.lez`, the rest unchanged. */
export function withReceipt(metadata: Task['metadata'], receipt: TaskReceipt): NonNullable<Task['metadata']> {
  return { ...metadata, lez: receipt };
}
