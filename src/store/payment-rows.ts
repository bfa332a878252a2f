/** Payment and approval rows as both SQL stores keep them (same columns), and the records they hold. */
import type { ApprovalRecord, ApprovalStatus, TaskPaymentRecord } from './payment-store.ts';

/**
 * The `maxFee` in a rail state that the spending sums count: a decimal string of base units (a u128). Any other value
 * counts nothing, on every store. A pattern both JavaScript and PostgreSQL read.
 */
export const COUNTED_FEE_PATTERN = '^[0-9]{1,39}$';

export interface PaymentRow {
  task_id: string;
  agent_id: string;
  amount: string;
  payee: string;
  rail: string;
  rail_state: string;
  status: TaskPaymentRecord['status'];
  tx_hash: string | null;
  refund_tx: string | null;
  caller: string | null;
  payer: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApprovalRow {
  task_id: string;
  agent_id: string;
  amount: string;
  reason: string;
  status: ApprovalStatus;
  created_at: string;
  decided_at: string | null;
}

export function paymentFromRow(row: PaymentRow): TaskPaymentRecord {
  return {
    taskId: row.task_id,
    agentId: row.agent_id,
    amount: row.amount,
    payee: row.payee,
    rail: row.rail,
    railState: JSON.parse(row.rail_state) as unknown,
    status: row.status,
    ...(row.tx_hash ? { txHash: row.tx_hash } : {}),
    ...(row.refund_tx ? { refundTxHash: row.refund_tx } : {}),
    ...(row.caller ? { caller: row.caller } : {}),
    ...(row.payer ? { payer: row.payer } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function approvalFromRow(row: ApprovalRow): ApprovalRecord {
  return {
    taskId: row.task_id,
    agentId: row.agent_id,
    amount: row.amount,
    reason: row.reason,
    status: row.status,
    createdAt: row.created_at,
    ...(row.decided_at ? { decidedAt: row.decided_at } : {}),
  };
}
