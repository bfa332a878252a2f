/**
 * The payment store's statements in SQLite's dialect, run as they are by the SQLite store (node:sqlite) and the D1
 * store (Cloudflare D1 is SQLite): one text of each query, and the values bound to it in order. The tables are
 * migrations/0002_payments.sql.
 */
import type { ApprovalRecord, ApprovalStatus, PaymentChange, TaskPaymentRecord } from '../payment-store.ts';
import { COUNTED_FEE_PATTERN } from '../payment-rows.ts';

type Value = string | null;

// ON CONFLICT DO NOTHING, not INSERT OR IGNORE: only a record the task (or its transaction) already has is skipped, as
// on PostgreSQL; OR IGNORE also skipped a row that breaks NOT NULL, losing it silently.
export const INSERT_PAYMENT_SQL = `INSERT INTO payments (task_id, agent_id, amount, payee, rail, rail_state, status, tx_hash, refund_tx, caller, payer, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

export function paymentInsertValues(record: TaskPaymentRecord): Value[] {
  return [
    record.taskId,
    record.agentId,
    record.amount,
    record.payee,
    record.rail,
    JSON.stringify(record.railState ?? null),
    record.status,
    record.txHash ?? null,
    record.refundTxHash ?? null,
    record.caller ?? null,
    record.payer ?? null,
    record.createdAt,
    record.updatedAt,
  ];
}

export const SELECT_PAYMENT_SQL = 'SELECT * FROM payments WHERE task_id = ?';

/**
 * Each column set when the change names it (its flag is 1), kept otherwise: one statement and no read before it, so
 * two changes of one payment made at the same moment (of different columns) both stay.
 */
export const UPDATE_PAYMENT_SQL = `UPDATE payments SET
  status = CASE WHEN ?1 THEN ?2 ELSE status END,
  rail_state = CASE WHEN ?3 THEN ?4 ELSE rail_state END,
  tx_hash = CASE WHEN ?5 THEN ?6 ELSE tx_hash END,
  refund_tx = CASE WHEN ?7 THEN ?8 ELSE refund_tx END,
  updated_at = ?9
  WHERE task_id = ?10`;

/** The values of UPDATE_PAYMENT_SQL for `change` of `taskId`'s payment. */
export function paymentUpdateValues(taskId: string, change: PaymentChange): (Value | number)[] {
  const given = (key: keyof PaymentChange) => (key in change ? 1 : 0);
  return [
    given('status'),
    change.status ?? null,
    given('railState'),
    JSON.stringify(change.railState ?? null),
    given('txHash'),
    change.txHash ?? null,
    given('refundTxHash'),
    change.refundTxHash ?? null,
    new Date().toISOString(),
    taskId,
  ];
}

export const PENDING_PAYMENTS_SQL = "SELECT * FROM payments WHERE status = 'pending'";
export const REFUNDS_MISSING_SQL = "SELECT * FROM payments WHERE status = 'refund-missing'";

/**
 * What counts as spent since a time, or by an API key (one `?` each): every payment not failed, and of one refunded
 * only its fee (a refund gives back the price, never the fee).
 */
export const SPENT_SINCE_SQL = committedAmounts('created_at >= ?');
export const SPENT_BY_CALLER_SQL = committedAmounts('caller = ?');

function committedAmounts(condition: string): string {
  return `SELECT amount, rail_state, status FROM payments WHERE ${condition} AND status IN ('pending', 'paid', 'refund-missing', 'no-refund', 'refunded')`;
}

/**
 * What the rows committed: each price (unless refunded), and on a chain with fees the most its fee may be (`maxFee`
 * in its rail state).
 */
export function sumAmounts(rows: readonly { amount: string; rail_state?: string | null; status?: string }[]): bigint {
  return rows.reduce(
    (sum, row) => sum + (row.status === 'refunded' ? 0n : BigInt(row.amount)) + feeOfRailState(row.rail_state),
    0n,
  );
}

const COUNTED_FEE = new RegExp(COUNTED_FEE_PATTERN);

/** The `maxFee` a rail's record or receipt carries (decimal base units), 0 without one. */
export function feeOfRailState(railState: string | null | undefined): bigint {
  if (!railState) return 0n;
  try {
    const fee = (JSON.parse(railState) as { maxFee?: unknown } | null)?.maxFee;
    return typeof fee === 'string' && COUNTED_FEE.test(fee) ? BigInt(fee) : 0n;
  } catch {
    return 0n;
  }
}

export const TX_HASH_USED_SQL = 'SELECT 1 AS used FROM payments WHERE tx_hash = ? OR refund_tx = ?';

export const INSERT_APPROVAL_SQL =
  'INSERT INTO approvals (task_id, agent_id, amount, reason, status, created_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING';

export function approvalInsertValues(record: ApprovalRecord): Value[] {
  return [
    record.taskId,
    record.agentId,
    record.amount,
    record.reason,
    record.status,
    record.createdAt,
    record.decidedAt ?? null,
  ];
}

export const SELECT_APPROVAL_SQL = 'SELECT * FROM approvals WHERE task_id = ?';

/** Only a pending approval can be decided, and only once: values status, decided_at, task_id. */
export const DECIDE_APPROVAL_SQL =
  "UPDATE approvals SET status = ?, decided_at = ? WHERE task_id = ? AND status = 'pending'";

export function approvalsQuery(status?: ApprovalStatus): { sql: string; args: Value[] } {
  return status
    ? { sql: 'SELECT * FROM approvals WHERE status = ? ORDER BY created_at', args: [status] }
    : { sql: 'SELECT * FROM approvals ORDER BY created_at', args: [] };
}
