/**
 * Payments and approvals in SQLite, in the same file as the tasks (own connection). Writes are synchronous and
 * committed before they return: a payment is on disk before any transfer is submitted.
 */
import type { DatabaseSync } from 'node:sqlite';
import { openSqlite } from './sqlite-file.ts';
import { migrationSql } from './migration-sql.ts';
import type { ApprovalRecord, ApprovalStatus, TaskPaymentRecord, PaymentStore } from './payment-store.ts';
import { approvalFromRow, paymentFromRow, type ApprovalRow, type PaymentRow } from './payment-rows.ts';
import {
  approvalInsertValues,
  approvalsQuery,
  DECIDE_APPROVAL_SQL,
  INSERT_APPROVAL_SQL,
  INSERT_PAYMENT_SQL,
  paymentInsertValues,
  paymentUpdateValues,
  PENDING_PAYMENTS_SQL,
  SELECT_APPROVAL_SQL,
  SELECT_PAYMENT_SQL,
  SPENT_BY_CALLER_SQL,
  SPENT_SINCE_SQL,
  sumAmounts,
  TX_HASH_USED_SQL,
  UPDATE_PAYMENT_SQL,
} from './sqlite-payment-sql.ts';

export class SqlitePaymentStore implements PaymentStore {
  private readonly db: DatabaseSync;

  constructor(path: string) {
    // FULL: a payment record must survive a power loss too, not only a crash.
    this.db = openSqlite(path, 'FULL');
    this.db.exec(migrationSql('0002_payments.sql'));
  }

  async create(record: TaskPaymentRecord): Promise<boolean> {
    return this.db.prepare(INSERT_PAYMENT_SQL).run(...paymentInsertValues(record)).changes === 1;
  }

  async get(taskId: string): Promise<TaskPaymentRecord | undefined> {
    const row = this.db.prepare(SELECT_PAYMENT_SQL).get(taskId) as PaymentRow | undefined;
    return row && paymentFromRow(row);
  }

  async update(
    taskId: string,
    change: Partial<Pick<TaskPaymentRecord, 'status' | 'railState' | 'txHash' | 'refundTxHash'>>,
  ): Promise<void> {
    const current = await this.get(taskId);
    if (!current) throw new Error(`no payment for task ${taskId}`);
    this.db.prepare(UPDATE_PAYMENT_SQL).run(...paymentUpdateValues(current, change));
  }

  async pending(): Promise<TaskPaymentRecord[]> {
    return (this.db.prepare(PENDING_PAYMENTS_SQL).all() as unknown as PaymentRow[]).map(paymentFromRow);
  }

  async spentSince(sinceIso: string): Promise<bigint> {
    return sumAmounts(this.db.prepare(SPENT_SINCE_SQL).all(sinceIso) as { amount: string }[]);
  }

  async spentByCaller(caller: string): Promise<bigint> {
    return sumAmounts(this.db.prepare(SPENT_BY_CALLER_SQL).all(caller) as { amount: string }[]);
  }

  async txHashUsed(txHash: string): Promise<boolean> {
    return this.db.prepare(TX_HASH_USED_SQL).get(txHash, txHash) !== undefined;
  }

  async createApproval(record: ApprovalRecord): Promise<void> {
    this.db.prepare(INSERT_APPROVAL_SQL).run(...approvalInsertValues(record));
  }

  async getApproval(taskId: string): Promise<ApprovalRecord | undefined> {
    const row = this.db.prepare(SELECT_APPROVAL_SQL).get(taskId) as ApprovalRow | undefined;
    return row && approvalFromRow(row);
  }

  async decideApproval(
    taskId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
  ): Promise<ApprovalRecord | undefined> {
    const result = this.db.prepare(DECIDE_APPROVAL_SQL).run(status, new Date().toISOString(), taskId);
    return result.changes === 1 ? this.getApproval(taskId) : undefined;
  }

  async approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    const { sql, args } = approvalsQuery(status);
    return (this.db.prepare(sql).all(...args) as unknown as ApprovalRow[]).map(approvalFromRow);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}
