/**
 * Which replica runs a task, on a database shared by several (docs/replicas.md): the one holding its lease. This
 * replica renews its leases on a heartbeat, lets go of a task whose lease another took (its listeners follow it
 * there), takes over the tasks of a replica that stopped renewing, and reaches the tasks others run through the
 * replica link (their changes, and commands for them).
 */
import type { Task } from '@a2a-js/sdk';
import { metrics } from '../../observability/metrics.ts';
import type { ReplicaStore } from '../../store/replica-store.ts';
import type { StoredTask, TaskStore } from '../../store/task-store.ts';
import { withinMs } from '../../time-limit.ts';
import type { LiveTask } from '../live-task.ts';
import { isTerminal } from '../mapping.ts';
import { ReplicaLink } from '../replica-link.ts';
import type { TaskCommand } from '../replica-messages.ts';
import type { ChangeListener } from '../task-change.ts';
import { catchUp } from '../task-events.ts';
import type { LiveTasks } from './live-tasks.ts';

export interface ReplicaOwnershipOptions {
  replicas: ReplicaStore;
  /** How long a command's caller waits, besides the leases, for the replica running the task to answer. */
  cancelTimeoutMs: number;
  tasks: LiveTasks;
  store: Pick<TaskStore, 'get' | 'listActive'>;
  /** Runs a stored task here from where it stands (one taken over). */
  resume: (stored: StoredTask) => Promise<void>;
  /** Stops hearing a task's agent and its timers: another replica runs it now. */
  detach: (live: LiveTask) => void;
  log: (message: string) => void;
}

export class ReplicaOwnership {
  readonly #options: ReplicaOwnershipOptions;
  readonly #link: ReplicaLink;
  /** Live tasks whose lease this replica holds (a task being created is live a moment before its lease is). */
  readonly #leased = new Set<string>();
  /**
   * Tasks whose lease this replica took over and has not run yet: the takeover committed, and reading or resuming
   * them failed (a dropped connection). Their leases are renewed with the rest, so nobody else would take them: they
   * are tried again at every beat until they run here, end, or their lease is lost.
   */
  readonly #takenOver = new Set<string>();
  #heartbeat?: NodeJS.Timeout;
  #renewing = false;

  constructor(options: ReplicaOwnershipOptions) {
    this.#options = options;
    // Long enough for a dead owner's lease to run out, and for another replica to take the task and answer.
    this.#link = new ReplicaLink(options.replicas, 2 * options.replicas.leaseMs + 2 * options.cancelTimeoutMs);
  }

  /**
   * Runs the commands other replicas send for the tasks this one runs, takes over the tasks no live replica holds
   * (those of a replica that died, or of this one before its restart), and starts the heartbeat.
   */
  async start(run: (taskId: string, command: TaskCommand, again: boolean) => Promise<Task | boolean>): Promise<void> {
    const { tasks, replicas } = this.#options;
    await this.#link.serve((taskId) => tasks.has(taskId), run);
    await this.takeOverOrphans();
    this.#heartbeat = setInterval(() => void this.renewLeases(), replicas.leaseMs / 3);
    this.#heartbeat.unref();
  }

