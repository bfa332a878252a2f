/**
 * Payments and approvals in SQLite, in the same file as the tasks (own connection). Writes are synchronous and
 * committed before they return: a payment is on disk before any transfer is submitted.
 */
import type { DatabaseSync } from 'node:sqlite';
import { openSqlite } from './sqlite-file.ts';
import type { ApprovalRecord, ApprovalStatus, TaskPaymentRecord, PaymentStore } from './payment-store.ts';
import { approvalFromRow, paymentFromRow, type ApprovalRow, type PaymentRow } from './payment-rows.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS payments (
  task_id     TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  amount      TEXT NOT NULL,
  payee       TEXT NOT NULL,
  rail        TEXT NOT NULL,
  rail_state  TEXT NOT NULL,
  status      TEXT NOT NULL,
  tx_hash     TEXT UNIQUE,
  refund_tx   TEXT UNIQUE,
  caller      TEXT,
  payer       TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS payments_by_time ON payments (created_at);
CREATE INDEX IF NOT EXISTS payments_by_caller ON payments (caller) WHERE caller IS NOT NULL;
CREATE TABLE IF NOT EXISTS approvals (
  task_id     TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  amount      TEXT NOT NULL,
  reason      TEXT NOT NULL,
  status      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  decided_at  TEXT
) STRICT;
`;

export class SqlitePaymentStore implements PaymentStore {
  private readonly db: DatabaseSync;

  constructor(path: string) {
    // FULL: a payment record must survive a power loss too, not only a crash.
    this.db = openSqlite(path, 'FULL');
    this.db.exec(SCHEMA);
  }

  async create(record: TaskPaymentRecord): Promise<boolean> {
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO payments (task_id, agent_id, amount, payee, rail, rail_state, status, tx_hash, refund_tx, caller, payer, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
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
      );
    return result.changes === 1;
  }

  async get(taskId: string): Promise<TaskPaymentRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM payments WHERE task_id = ?').get(taskId) as PaymentRow | undefined;
    return row && paymentFromRow(row);
  }

  async update(
    taskId: string,
    change: Partial<Pick<TaskPaymentRecord, 'status' | 'railState' | 'txHash' | 'refundTxHash'>>,
  ): Promise<void> {
    const current = await this.get(taskId);
    if (!current) throw new Error(`no payment for task ${taskId}`);
    const next = { ...current, ...change };
    this.db
      .prepare(
        'UPDATE payments SET status = ?, rail_state = ?, tx_hash = ?, refund_tx = ?, updated_at = ? WHERE task_id = ?',
      )
      .run(
        next.status,
        JSON.stringify(next.railState ?? null),
        next.txHash ?? null,
        next.refundTxHash ?? null,
        new Date().toISOString(),
        taskId,
      );
  }

  async pending(): Promise<TaskPaymentRecord[]> {
    return (this.db.prepare("SELECT * FROM payments WHERE status = 'pending'").all() as unknown as PaymentRow[]).map(
      paymentFromRow,
    );
  }

  async refundsMissing(): Promise<TaskPaymentRecord[]> {
    const rows = this.db.prepare("SELECT * FROM payments WHERE status = 'refund-missing'").all();
    return (rows as unknown as PaymentRow[]).map(paymentFromRow);
  }

  async spentSince(sinceIso: string): Promise<bigint> {
    return this.sumCommitted('created_at >= ?', sinceIso);
  }

  async spentByCaller(caller: string): Promise<bigint> {
    return this.sumCommitted('caller = ?', caller);
  }

  /** The sum of payments that count as spent (not refunded, not failed) among those the condition selects. */
  private sumCommitted(condition: string, value: string): bigint {
    const rows = this.db
      .prepare(`SELECT amount FROM payments WHERE ${condition} AND status IN ('pending', 'paid', 'refund-missing')`)
      .all(value) as { amount: string }[];
    return rows.reduce((sum, row) => sum + BigInt(row.amount), 0n);
  }

  async txHashUsed(txHash: string): Promise<boolean> {
    return (
      this.db.prepare('SELECT 1 FROM payments WHERE tx_hash = ? OR refund_tx = ?').get(txHash, txHash) !== undefined
    );
  }

  async createApproval(record: ApprovalRecord): Promise<void> {
    this.db
      .prepare(
        'INSERT OR IGNORE INTO approvals (task_id, agent_id, amount, reason, status, created_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        record.taskId,
        record.agentId,
        record.amount,
        record.reason,
        record.status,
        record.createdAt,
        record.decidedAt ?? null,
      );
  }

  async getApproval(taskId: string): Promise<ApprovalRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM approvals WHERE task_id = ?').get(taskId) as ApprovalRow | undefined;
    return row && approvalFromRow(row);
  }

  async decideApproval(
    taskId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
  ): Promise<ApprovalRecord | undefined> {
    // Only a pending approval can be decided, and only once.
    const result = this.db
      .prepare("UPDATE approvals SET status = ?, decided_at = ? WHERE task_id = ? AND status = 'pending'")
      .run(status, new Date().toISOString(), taskId);
    return result.changes === 1 ? this.getApproval(taskId) : undefined;
  }

  async approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    const rows = (status
      ? this.db.prepare('SELECT * FROM approvals WHERE status = ? ORDER BY created_at').all(status)
      : this.db.prepare('SELECT * FROM approvals ORDER BY created_at').all()) as unknown as ApprovalRow[];
    return rows.map(approvalFromRow);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}
