/**
 * What every call of an agent's request handler checks: who calls (the caller: with API keys, the key's name), whether
 * that caller may see a task, and that the call names a task.
 */
import type { Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { logosMetadataOf } from './task-metadata.ts';

/** The name of the API key the call came with, if any: what the spending gate holds to a budget. */
export function callerOf(context: ServerCallContext): string | undefined {
  return context.user?.isAuthenticated ? context.user.userName : undefined;
}

/** With API keys, a task belongs to the key that created it; an open gateway (no caller) sees every task. */
export function ownedBy(task: Task, caller: string | undefined): boolean {
  return caller === undefined || logosMetadataOf(task)?.caller === caller;
}

export function requireId(id: string): string {
  if (!id || !id.trim()) throw new RequestMalformedError('A task id is required.');
  return id;
}
