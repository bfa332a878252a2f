/** AgentPaymentStore in a SQLite file of its own (the agent's, not the gateway's). */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AgentPaymentStore, HeldPayment, HeldPaymentStatus } from '../agent-payment-store.ts';
import { openSqlite, statementCache } from './file.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_payments (
  tx_hash TEXT PRIMARY KEY,
  payer TEXT NOT NULL,
  amount TEXT NOT NULL,
  status TEXT NOT NULL,
  refund_state TEXT,
  task_id TEXT
);`;

interface Row {
  tx_hash: string;
  payer: string;
  amount: string;
  status: HeldPaymentStatus;
  refund_state: string | null;
  task_id: string | null;
}

const fromRow = (row: Row): HeldPayment => ({
  txHash: row.tx_hash,
  payer: row.payer,
  amount: row.amount,
  status: row.status,
  taskId: row.task_id ?? undefined,
  refundState: row.refund_state === null ? undefined : (JSON.parse(row.refund_state) as unknown),
});

export class SqliteAgentPaymentStore implements AgentPaymentStore {
  private readonly db: DatabaseSync;
  private readonly prepare: (sql: string) => StatementSync;
  private closed = false;

  constructor(path: string) {
    // FULL: money the agent took, or owes, must survive a power loss too.
    this.db = openSqlite(path, 'FULL');
    this.prepare = statementCache(this.db);
    this.db.exec(SCHEMA);
    // A file from before the task was kept gains the column; its earlier payments have no task.
    const columns = this.db.prepare('PRAGMA table_info(agent_payments)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'task_id'))
      this.db.exec('ALTER TABLE agent_payments ADD COLUMN task_id TEXT');
  }

  reserve(txHash: string, payer: string, amount: string, taskId: string): boolean {
    const result = this.prepare(
      `INSERT OR IGNORE INTO agent_payments (tx_hash, payer, amount, status, task_id) VALUES (?, ?, ?, 'checking', ?)`,
    ).run(txHash.toLowerCase(), payer, amount, taskId);
    return result.changes === 1;
  }

  release(txHash: string): void {
    this.prepare(`DELETE FROM agent_payments WHERE tx_hash = ? AND status = 'checking'`).run(txHash.toLowerCase());
  }

  get(txHash: string): HeldPayment | undefined {
    const row = this.prepare('SELECT * FROM agent_payments WHERE tx_hash = ?').get(txHash.toLowerCase()) as
      Row | undefined;
    return row && fromRow(row);
  }

  setStatus(txHash: string, status: Exclude<HeldPaymentStatus, 'checking'>): void {
    this.prepare('UPDATE agent_payments SET status = ? WHERE tx_hash = ?').run(status, txHash.toLowerCase());
  }

  setRefundState(txHash: string, state: unknown): void {
    this.prepare('UPDATE agent_payments SET refund_state = ? WHERE tx_hash = ?').run(
      state === undefined ? null : JSON.stringify(state),
      txHash.toLowerCase(),
    );
  }

  withStatus(...statuses: HeldPaymentStatus[]): HeldPayment[] {
    const marks = statuses.map(() => '?').join(', ');
    const rows = this.prepare(`SELECT * FROM agent_payments WHERE status IN (${marks})`).all(...statuses);
    return (rows as unknown as Row[]).map(fromRow);
  }

  /** Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
