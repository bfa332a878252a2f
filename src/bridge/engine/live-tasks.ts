/**
 * The tasks an engine runs, and the one way each of them changes: one change at a time (`mutate`), saved before
 * anyone hears of it (`persist`, then `emit`). Every part of the engine changes a task through here.
 */
import { LeaseLostError } from '../../store/replica-store.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { LiveTask } from '../live-task.ts';
import { encodeChange } from '../replica-messages.ts';
import type { ChangeListener, TaskChange } from '../task-change.ts';
import { snapshotTask } from '../task-events.ts';

export interface LiveTasksOptions {
  store: Pick<TaskStore, 'update'>;
  /** Hears every change of every task, after its commit. */
  onChange?: ChangeListener;
  /** Other replicas follow these tasks: each change enters the shared feed in the transaction that saves it. */
  sharesChanges: boolean;
  /** Saving found the task's lease taken over by another replica. */
  leaseLost: (live: LiveTask) => void;
  log: (message: string) => void;
}

export class LiveTasks {
  readonly #byId = new Map<string, LiveTask>();
  readonly #options: LiveTasksOptions;

  constructor(options: LiveTasksOptions) {
    this.#options = options;
  }

  get(taskId: string): LiveTask | undefined {
    return this.#byId.get(taskId);
  }

  has(taskId: string): boolean {
    return this.#byId.has(taskId);
  }

  get size(): number {
    return this.#byId.size;
  }

  values(): IterableIterator<LiveTask> {
    return this.#byId.values();
  }

  add(live: LiveTask): void {
    this.#byId.set(live.task.id, live);
  }

  /** Whether `live` is still what runs its task here: not finished, let go, or replaced meanwhile. */
  holds(live: LiveTask): boolean {
    return this.#byId.get(live.task.id) === live;
  }

  delete(live: LiveTask): void {
    if (this.holds(live)) this.#byId.delete(live.task.id);
  }

  clear(): void {
    this.#byId.clear();
  }

  /** Runs `change` after whatever else is changing the task; resolves or throws with it. */
  mutate(live: LiveTask, change: () => Promise<void>): Promise<void> {
    return live.queue(change);
  }

  /**
   * Runs `step` after whatever else is changing the task. A step that fails is logged: the changes queued after it
   * still run, and nothing is left unhandled.
   */
  enqueue(live: LiveTask, what: string, step: () => Promise<void>): void {
    void live.queue(step, (error) => this.#options.log(`task ${live.task.id}: ${what}: ${String(error)}`));
  }

  /**
   * Saves the task as it stands. `change` (its events) is what listeners are to hear of it: with replicas, it enters
   * the shared feed in the same transaction, so that a caller who hears it and then calls another replica finds it
   * there, and no state is ever committed that followers elsewhere miss. Returns the change, with the task as saved,
   * or what `after` makes of it: run in the same step on the store's promise (every reply is saved here, and a step
   * of the caller's own on this promise would be one more promise each time).
   */
  persist(live: LiveTask, change?: Omit<TaskChange, 'task'>): Promise<TaskChange>;
  persist<T>(live: LiveTask, change: Omit<TaskChange, 'task'>, after: (saved: TaskChange) => T): Promise<T>;
  persist<T>(
    live: LiveTask,
    change?: Omit<TaskChange, 'task'>,
    after?: (saved: TaskChange) => T,
  ): Promise<TaskChange | T> {
    // One step on the store's promise rather than an async frame and its await: every reply is saved here.
    try {
      const snapshot = snapshotTask(live.task);
      const saved: TaskChange = { events: [], ...change, task: snapshot };
      const feed = change && this.#options.sharesChanges ? encodeChange(saved) : undefined;
      return this.#options.store.update(live.task.id, snapshot, live.lastSeq, feed).then(
        () => {
          live.committed = snapshot;
          return after ? after(saved) : saved;
        },
        (error: unknown) => {
          // This replica stalled past its lease, and the task was taken over: what it was doing stops here.
          if (error instanceof LeaseLostError) this.#options.leaseLost(live);
          throw error;
        },
      );
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Tells this replica's listeners of a change `persist` saved; one that throws does not keep it from the others. */
  emit(live: LiveTask, change: TaskChange): void {
    const observer = this.#options.onChange;
    for (const listener of observer ? [observer, ...live.listeners] : [...live.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#options.log(`task ${live.task.id}: a listener threw: ${String(error)}`);
      }
    }
  }
}
