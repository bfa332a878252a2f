/**
 * Payments and approvals in SQLite, in the same file as the tasks (own connection). Writes are synchronous and
 * committed before they return: a payment is on disk before any transfer is submitted.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqlite, statementCache } from './file.ts';
import { migrationSql } from '../migration-sql.ts';
import type {
  ApprovalRecord,
  ApprovalStatus,
  PaymentChange,
  PaymentStore,
  TaskPaymentRecord,
} from '../payment-store.ts';
import { approvalFromRow, paymentFromRow, type ApprovalRow, type PaymentRow } from '../payment-rows.ts';
import * as sql from './payment-sql.ts';
import { Lane } from '../../lane.ts';

export class SqlitePaymentStore implements PaymentStore {
  private readonly db: DatabaseSync;
  private readonly prepare: (sql: string) => StatementSync;
  private readonly turns = new Lane();

  constructor(path: string) {
    // FULL: a payment record must survive a power loss too, not only a crash.
    this.db = openSqlite(path, 'FULL');
    this.prepare = statementCache(this.db);
    this.db.exec(migrationSql('0002_payments.sql'));
  }

  async create(record: TaskPaymentRecord): Promise<boolean> {
    return this.prepare(sql.INSERT_PAYMENT_SQL).run(...sql.paymentInsertValues(record)).changes === 1;
  }

  async get(taskId: string): Promise<TaskPaymentRecord | undefined> {
    const row = this.prepare(sql.SELECT_PAYMENT_SQL).get(taskId) as PaymentRow | undefined;
    return row && paymentFromRow(row);
  }

  async update(taskId: string, change: PaymentChange): Promise<void> {
    const { changes } = this.prepare(sql.UPDATE_PAYMENT_SQL).run(...sql.paymentUpdateValues(taskId, change));
    if (changes === 0) throw new Error(`no payment for task ${taskId}`);
  }

  async pending(): Promise<TaskPaymentRecord[]> {
    return (this.prepare(sql.PENDING_PAYMENTS_SQL).all() as unknown as PaymentRow[]).map(paymentFromRow);
  }

  async refundsMissing(): Promise<TaskPaymentRecord[]> {
    const rows = this.prepare(sql.REFUNDS_MISSING_SQL).all();
    return (rows as unknown as PaymentRow[]).map(paymentFromRow);
  }

  async spentSince(sinceIso: string): Promise<bigint> {
    return sql.sumAmounts(this.prepare(sql.SPENT_SINCE_SQL).all(sinceIso) as { amount: string; rail_state: string }[]);
  }

  async spentByCaller(caller: string): Promise<bigint> {
    return sql.sumAmounts(
      this.prepare(sql.SPENT_BY_CALLER_SQL).all(caller) as { amount: string; rail_state: string }[],
    );
  }

  async txHashUsed(txHash: string): Promise<boolean> {
    return this.prepare(sql.TX_HASH_USED_SQL).get(txHash, txHash) !== undefined;
  }

  async createApproval(record: ApprovalRecord): Promise<void> {
    this.prepare(sql.INSERT_APPROVAL_SQL).run(...sql.approvalInsertValues(record));
  }

  async getApproval(taskId: string): Promise<ApprovalRecord | undefined> {
    const row = this.prepare(sql.SELECT_APPROVAL_SQL).get(taskId) as ApprovalRow | undefined;
    return row && approvalFromRow(row);
  }

  async decideApproval(
    taskId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
  ): Promise<ApprovalRecord | undefined> {
    const result = this.prepare(sql.DECIDE_APPROVAL_SQL).run(status, new Date().toISOString(), taskId);
    return result.changes === 1 ? this.getApproval(taskId) : undefined;
  }

  async approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    const query = sql.approvalsQuery(status);
    return (this.prepare(query.sql).all(...query.args) as unknown as ApprovalRow[]).map(approvalFromRow);
  }

  /** A SQLite file has one gateway: this process's turns are enough. */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.run(work);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}
