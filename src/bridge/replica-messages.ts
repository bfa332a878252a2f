/**
 * What replicas tell each other through the database, as text: a task's committed change (for the streams and
 * blocking calls another replica holds), a command for the replica that owns a task, and that command's outcome.
 * Tasks, messages and events travel as the SDK's ProtoJSON, as the stores keep them.
 */
import { Message, StreamResponse, Task } from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { LeaseLostError } from '../store/replica-store.ts';
import type { TaskChange } from './task-change.ts';

/** What a replica asks of the replica that owns a task. */
export type TaskCommand =
  | { kind: 'follow-up'; agentId: string; message: Message; params: Record<string, unknown> }
  | { kind: 'cancel'; agentId: string }
  | { kind: 'approval'; approve: boolean };

export type CommandOutcome = { task: Task } | { approved: boolean } | { error: { name: string; message: string } };

export function encodeChange(change: TaskChange): string {
  return JSON.stringify({
    events: change.events.map((event) => StreamResponse.toJSON(event)),
    task: Task.toJSON(change.task),
    ...(change.directAnswer ? { directAnswer: Message.toJSON(change.directAnswer) } : {}),
  });
}

export function decodeChange(text: string): TaskChange {
  const json = JSON.parse(text) as { events: unknown[]; task: unknown; directAnswer?: unknown };
  return {
    events: json.events.map((event) => StreamResponse.fromJSON(event)),
    task: Task.fromJSON(json.task),
    ...(json.directAnswer !== undefined ? { directAnswer: Message.fromJSON(json.directAnswer) } : {}),
  };
}

export function encodeCommand(command: TaskCommand): string {
  return JSON.stringify(
    command.kind === 'follow-up' ? { ...command, message: Message.toJSON(command.message) } : command,
  );
}

export function decodeCommand(text: string): TaskCommand {
  const command = JSON.parse(text) as TaskCommand;
  return command.kind === 'follow-up' ? { ...command, message: Message.fromJSON(command.message) } : command;
}

/** The errors the owner's engine throws at a caller, rebuilt on the replica the caller asked. */
const CALLER_ERRORS: Record<string, new (message: string) => Error> = {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
};

/** The owner's answer, as text; none when the task was taken from it meanwhile (its new owner answers). */
export async function outcomeOf(work: () => Promise<Task | boolean>): Promise<string | undefined> {
  try {
    const result = await work();
    return JSON.stringify(typeof result === 'boolean' ? { approved: result } : { task: Task.toJSON(result) });
  } catch (error) {
    if (error instanceof LeaseLostError) return undefined;
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return JSON.stringify({ error: { name: error instanceof Error ? error.constructor.name : name, message } });
  }
}

/** The owner's answer as the caller gets it: the task or the decision, or the owner's error thrown here. */
export function resultOf(text: string): Task | boolean {
  const outcome = JSON.parse(text) as CommandOutcome;
  if ('error' in outcome) {
    const Known = CALLER_ERRORS[outcome.error.name];
    throw Known ? new Known(outcome.error.message) : new Error(outcome.error.message);
  }
  return 'approved' in outcome ? outcome.approved : Task.fromJSON(outcome.task);
}
