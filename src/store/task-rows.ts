/**
 * How a task is kept in a row, the same in every SQL store (SQLite, D1): its state and status time as columns to
 * query by, the SDK's JSON as the body, and list pages resumed from an opaque (status time, id) cursor.
 */
import { Task, TaskState } from '@a2a-js/sdk';
import {
  InvalidPageTokenError,
  type PricedInsert,
  type StoredTask,
  type TaskPage,
  type TaskQuery,
} from './task-store.ts';

export const TERMINAL_STATES = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

/** The columns a task is read back from. */
export interface TaskRow {
  id: string;
  agent_id: string;
  task_json: string;
  agent_addr: string;
  last_seq: number;
  request: string;
}

const TASK_COLUMNS =
  'id, agent_id, context_id, state, status_ts, task_json, agent_addr, last_seq, request, retry_key, owner';
const TASK_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** The insert of a new task, and its values in the statement's order. */
export const INSERT_TASK_SQL = `INSERT INTO tasks (${TASK_COLUMNS})
  VALUES ${TASK_VALUES}`;

/** The insert of `rows` new tasks in one statement: their values (insertValues) one task after the other. */
export function insertTasksSql(rows: number): string {
  return `INSERT INTO tasks (${TASK_COLUMNS}) VALUES ${Array.from({ length: rows }, () => TASK_VALUES).join(', ')}`;
}

/**
 * A task's row as inserted, its columns in INSERT_TASK_SQL's order. A task that ended will never be resent: its
 * request is not kept (a quick task is often inserted finished: half the row).
 */
export function taskRowOf({ agentId, task, link, retryKey, owner }: StoredTask) {
  const state = stateOf(task);
  return {
    id: task.id,
    agent_id: agentId,
    context_id: task.contextId,
    state,
    status_ts: timestampOf(task),
    task_json: serialize(task),
    agent_addr: link.agentAddress,
    last_seq: link.lastSeq,
    request: TERMINAL_STATES.includes(state) ? '' : link.request,
    retry_key: retryKey ?? null,
    owner: owner ?? null,
  };
}

const UPDATE_TASK_SQL = 'UPDATE tasks SET state = ?, status_ts = ?, task_json = ?, last_seq = ? WHERE id = ?';
const UPDATE_ENDED_TASK_SQL =
  "UPDATE tasks SET state = ?, status_ts = ?, task_json = ?, last_seq = ?, request = '' WHERE id = ?";

/**
 * The request a paid task is resent with, once it names the payment; its values: request, id. A task that ended keeps
 * none (it will never be resent), whichever write came first.
 */
export const UPDATE_REQUEST_SQL = `UPDATE tasks SET request = ? WHERE id = ? AND state NOT IN (${TERMINAL_STATES.join(', ')})`;

/**
 * The update of a task to `state`; its values: state, status time, task JSON, last seq, id. A task that ended will
 * never be resent: its request is dropped, as taskRowOf leaves it out of a task inserted finished.
 */
export function updateTaskSql(state: number): string {
  return TERMINAL_STATES.includes(state) ? UPDATE_ENDED_TASK_SQL : UPDATE_TASK_SQL;
}

export function insertValues(record: StoredTask): (string | number | null)[] {
  return Object.values(taskRowOf(record));
}

export function stateOf(task: Task): number {
  return task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
}

export function timestampOf(task: Task): string {
  return task.status?.timestamp ?? new Date(0).toISOString();
}

export function serialize(task: Task): string {
  return JSON.stringify(Task.toJSON(task));
}

export function fromRow(row: TaskRow): StoredTask {
  return {
    agentId: row.agent_id,
    task: Task.fromJSON(JSON.parse(row.task_json)),
    link: { agentAddress: row.agent_addr, lastSeq: row.last_seq, request: row.request },
  };
}

export function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}

export function decodeCursor(token: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    // Its parts go into the query as text, which may not hold U+0000 (PostgreSQL refuses it): not one of ours.
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((part) => typeof part === 'string' && !part.includes('\0'))
    ) {
      return value as [string, string];
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidPageTokenError(`pageToken "${token}" is not one this server issued`);
}

/** The statements of one list page: the count of every match, and the page (one row more, to tell if more follow). */
export interface TaskListSql {
  count: { sql: string; args: (string | number)[] };
  page: { sql: string; args: (string | number)[] };
}

