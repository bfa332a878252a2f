/**
 * The engine's way to the other replicas, in its own terms: task changes to and from the shared feed, and commands
 * to and from the replica that runs a task, with the owner's A2A errors thrown at the caller. The replica store
 * below carries them as text.
 */
import type { Task } from '@a2a-js/sdk';
import type { ReplicaStore } from '../store/replica-store.ts';
import type { StoredTask } from '../store/task-store.ts';
import {
  decodeChange,
  decodeCommand,
  encodeCommand,
  outcomeOf,
  resultOf,
  type TaskCommand,
} from './replica-messages.ts';
import type { ChangeListener } from './task-change.ts';

export class ReplicaLink {
  readonly store: ReplicaStore;
  /** How long a caller waits for the owner's answer to a command. */
  readonly #answerWithinMs: number;
  /** Listeners following tasks other replicas run, and how each stops. */
  readonly #following = new Map<ChangeListener, () => void>();

  constructor(store: ReplicaStore, answerWithinMs: number) {
    this.store = store;
    this.#answerWithinMs = answerWithinMs;
  }

  /**
   * Runs the commands other replicas send for the tasks this one runs (`owns`); `again` for one whose first run, on
   * a replica that never answered, may have done some of its work. A run cut short because another replica took
   * the task meanwhile gives no answer: the new owner runs the command again and answers.
   */
  serve(
    owns: (taskId: string) => boolean,
    run: (taskId: string, command: TaskCommand, again: boolean) => Promise<Task | boolean>,
  ) {
    return this.store.serve(owns, (taskId, command, again) =>
      outcomeOf(() => run(taskId, decodeCommand(command), again)),
    );
  }

  /**
   * Hears the changes of a task another replica runs, until `unfollow`: every one after the task this returns (as
   * it stood when the follow began; undefined when there is none).
   */
  async follow(taskId: string, listener: ChangeListener): Promise<StoredTask | undefined> {
    const { stop, task } = await this.store.follow(taskId, (change) => listener(decodeChange(change)));
    this.#following.set(listener, stop);
    return task;
  }

  unfollow(listener: ChangeListener): void {
    this.#following.get(listener)?.();
    this.#following.delete(listener);
  }

  unfollowAll(): void {
    for (const stop of this.#following.values()) stop();
    this.#following.clear();
  }

  /**
   * Sends a command to the replica that runs the task; returns its outcome (or throws the error it answered with),
   * or `ended` when the task ended with the command unanswered: this replica then answers it from the ended task.
   */
  async forward(taskId: string, command: TaskCommand): Promise<{ result: Task | boolean } | 'ended'> {
    const answer = await this.store.request(taskId, encodeCommand(command), this.#answerWithinMs);
    if (answer.kind === 'unanswered') throw new Error(`Task ${taskId}: the replica running it did not answer in time.`);
    return answer.kind === 'ended' ? 'ended' : { result: resultOf(answer.outcome) };
  }
}