  /** Stops following and renewing; another replica takes this one's tasks over at once, not after the leases run out. */
  async stop(): Promise<void> {
    clearInterval(this.#heartbeat);
    this.#link.unfollowAll();
    await this.#options.replicas
      .releaseAll()
      .catch((error: unknown) => this.#options.log(`releasing leases: ${String(error)}`));
  }

  /** This replica holds the task's lease now (the insert that recorded it took it). */
  leases(taskId: string): void {
    this.#leased.add(taskId);
  }

  /** The task's lease ended (with its terminal write). */
  released(taskId: string): void {
    this.#leased.delete(taskId);
  }

  /** The tasks whose lease another live replica holds. */
  leasedElsewhere(): Promise<Set<string>> {
    return this.#options.replicas.leasedElsewhere();
  }

  /** A task that runs on another replica: unfinished, and not live here. */
  async runsElsewhere(agentId: string, taskId: string): Promise<boolean> {
    if (this.#options.tasks.has(taskId)) return false;
    const stored = await this.#options.store.get(agentId, taskId);
    return stored !== undefined && !isTerminal(stored.task.status?.state);
  }

  /** Hears the changes of a task another replica runs, until `unfollow`: those after the task it returns. */
  follow(taskId: string, listener: ChangeListener): Promise<StoredTask | undefined> {
    return this.#link.follow(taskId, listener);
  }

  unfollow(listener: ChangeListener): void {
    this.#link.unfollow(listener);
  }

  /**
   * Sends a command to the replica that runs the task; its outcome (or the error it answered with, thrown), or
   * `ended`: the task ended with the command unanswered, and this replica answers it.
   */
  forward(taskId: string, command: TaskCommand): Promise<{ result: Task | boolean } | 'ended'> {
    return this.#link.forward(taskId, command);
  }

  /** A task whose lease another replica holds now: that one runs it, and whoever listened here follows it there. */
  letGo(live: LiveTask): void {
    const { tasks, log } = this.#options;
    const taskId = live.task.id;
    if (!tasks.holds(live)) return;
    log(`task ${taskId}: its lease went to another replica; following it there`);
    this.#leased.delete(taskId);
    this.#options.detach(live);
    tasks.delete(live);
    // What the listeners heard here ends where this replica's last commit did; the new owner may have committed more
    // since it took the lease (the task's end, even), which the feed holds before the point a follow starts from.
    const heard = live.committed;
    for (const listener of live.listeners) {
      this.#link.follow(taskId, listener).then(
        (stored) => {
          const missed = stored && catchUp(heard, stored.task);
          if (missed) listener(missed);
        },
        (error: unknown) => log(`task ${taskId}: following it on its new owner: ${String(error)}`),
      );
    }
  }

  /** Renews this replica's leases, lets go of tasks whose lease another took, and takes over orphaned tasks. */
  async renewLeases(): Promise<void> {
    const { replicas, tasks } = this.#options;
    // A beat that outlasts the interval (a slow database) is not overlapped by the next.
    if (this.#renewing) return;
    this.#renewing = true;
    try {
      // Given up after a quarter of a lease, before the next beat (every third of a lease), which then renews afresh
      // while the last renewal's lease still runs: a database gone without closing its connections (a failover)
      // leaves queries waiting until TCP notices, minutes later, and one renewal waiting that long would hold every
      // later one back while the leases ran out.
      // Only the leases held before the renewal began can be missing from its answer for having been lost: a task
      // leased while it ran (a new one) may commit after the UPDATE read the table, and is not lost.
      const before = [...this.#leased];
      const held = await withinMs(replicas.renew(), replicas.leaseMs / 4);
      for (const taskId of before) {
        const live = tasks.get(taskId);
        // Taken over while this replica could not renew (the database was out of reach).
        if (!held.has(taskId) && live) this.letGo(live);
      }
      for (const taskId of this.#takenOver) if (!held.has(taskId)) this.#takenOver.delete(taskId);
      await this.takeOverOrphans();
    } catch (error) {
      this.#options.log(`renewing leases: ${String(error)}`);
    } finally {
      this.#renewing = false;
    }
  }

  private async takeOverOrphans(): Promise<void> {
    const { replicas, tasks, store, log } = this.#options;
    for (const taskId of await replicas.takeOver()) this.#takenOver.add(taskId);
    if (this.#takenOver.size === 0) return;
    const active = await store.listActive();
    const unfinished = new Set(active.map((stored) => stored.task.id));
    // Ended meanwhile (its last write went through before the takeover): nothing to run.
    for (const taskId of this.#takenOver) if (!unfinished.has(taskId)) this.#takenOver.delete(taskId);
    for (const stored of active) {
      const taskId = stored.task.id;
      if (!this.#takenOver.has(taskId)) continue;
      if (tasks.has(taskId)) {
        this.#takenOver.delete(taskId);
        continue;
      }
      this.#leased.add(taskId);
      try {
        await this.#options.resume(stored);
      } catch (error) {
        // Undone, to be done whole at the next beat: a task left half resumed (live here, its approval or payment
        // never picked up) would pass for one taken over.
        const partial = tasks.get(taskId);
        if (partial) {
          this.#options.detach(partial);
          tasks.delete(partial);
        }
        this.#leased.delete(taskId);
        log(`task ${taskId}: resuming it after taking it over: ${String(error)}; trying again at the next beat`);
        continue;
      }
      this.#takenOver.delete(taskId);
      metrics.leaseTakeovers.inc();
      log(`task ${taskId}: taken over from a replica that stopped renewing its lease`);
      // Commands sent to the dead owner that it never ran, or never answered: this replica runs them now.
      await replicas.runWaiting(taskId);
    }
  }
}
