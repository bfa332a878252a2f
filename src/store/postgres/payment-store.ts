/**
 * Payments and approvals in PostgreSQL. A payment's row is its lock: `create` inserts it once across every replica
 * (the primary key), and approvals are decided once (an update guarded by the pending status).
 */
import type { Sql } from './connection.ts';
import type {
  ApprovalRecord,
  ApprovalStatus,
  PaymentChange,
  PaymentStore,
  TaskPaymentRecord,
} from '../payment-store.ts';
import {
  approvalFromRow,
  COUNTED_FEE_PATTERN,
  paymentFromRow,
  type ApprovalRow,
  type PaymentRow,
} from '../payment-rows.ts';
import { Lane } from '../../lane.ts';

/**
 * On a chain with fees, a payment commits its price and up to its `maxFee` (in its rail state: the signed record, then
 * the receipt), which the spending sums count, as COUNTED_FEE_PATTERN says (a cast of any other value would fail every
 * sum, and with them the gate).
 */
const COMMITTED_FEE = `CASE WHEN jsonb_typeof(fee.max_fee) = 'string' AND fee.max_fee #>> '{}' ~ '${COUNTED_FEE_PATTERN}'
  THEN (fee.max_fee #>> '{}')::numeric ELSE 0 END`;
/** What a payment counts as spent: its price unless refunded (a refund gives back the price, never the fee), and its fee. */
const COMMITTED = `CASE WHEN status = 'refunded' THEN 0 ELSE amount END + ${COMMITTED_FEE}`;
/** The payments a spending sum reads, each with its `maxFee` (`fee.max_fee`), its rail state parsed once. */
const PAYMENTS_WITH_FEES = `payments CROSS JOIN LATERAL (SELECT rail_state::jsonb -> 'maxFee' AS max_fee) AS fee`;

/** The amounts come back as text, as SQLite keeps them. */
const PAYMENT_COLUMNS =
  'task_id, agent_id, amount::text AS amount, payee, rail, rail_state, status, tx_hash, refund_tx, caller, payer, created_at, updated_at';
const APPROVAL_COLUMNS = 'task_id, agent_id, amount::text AS amount, reason, status, created_at, decided_at';
/** Key of the advisory lock the spending gate's turns are taken under, across replicas. */
const SPENDING_LOCK = 0x7370656e;

export class PostgresPaymentStore implements PaymentStore {
  private readonly sql: Sql;
  /**
   * This process's turns, one at a time before any is taken between replicas: each waiter for the advisory lock
   * holds a connection of the pool, and as many waiters as the pool has connections left the holder's work none.
   */
  private readonly turns = new Lane();

  /** The pool belongs to the caller, who ends it after the stores are closed. */
  constructor(sql: Sql) {
    this.sql = sql;
  }

  async create(record: TaskPaymentRecord): Promise<boolean> {
    const result = await this.sql`
      INSERT INTO payments (task_id, agent_id, amount, payee, rail, rail_state, status, tx_hash, refund_tx, caller, payer, created_at, updated_at)
      VALUES (${record.taskId}, ${record.agentId}, ${record.amount}, ${record.payee}, ${record.rail},
              ${JSON.stringify(record.railState ?? null)}, ${record.status}, ${record.txHash ?? null},
              ${record.refundTxHash ?? null}, ${record.caller ?? null}, ${record.payer ?? null}, ${record.createdAt},
              ${record.updatedAt})
      ON CONFLICT DO NOTHING`;
    return result.count === 1;
  }

