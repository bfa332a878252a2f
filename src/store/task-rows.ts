/** Task rows as both SQL stores keep them (same columns), the values they are indexed by, and the list cursor. */
import { Task, TaskState } from '@a2a-js/sdk';
import { InvalidPageTokenError, type StoredTask } from './task-store.ts';

export const TERMINAL_STATES = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

export interface TaskRow {
  id: string;
  agent_id: string;
  task_json: string;
  agent_addr: string;
  last_seq: number;
  request: string;
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
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')) {
      return value as [string, string];
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidPageTokenError(`pageToken "${token}" is not one this server issued`);
}
