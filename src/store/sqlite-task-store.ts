/**
 * The embedded store: one SQLite file through Node's built-in `node:sqlite` (no native addon to build). WAL mode and
 * `synchronous = NORMAL` survive a process crash; only a power loss can lose the last transactions.
 *
 * Writes are group-committed: every write made while the event loop is busy joins one transaction, committed on the
 * next turn, and each caller's promise settles only once its write is committed. Under load this turns hundreds of
 * tiny transactions per second into a few larger ones, without weakening "durable before anyone hears of it".
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Task, TaskState } from '@a2a-js/sdk';
import { InvalidPageTokenError, type StoredTask, type TaskPage, type TaskQuery, type TaskStore } from './task-store.ts';

const TERMINAL_STATES = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tasks (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  context_id  TEXT NOT NULL,
  state       INTEGER NOT NULL,
  status_ts   TEXT NOT NULL,
  task_json   TEXT NOT NULL,
  agent_addr  TEXT NOT NULL,
  last_seq    INTEGER NOT NULL,
  request     TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS tasks_by_agent_time ON tasks (agent_id, status_ts DESC, id DESC);
CREATE INDEX IF NOT EXISTS tasks_active ON tasks (state) WHERE state NOT IN (${TERMINAL_STATES.join(',')});
`;

interface TaskRow {
  id: string;
  agent_id: string;
  task_json: string;
  agent_addr: string;
  last_seq: number;
  request: string;
}

interface QueuedWrite {
  run: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SqliteTaskStore implements TaskStore {
  private readonly db: DatabaseSync;
  private queue: QueuedWrite[] = [];
  private readonly insertStmt: StatementSync;
  private readonly updateStmt: StatementSync;
  private readonly getStmt: StatementSync;
  private readonly activeStmt: StatementSync;

  /** `path` is a file, or ":memory:". */
  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.db.exec(SCHEMA);
    this.insertStmt = this.db.prepare(
      `INSERT INTO tasks (id, agent_id, context_id, state, status_ts, task_json, agent_addr, last_seq, request)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.updateStmt = this.db.prepare(
      'UPDATE tasks SET state = ?, status_ts = ?, task_json = ?, last_seq = ? WHERE id = ?',
    );
    this.getStmt = this.db.prepare('SELECT * FROM tasks WHERE id = ? AND agent_id = ?');
    this.activeStmt = this.db.prepare(`SELECT * FROM tasks WHERE state NOT IN (${TERMINAL_STATES.join(',')})`);
  }

  insert({ agentId, task, link }: StoredTask): Promise<void> {
    // Arguments are taken now: the caller may change the task before the batch commits.
    const args = [task.id, agentId, task.contextId, stateOf(task), timestampOf(task), serialize(task), link.agentAddress, link.lastSeq, link.request] as const;
    return this.write(() => this.insertStmt.run(...args));
  }

  update(taskId: string, task: Task, lastSeq: number): Promise<void> {
    const args = [stateOf(task), timestampOf(task), serialize(task), lastSeq, taskId] as const;
    return this.write(() => this.updateStmt.run(...args));
  }

  private write(run: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.queue.push({ run, resolve, reject }) === 1) setImmediate(() => this.commit());
    });
  }

  private commit(): void {
    const batch = this.queue;
    this.queue = [];
    if (!this.db.isOpen) {
      for (const write of batch) write.reject(new Error('the task store is closed'));
      return;
    }
    try {
      this.db.exec('BEGIN');
      for (const write of batch) write.run();
      this.db.exec('COMMIT');
    } catch {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      // One write failed: apply them one by one so that only the faulty one fails.
      for (const write of batch) {
        try {
          write.run();
          write.resolve();
        } catch (error) {
          write.reject(error);
        }
      }
      return;
    }
    for (const write of batch) write.resolve();
  }

  async get(agentId: string, taskId: string): Promise<StoredTask | undefined> {
    const row = this.getStmt.get(taskId, agentId) as TaskRow | undefined;
    return row && fromRow(row);
  }

  async list(agentId: string, query: TaskQuery): Promise<TaskPage> {
    const where = ['agent_id = ?'];
    const args: (string | number)[] = [agentId];
    if (query.contextId) (where.push('context_id = ?'), args.push(query.contextId));
    if (query.state !== undefined) (where.push('state = ?'), args.push(query.state));
    if (query.statusAfter) (where.push('status_ts > ?'), args.push(query.statusAfter));
    const filter = where.join(' AND ');
    const { total } = this.db.prepare(`SELECT count(*) AS total FROM tasks WHERE ${filter}`).get(...args) as { total: number };

    const pageWhere = [filter];
    const pageArgs = [...args];
    if (query.pageToken) {
      const [ts, id] = decodeCursor(query.pageToken);
      pageWhere.push('(status_ts, id) < (?, ?)');
      pageArgs.push(ts, id);
    }
    const rows = this.db
      .prepare(`SELECT * FROM tasks WHERE ${pageWhere.join(' AND ')} ORDER BY status_ts DESC, id DESC LIMIT ?`)
      .all(...pageArgs, query.pageSize + 1) as unknown as TaskRow[];
    const more = rows.length > query.pageSize;
    const page = rows.slice(0, query.pageSize).map((row) => fromRow(row).task);
    const last = page.at(-1);
    return {
      tasks: page,
      totalSize: total,
      nextPageToken: more && last ? encodeCursor(timestampOf(last), last.id) : '',
    };
  }

  async listActive(): Promise<StoredTask[]> {
    return (this.activeStmt.all() as unknown as TaskRow[]).map(fromRow);
  }

  async close(): Promise<void> {
    if (this.queue.length > 0) this.commit();
    if (this.db.isOpen) this.db.close();
  }
}

function stateOf(task: Task): number {
  return task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
}

function timestampOf(task: Task): string {
  return task.status?.timestamp ?? new Date(0).toISOString();
}

function serialize(task: Task): string {
  return JSON.stringify(Task.toJSON(task));
}

function fromRow(row: TaskRow): StoredTask {
  return {
    agentId: row.agent_id,
    task: Task.fromJSON(JSON.parse(row.task_json)),
    link: { agentAddress: row.agent_addr, lastSeq: row.last_seq, request: row.request },
  };
}

function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}

function decodeCursor(token: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')) {
      return value as [string, string];
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidPageTokenError(`pageToken "${token}" is not one this server issued`);
}