  /** Under a session advisory lock, on a connection reserved for the turn; the work itself uses the pool. */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.run(() => this.underAdvisoryLock(work));
  }

  private async underAdvisoryLock<T>(work: () => Promise<T>): Promise<T> {
    const connection = await this.sql.reserve();
    try {
      await connection`SELECT pg_advisory_lock(${SPENDING_LOCK})`;
      try {
        return await work();
      } finally {
        await connection`SELECT pg_advisory_unlock(${SPENDING_LOCK})`;
      }
    } finally {
      connection.release();
    }
  }

  async get(taskId: string): Promise<TaskPaymentRecord | undefined> {
    const [row] = await this.sql<PaymentRow[]>`
      SELECT ${this.sql.unsafe(PAYMENT_COLUMNS)} FROM payments WHERE task_id = ${taskId}`;
    return row && paymentFromRow(row);
  }

  async update(taskId: string, change: PaymentChange): Promise<void> {
    // Only the fields the change names are set, as in the SQLite stores: a concurrent writer of the others is not
    // overwritten with a stale read, and a field named as undefined is cleared.
    const named = (field: keyof PaymentChange) => field in change;
    const result = await this.sql`
      UPDATE payments SET
        status = CASE WHEN ${named('status')} THEN ${change.status ?? null} ELSE status END,
        rail_state = CASE WHEN ${named('railState')} THEN ${JSON.stringify(change.railState ?? null)} ELSE rail_state END,
        tx_hash = CASE WHEN ${named('txHash')} THEN ${change.txHash ?? null} ELSE tx_hash END,
        refund_tx = CASE WHEN ${named('refundTxHash')} THEN ${change.refundTxHash ?? null} ELSE refund_tx END,
        updated_at = ${new Date().toISOString()}
      WHERE task_id = ${taskId}`;
    if (result.count === 0) throw new Error(`no payment for task ${taskId}`);
  }

  async pending(): Promise<TaskPaymentRecord[]> {
    const rows = await this.sql<PaymentRow[]>`
      SELECT ${this.sql.unsafe(PAYMENT_COLUMNS)} FROM payments WHERE status = 'pending'`;
    return rows.map(paymentFromRow);
  }

  async refundsMissing(): Promise<TaskPaymentRecord[]> {
    const rows = await this.sql<PaymentRow[]>`
      SELECT ${this.sql.unsafe(PAYMENT_COLUMNS)} FROM payments WHERE status = 'refund-missing'`;
    return rows.map(paymentFromRow);
  }

  async spentSince(sinceIso: string): Promise<bigint> {
    const [row] = await this.sql<{ spent: string }[]>`
      SELECT COALESCE(sum(${this.sql.unsafe(COMMITTED)}), 0)::text AS spent FROM ${this.sql.unsafe(PAYMENTS_WITH_FEES)}
      WHERE created_at >= ${sinceIso} AND status IN ('pending', 'paid', 'refund-missing', 'no-refund', 'refunded')`;
    return BigInt(row!.spent);
  }

  async spentByCaller(caller: string): Promise<bigint> {
    const [row] = await this.sql<{ spent: string }[]>`
      SELECT COALESCE(sum(${this.sql.unsafe(COMMITTED)}), 0)::text AS spent FROM ${this.sql.unsafe(PAYMENTS_WITH_FEES)}
      WHERE caller = ${caller} AND status IN ('pending', 'paid', 'refund-missing', 'no-refund', 'refunded')`;
    return BigInt(row!.spent);
  }

  async txHashUsed(txHash: string): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM payments WHERE tx_hash = ${txHash} OR refund_tx = ${txHash} LIMIT 1`;
    return rows.length > 0;
  }

  async createApproval(record: ApprovalRecord): Promise<void> {
    await this.sql`
      INSERT INTO approvals (task_id, agent_id, amount, reason, status, created_at, decided_at)
      VALUES (${record.taskId}, ${record.agentId}, ${record.amount}, ${record.reason}, ${record.status},
              ${record.createdAt}, ${record.decidedAt ?? null})
      ON CONFLICT DO NOTHING`;
  }

  async getApproval(taskId: string): Promise<ApprovalRecord | undefined> {
    const [row] = await this.sql<ApprovalRow[]>`
      SELECT ${this.sql.unsafe(APPROVAL_COLUMNS)} FROM approvals WHERE task_id = ${taskId}`;
    return row && approvalFromRow(row);
  }

  async decideApproval(
    taskId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
  ): Promise<ApprovalRecord | undefined> {
    // Only a pending approval can be decided, and only once: by one replica, when several race.
    const [row] = await this.sql<ApprovalRow[]>`
      UPDATE approvals SET status = ${status}, decided_at = ${new Date().toISOString()}
      WHERE task_id = ${taskId} AND status = 'pending'
      RETURNING ${this.sql.unsafe(APPROVAL_COLUMNS)}`;
    return row && approvalFromRow(row);
  }

  async approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    const rows = await this.sql<ApprovalRow[]>`
      SELECT ${this.sql.unsafe(APPROVAL_COLUMNS)} FROM approvals
      ${status ? this.sql`WHERE status = ${status}` : this.sql``} ORDER BY created_at`;
    return rows.map(approvalFromRow);
  }

  async close(): Promise<void> {}
}
