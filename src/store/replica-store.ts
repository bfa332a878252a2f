/**
 * What replicas on one database share besides the tasks themselves: who owns each live task (a lease, renewed while
 * the owner lives), the feed of committed task changes that streams on other replicas follow, and the commands
 * (follow-ups, cancels, approvals) other replicas hand to a task's owner. Payloads are opaque text here; the bridge
 * gives them meaning. A single gateway on SQLite has no replicas and no such store.
 *
 * A lease is taken, and a change enters the feed, with the task's own write (TaskStore: the replica that inserts a
 * task leases it, a terminal write ends the lease, and `update` carries the feed entry), so that no task is ever
 * without an owner or has a state its followers never hear of.
 */
import type { StoredTask } from './task-store.ts';

export interface ReplicaStore {
  /** This replica's id: the owner named in its leases. */
  readonly replicaId: string;
  /** How long a lease lasts without renewal: an owner silent this long is taken for dead. */
  readonly leaseMs: number;

  /** Renews every lease this replica holds; returns the tasks it still holds (a lease it lost is missing). */
  renew(): Promise<Set<string>>;
  /** Lets every lease of this replica run out now (it is stopping): another replica takes its tasks at once. */
  releaseAll(): Promise<void>;
  /** Takes the leases of unfinished tasks whose owner stopped renewing; returns their ids. */
  takeOver(): Promise<string[]>;
  /** Tasks under a live lease of another replica. */
  leasedElsewhere(): Promise<Set<string>>;

  /**
   * Hears every change of the task after the task as this returns it (read in one snapshot with the feed), in order:
   * none is missed, and none the returned task holds already is heard again (an appended chunk heard twice would be
   * appended twice). The task is undefined when there is none of that id.
   */
  follow(taskId: string, onChange: (change: string) => void): Promise<{ stop: () => void; task?: StoredTask }>;

  /**
   * Hands a command to whichever replica owns the task (or takes it over) and waits for its answer, at most
   * `timeoutMs` (see CommandAnswer).
   */
  request(taskId: string, command: string, timeoutMs: number): Promise<CommandAnswer>;
  /**
   * Runs the commands for tasks this replica owns, as they come: `owns` says which, `run` answers one, or gives no
   * answer (undefined) when the task was taken from this replica meanwhile, so that its new owner runs the command
   * again. `again` is set when the command was claimed before by a replica that never answered it (it died, or
   * lost the task): its first run may have done some of its work. Starts listening to the feed and the commands.
   */
  serve(
    owns: (taskId: string) => boolean,
    run: (taskId: string, command: string, again: boolean) => Promise<string | undefined>,
  ): Promise<void>;
  /**
   * Starts running the commands still unanswered for a task this replica just took over: those nobody claimed, and,
   * `again`, those the task's last owner claimed and never answered. Resolves once they are found, not answered.
   */
  runWaiting(taskId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * How a command sent to a task's owner came out, for the replica that asked: the owner's answer; the task ended
 * with the command unanswered and nobody left to answer it (its claimer died, or none claimed it), so the asking
 * replica, which now holds the command's claim, answers it itself from the ended task; or no answer in time.
 */
export type CommandAnswer = { kind: 'answered'; outcome: string } | { kind: 'ended' } | { kind: 'unanswered' };

/**
 * A write refused because another replica holds the task's lease now: this one stalled past its lease (or could not
 * renew it) and the task was taken over. The writer lets the task go; the new owner runs it.
 */
export class LeaseLostError extends Error {
  readonly taskId: string;

  constructor(taskId: string) {
    super(`task ${taskId} is leased to another replica now`);
    this.name = 'LeaseLostError';
    this.taskId = taskId;
  }
}
