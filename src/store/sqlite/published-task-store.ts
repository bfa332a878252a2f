/** PublishedTaskStore in a SQLite file of its own (the publication's, not the gateway's). */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { PublishedTask, PublishedTaskStore } from '../published-task-store.ts';
import { openSqlite, statementCache } from './file.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS published_tasks (
  task_id TEXT PRIMARY KEY,
  context_id TEXT NOT NULL,
  skill TEXT NOT NULL,
  params TEXT NOT NULL,
  message TEXT,
  origin_task_id TEXT NOT NULL,
  origin_context_id TEXT NOT NULL
);`;

interface Row {
  task_id: string;
  context_id: string;
  skill: string;
  params: string;
  message: string | null;
  origin_task_id: string;
  origin_context_id: string;
}

export class SqlitePublishedTaskStore implements PublishedTaskStore {
  private readonly db: DatabaseSync;
  private readonly prepare: (sql: string) => StatementSync;

  constructor(path: string) {
    this.db = openSqlite(path);
    this.prepare = statementCache(this.db);
    this.db.exec(SCHEMA);
  }

  get(taskId: string): PublishedTask | undefined {
    const row = this.prepare('SELECT * FROM published_tasks WHERE task_id = ?').get(taskId) as Row | undefined;
    if (!row) return undefined;
    return {
      taskId: row.task_id,
      contextId: row.context_id,
      skill: row.skill,
      params: JSON.parse(row.params) as Record<string, unknown>,
      ...(row.message === null ? {} : { message: JSON.parse(row.message) as Record<string, unknown> }),
      originTaskId: row.origin_task_id,
      originContextId: row.origin_context_id,
    };
  }

  put(task: PublishedTask): void {
    this.prepare(
      `INSERT OR REPLACE INTO published_tasks
         (task_id, context_id, skill, params, message, origin_task_id, origin_context_id)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      task.taskId,
      task.contextId,
      task.skill,
      JSON.stringify(task.params),
      task.message === undefined ? null : JSON.stringify(task.message),
      task.originTaskId,
      task.originContextId,
    );
  }

  delete(taskId: string): void {
    this.prepare('DELETE FROM published_tasks WHERE task_id = ?').run(taskId);
  }

  close(): void {
    this.db.close();
  }
}
