/**
 * Payments and approvals on Cloudflare D1 (the Workers deployment): the SQLite store's tables
 * (migrations/0002_payments.sql) and statements (sqlite/payment-sql.ts; the update is one statement of its own),
 * through the D1 binding. Each write is committed when its promise settles, so a payment is recorded before any
 * transfer is submitted.
 */
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import type {
  ApprovalRecord,
  ApprovalStatus,
  PaymentChange,
  PaymentStore,
  TaskPaymentRecord,
} from '../payment-store.ts';
import { approvalFromRow, paymentFromRow, type ApprovalRow, type PaymentRow } from '../payment-rows.ts';
import * as sql from '../sqlite/payment-sql.ts';
import { Lane } from '../../lane.ts';

/** A turn longer than this (an object evicted mid-turn) is over, and its lock free. */
const SPENDING_TURN_MS = 10_000;
/** Taken when free or expired, in one statement: D1 runs one statement at a time. */
const TAKE_SPENDING_LOCK_SQL = `INSERT INTO locks (name, holder, expires_at) VALUES ('spending', ?1, ?2)
  ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
  WHERE locks.expires_at < ?3`;
const RELEASE_SPENDING_LOCK_SQL = `DELETE FROM locks WHERE name = 'spending' AND holder = ?`;

export class D1PaymentStore implements PaymentStore {
  private readonly db: D1Database;
  private readonly onlyTask: string | undefined;
  /** This isolate's turns, one at a time before one is taken between isolates: none spins against its own. */
  private readonly turns = new Lane();

  /**
   * `onlyTask`: the store of one task's Durable Object, which settles that task's payment alone (`pending` finds at
   * most it); the spending gate still counts every payment.
   */
  constructor(db: D1Database, options: { onlyTask?: string } = {}) {
    this.db = db;
    this.onlyTask = options.onlyTask;
  }

  async create(record: TaskPaymentRecord): Promise<boolean> {
    const result = await this.db
      .prepare(sql.INSERT_PAYMENT_SQL)
      .bind(...sql.paymentInsertValues(record))
      .run();
    return result.meta.changes === 1;
  }

  async get(taskId: string): Promise<TaskPaymentRecord | undefined> {
    const row = await this.db.prepare(sql.SELECT_PAYMENT_SQL).bind(taskId).first<PaymentRow>();
    return row ? paymentFromRow(row) : undefined;
  }

  /** One statement, not a read and a write: a concurrent update of other columns (the wallet's) is never undone. */
  async update(taskId: string, change: PaymentChange): Promise<void> {
    const result = await this.db
      .prepare(sql.UPDATE_PAYMENT_SQL)
      .bind(...sql.paymentUpdateValues(taskId, change))
      .run();
    if (result.meta.changes === 0) throw new Error(`no payment for task ${taskId}`);
  }

  pending(): Promise<TaskPaymentRecord[]> {
    return this.select(sql.PENDING_PAYMENTS_SQL);
  }

  refundsMissing(): Promise<TaskPaymentRecord[]> {
    return this.select(sql.REFUNDS_MISSING_SQL);
  }

  /** The payments a query finds: in a task's own object, only that task's. */
  private async select(query: string): Promise<TaskPaymentRecord[]> {
    const statement = this.db.prepare(this.onlyTask ? `${query} AND task_id = ?` : query);
    const { results } = await (this.onlyTask ? statement.bind(this.onlyTask) : statement).all<PaymentRow>();
    return results.map(paymentFromRow);
  }

  async spentSince(sinceIso: string): Promise<bigint> {
    const { results } = await this.db
      .prepare(sql.SPENT_SINCE_SQL)
      .bind(sinceIso)
      .all<{ amount: string; rail_state: string }>();
    return sql.sumAmounts(results);
  }

  async spentByCaller(caller: string): Promise<bigint> {
    const { results } = await this.db
      .prepare(sql.SPENT_BY_CALLER_SQL)
      .bind(caller)
      .all<{ amount: string; rail_state: string }>();
    return sql.sumAmounts(results);
  }

  async txHashUsed(txHash: string): Promise<boolean> {
    return (await this.db.prepare(sql.TX_HASH_USED_SQL).bind(txHash, txHash).first()) !== null;
  }

  async createApproval(record: ApprovalRecord): Promise<void> {
    await this.db
      .prepare(sql.INSERT_APPROVAL_SQL)
      .bind(...sql.approvalInsertValues(record))
      .run();
  }

  async getApproval(taskId: string): Promise<ApprovalRecord | undefined> {
    const row = await this.db.prepare(sql.SELECT_APPROVAL_SQL).bind(taskId).first<ApprovalRow>();
    return row ? approvalFromRow(row) : undefined;
  }

  async decideApproval(
    taskId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
  ): Promise<ApprovalRecord | undefined> {
    const result = await this.db.prepare(sql.DECIDE_APPROVAL_SQL).bind(status, new Date().toISOString(), taskId).run();
    return result.meta.changes === 1 ? this.getApproval(taskId) : undefined;
  }

  async approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    const query = sql.approvalsQuery(status);
    const { results } = await this.db
      .prepare(query.sql)
      .bind(...query.args)
      .all<ApprovalRow>();
    return results.map(approvalFromRow);
  }

  /**
   * D1 holds no lock across statements, so the turn is a row (migrations/0003_spending_lock.sql): taken when free
   * or expired, waited for with backoff otherwise, and deleted by its holder.
   */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.run(() => this.underLockRow(work));
  }

  private async underLockRow<T>(work: () => Promise<T>): Promise<T> {
    const holder = crypto.randomUUID();
    const giveUpAt = Date.now() + 2 * SPENDING_TURN_MS;
    for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 100)) {
      const now = Date.now();
      const taken = await this.db
        .prepare(TAKE_SPENDING_LOCK_SQL)
        .bind(holder, now + SPENDING_TURN_MS, now)
        .run();
      if (taken.meta.changes === 1) break;
      if (now > giveUpAt) throw new Error('the spending gate stayed busy for 20 s; try again');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    try {
      return await work();
    } finally {
      await this.db.prepare(RELEASE_SPENDING_LOCK_SQL).bind(holder).run();
    }
  }

  async close(): Promise<void> {}
}