export function taskListSql(agentId: string, query: TaskQuery): TaskListSql {
  const where = ['agent_id = ?'];
  const args: (string | number)[] = [agentId];
  const filterBy = (clause: string, value: string | number) => {
    where.push(clause);
    args.push(value);
  };
  if (query.owner !== undefined) filterBy('owner = ?', query.owner);
  if (query.contextId) filterBy('context_id = ?', query.contextId);
  if (query.state !== undefined) filterBy('state = ?', query.state);
  if (query.statusAfter) filterBy('status_ts > ?', query.statusAfter);
  const filter = where.join(' AND ');
  const pageWhere = [filter];
  const pageArgs = [...args];
  if (query.pageToken) {
    const [ts, id] = decodeCursor(query.pageToken);
    pageWhere.push('(status_ts, id) < (?, ?)');
    pageArgs.push(ts, id);
  }
  return {
    count: { sql: `SELECT count(*) AS total FROM tasks WHERE ${filter}`, args },
    page: {
      sql: `SELECT * FROM tasks WHERE ${pageWhere.join(' AND ')} ORDER BY status_ts DESC, id DESC LIMIT ?`,
      args: [...pageArgs, query.pageSize + 1],
    },
  };
}

/** The page out of the rows its statement found (one more than the page size when more follow). */
export function taskPageOf(rows: TaskRow[], total: number, pageSize: number): TaskPage {
  const more = rows.length > pageSize;
  const page = rows.slice(0, pageSize).map((row) => fromRow(row).task);
  const last = page.at(-1);
  return { tasks: page, totalSize: total, nextPageToken: more && last ? encodeCursor(timestampOf(last), last.id) : '' };
}

/** TaskStore.correctEnded in SQLite's dialect (the file, and D1): task_json, id, the receipt's status before. */
export const CORRECT_ENDED_TASK_SQL = `UPDATE tasks SET task_json = ? WHERE id = ? AND state IN (${TERMINAL_STATES.join(',')})
  AND json_extract(task_json, '$.metadata.lez.status') IS ?`;

/** Active tasks: what a restarted gateway resumes. */
export const ACTIVE_TASKS_SQL = `SELECT * FROM tasks WHERE state NOT IN (${TERMINAL_STATES.join(',')})`;

/** The priced task holding a retry key: the answer to an identical message, unless it ended a while ago. */
export interface RetryKeyHolder {
  id: string;
  state: number;
  status_ts: string;
}

/** The insert that loses cleanly to an existing holder of the key: ON CONFLICT on the unique (agent, key) index. */
export const INSERT_PRICED_TASK_SQL = `${INSERT_TASK_SQL}
  ON CONFLICT (agent_id, retry_key) WHERE retry_key IS NOT NULL DO NOTHING`;
export const RETRY_KEY_HOLDER_SQL = 'SELECT id, state, status_ts FROM tasks WHERE agent_id = ? AND retry_key = ?';
export const GIVE_UP_RETRY_KEY_SQL = 'UPDATE tasks SET retry_key = NULL WHERE id = ? AND retry_key = ?';

/**
 * The rule of priced retries over a store's own statements (TaskStore.insertPriced): the unique index decides who
 * creates the task; a holder that ended before `sinceIso` gives its key up, any other is the answer. Each round
 * inserts, answers or frees a stale key, so racing inserts settle within a few rounds.
 */
export async function insertPricedOnce(
  statements: {
    /** True when the row was inserted; false when another row holds the key. */
    insert(): Promise<boolean>;
    holder(): Promise<RetryKeyHolder | undefined>;
    giveUp(holderId: string): Promise<void>;
  },
  sinceIso: string,
): Promise<PricedInsert> {
  for (let round = 0; round < 5; round++) {
    if (await statements.insert()) return { kind: 'created' };
    const holder = await statements.holder();
    // Given up between the insert and the read: insert again.
    if (!holder) continue;
    if (!TERMINAL_STATES.includes(holder.state) || holder.status_ts >= sinceIso)
      return { kind: 'retry', taskId: holder.id };
    await statements.giveUp(holder.id);
  }
  throw new Error('a priced task could not settle its retry key after 5 rounds');
}
