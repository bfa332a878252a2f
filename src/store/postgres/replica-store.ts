/**
 * Replicas on one PostgreSQL, coordinated by the database alone: leases are rows (owner, expiry), task changes and
 * commands are rows too, and LISTEN/NOTIFY only says which row to read. A notification carries ids, never the
 * change itself: NOTIFY payloads end at 8000 bytes, a task's change does not.
 */
import { randomUUID } from 'node:crypto';
import { withinMs } from '../../time-limit.ts';
import type { Sql } from './connection.ts';
import { ANSWERS_CHANNEL, CHANGES_CHANNEL, type LeaseFences } from './task-store.ts';
import type { CommandAnswer, ReplicaStore } from '../replica-store.ts';
import { fromRow, TERMINAL_STATES, type TaskRow } from '../task-rows.ts';
import type { StoredTask } from '../task-store.ts';

const COMMANDS = 'logos_a2a_task_commands';
/** Changes and commands older than this are swept: a follower reads a change, an owner a command, within moments. */
const KEEP_FEED_MS = 10 * 60_000;
const SWEEP_EVERY_MS = 60_000;
/** The first key of every replica's liveness lock (`pg_advisory_lock(LIVENESS_LOCKS, hashtext(replica id))`). */
export const LIVENESS_LOCKS = 0x4c413241;
/**
 * How the id of a replica that holds a liveness lock begins. Only such owners are taken for gone when they hold none:
 * a replica of an earlier version, upgraded beside this one, holds no lock and is alive.
 */
const LIVE_OWNER_PREFIX = 'live:';

interface Follower {
  onChange: (change: string) => void;
  /** The last change id heard; undefined until the follow started. */
  lastId?: number;
  reading: Promise<void>;
}

export class PostgresReplicaStore implements ReplicaStore {
  readonly replicaId: string;
  readonly leaseMs: number;
  /** The lease as an interval: expiry is the database's time, so replicas whose clocks differ agree on it. */
  readonly #leaseInterval: string;
  readonly #sql: Sql;
  readonly #log: (message: string) => void;
  readonly #followers = new Map<string, Set<Follower>>();
  readonly #answers = new Map<number, () => void>();
  readonly #fences: LeaseFences;
  readonly #unlisten: (() => Promise<void>)[] = [];
  #owns: (taskId: string) => boolean = () => false;
  #run?: (taskId: string, command: string, again: boolean) => Promise<string | undefined>;
  #sweptAt = 0;
  readonly #openSession: ((onClose: () => void) => Sql) | undefined;
  /** The connection that holds this replica's liveness lock, and whether it holds it now. */
  #session: Sql | undefined;
  #alive = false;
  #startedTakingOver = false;
  #closed = false;

  /**
   * `openSession` opens a connection of this replica's own (not the pool's), calling `onClose` when it is lost: on
   * it the replica holds a liveness lock as long as it lives, so that a replica starting after a crash takes the
   * dead one's tasks at once instead of after its lease. Without it, only leases that ran out are taken.
   */
  constructor(
    sql: Sql,
    options: {
      leaseMs: number;
      log?: (message: string) => void;
      openSession?: (onClose: () => void) => Sql;
      /** Default: a new random one. */
      replicaId?: string;
      /** The epochs this replica's task store fences its writes with: a takeover sets the task's. */
      fences?: LeaseFences;
    },
  ) {
    this.#fences = options.fences ?? new Map();
    this.#sql = sql;
    this.replicaId = options.replicaId ?? newReplicaId(options.openSession !== undefined);
    this.leaseMs = options.leaseMs;
    this.#leaseInterval = `${options.leaseMs} milliseconds`;
    this.#log = options.log ?? ((message) => console.warn(message));
    this.#openSession = options.openSession;
  }

  /**
   * Holds this replica's liveness lock: takes it if its connection does not hold it (again after that connection was
   * lost, a server restart say). `check` asks the server even when the lock is thought held: a half-open connection
   * says nothing until the keep-alive notices. A failure is logged: the lock matters to others' starts only, and
   * must not stop this replica from leasing and renewing. A check that fails is tried once more on a new connection:
   * the one it failed on is most often one the server ended (a restart, a failover, an administrator), and the lock
   * should be back at once rather than a renewal later, when a replica starting meanwhile would take this one for gone.
   */
  async #stayAlive(check = false, retry = true): Promise<void> {
    if (!this.#openSession || this.#closed || (this.#alive && !check)) return;
    if (!this.#session) {
      const opened: Sql = this.#openSession(() => this.#dropSession(opened));
      this.#session = opened;
    }
    const session = this.#session;
    try {
      const answer = session<{ locked: boolean }[]>`
        SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'
                      AND objsubid = 2 AND classid = ${LIVENESS_LOCKS}::int4::oid
                      AND objid = hashtext(${this.replicaId})::oid AND granted)
               THEN true ELSE pg_try_advisory_lock(${LIVENESS_LOCKS}, hashtext(${this.replicaId})) END AS locked`;
      // A connection the server left without closing it (a failover) answers nothing and reports nothing until TCP
      // gives up, minutes later: past the limit it is taken for lost like one that failed.
      answer.catch(() => undefined);
      const [row] = await withinMs(answer, this.#checkMs, () => new CheckTimeout(this.#checkMs));
      this.#alive = row?.locked === true;
    } catch (error) {
      this.#dropSession(session);
      this.#log(`holding this replica's liveness lock: ${String(error)}`);
      // Not after a timeout: a renewal waits on the check, and a second wait would outlast the engine's limit.
      if (retry && !(error instanceof CheckTimeout)) await this.#stayAlive(check, false);
    }
  }

  /** How long one liveness check may take: a fifth of a lease, within the engine's limit on a renewal (a quarter). */
  get #checkMs(): number {
    return Math.max(500, this.leaseMs / 5);
  }

  /**
   * Ends a session whose connection was lost or failed a query; the next check opens a new one. The driver
   * (postgres 3.4.9) cannot be trusted with such a connection again: after a connection error it keeps the failed
   * query and the server's last error, so the first query once it reconnects fails with that stale error, and a
   * query sent between the socket's 'error' and 'close' events (another claim at that moment, say) waits on the dead
   * socket and never settles, after which the connection never becomes ready again and every later check, so every
   * renewal, waits forever. Ending the session rejects what waits on it; a new one shares none of that state.
   */
  #dropSession(session: Sql): void {
    if (this.#session === session) {
      this.#session = undefined;
      this.#alive = false;
    }
    void session.end({ timeout: 0 }).catch(() => undefined);
  }

  async renew(): Promise<Set<string>> {
    // The liveness check runs beside the renewal, never before it: a check waiting on a lost connection must not
    // hold back the leases (it never throws; a failure is logged).
    const checked = this.#stayAlive(true);
    try {
      await this.#sweep();
      const rows = await this.#sql<{ task_id: string }[]>`
        UPDATE task_leases SET expires_at = now() + ${this.#leaseInterval}::interval WHERE owner = ${this.replicaId} RETURNING task_id`;
      return new Set(rows.map((row) => row.task_id));
    } finally {
      await checked;
    }
  }

  async releaseAll(): Promise<void> {
    await this.#sql`UPDATE task_leases SET expires_at = now() WHERE owner = ${this.replicaId}`;
  }

  async takeOver(): Promise<string[]> {
    // An unfinished task without a lease (its creator died between recording it and leasing it, or it predates
    // leases) is taken once it has been quiet for a lease's length. Row locks decide a race: the loser's update
    // finds the lease fresh and returns nothing.
    const quietSince = new Date(Date.now() - this.leaseMs).toISOString();
    // At start, also the leases of owners that hold no liveness lock: their connection, and so their process, is
    // gone (a gateway restarted after a crash takes its tasks back at once). Later, only leases that ran out: after a
    // database restart, live replicas take their locks again only at their next renewal.
    // Who takes leases is alive, and says so first: a replica racing it at its own start must see it.
    await this.#stayAlive();
    const atStart = this.#openSession !== undefined && !this.#startedTakingOver;
    const ownerGone = (owner: ReturnType<Sql>) => (atStart ? this.#sql`OR ${this.#gone(owner)}` : this.#sql``);
    // Each task taken gets a new lease epoch in the same statement: the writes of the replica it was taken from are
    // refused from then on (PostgresTaskStore's fence).
    const rows = await this.#sql<{ id: string; lease_epoch: number }[]>`
      WITH taken AS (
        INSERT INTO task_leases (task_id, owner, expires_at)
          SELECT t.id, ${this.replicaId}, now() + ${this.#leaseInterval}::interval FROM tasks t LEFT JOIN task_leases l ON l.task_id = t.id
          WHERE t.state NOT IN ${this.#sql(TERMINAL_STATES)}
            AND (l.expires_at < now() ${ownerGone(this.#sql`l.owner`)} OR (l.task_id IS NULL AND t.status_ts < ${quietSince}))
        ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
          WHERE task_leases.expires_at < now() ${ownerGone(this.#sql`task_leases.owner`)}
        RETURNING task_id
      )
      UPDATE tasks SET lease_epoch = lease_epoch + 1 FROM taken WHERE tasks.id = taken.task_id
      RETURNING tasks.id, tasks.lease_epoch`;
    for (const row of rows) this.#fences.set(row.id, row.lease_epoch);
    this.#startedTakingOver = true;
    return rows.map((row) => row.id);
  }

  /** Whether the replica named by `owner` (an SQL expression) holds no liveness lock: its process is gone. */
  #gone(owner: ReturnType<Sql>) {
    return this.#sql`(${owner} LIKE ${LIVE_OWNER_PREFIX + '%'} AND NOT EXISTS (SELECT 1 FROM pg_locks
      WHERE locktype = 'advisory' AND objsubid = 2 AND classid = ${LIVENESS_LOCKS}::int4::oid
        AND objid = hashtext(${owner})::oid))`;
  }

  async leasedElsewhere(): Promise<Set<string>> {
    const rows = await this.#sql<{ task_id: string }[]>`
      SELECT task_id FROM task_leases WHERE owner <> ${this.replicaId} AND expires_at > now()`;
    return new Set(rows.map((row) => row.task_id));
  }

  async follow(taskId: string, onChange: (change: string) => void): Promise<{ stop: () => void; task?: StoredTask }> {
    const follower: Follower = { onChange, reading: Promise.resolve() };
    let followers = this.#followers.get(taskId);
    if (!followers) this.#followers.set(taskId, (followers = new Set()));
    followers.add(follower);
    const stop = () => {
      followers.delete(follower);
      if (followers.size === 0 && this.#followers.get(taskId) === followers) this.#followers.delete(taskId);
    };
    let row: (Partial<TaskRow> & { last: number }) | undefined;
    try {
      // One statement, one snapshot: a task's row and its feed entries are written in one transaction, so the row
      // read here holds exactly the changes up to `last`.
      [row] = await this.#sql<(Partial<TaskRow> & { last: number })[]>`
        SELECT f.last, t.* FROM (SELECT coalesce(max(id), 0)::int8 AS last FROM task_changes WHERE task_id = ${taskId}) f
          LEFT JOIN tasks t ON t.id = ${taskId}`;
      follower.lastId = row!.last;
    } catch (error) {
      stop();
      throw error;
    }
    // A change notified while the follow started is read now.
    this.#read(taskId, follower);
    return { stop, ...(row?.id ? { task: fromRow(row as TaskRow) } : {}) };
  }

  async request(taskId: string, command: string, timeoutMs: number): Promise<CommandAnswer> {
    const [row] = await this.#sql<{ id: number }[]>`
      INSERT INTO task_commands (task_id, command) VALUES (${taskId}, ${command}) RETURNING id`;
    const id = row!.id;
    const giveUpAt = Date.now() + timeoutMs;
    // Woken by the answer's notification (which may come before this waits), or every third of a lease to look at
    // the row: an answer may have come while this replica's listener reconnected, and a task may end with the
    // command unanswered, which nobody announces. Unanswered, the command is announced again: the owner's listener
    // may have been reconnecting when it was (a claimed command is not run twice).
    let heard = false;
    let wake: (() => void) | undefined;
    this.#answers.set(id, () => {
      heard = true;
      wake?.();
    });
    const announce = () => this.#sql`SELECT pg_notify(${COMMANDS}, ${`${id} ${taskId}`})`;
    try {
      await announce();
      // Looked at once: a task that ended as the command was written (the same message sent to its owner at once,
      // say) has no owner left to answer it, and its caller would wait the first third of a lease for nothing.
      let answer = await this.#answerTo(id);
      while (answer.kind === 'unanswered' && !this.#closed && Date.now() < giveUpAt) {
        if (!heard) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, Math.min(this.leaseMs / 3, Math.max(0, giveUpAt - Date.now())));
          });
          clearTimeout(timer);
        }
        heard = false;
        answer = await this.#answerTo(id);
        if (answer.kind === 'unanswered') await announce();
      }
      return answer;
    } finally {
      this.#answers.delete(id);
    }
  }

  /**
   * The command's answer, if any; else, if its task has ended and no live replica will answer (none claimed it, or
   * its claimer's process is gone), the command claimed for this replica, whose caller gets its answer here.
   */
  async #answerTo(id: number): Promise<CommandAnswer> {
    const [row] = await this.#sql<{ result: string | null; ended: boolean }[]>`
      SELECT c.result, coalesce(t.state IN ${this.#sql(TERMINAL_STATES)}, false) AS ended
        FROM task_commands c LEFT JOIN tasks t ON t.id = c.task_id WHERE c.id = ${id}`;
    if (row?.result != null) return { kind: 'answered', outcome: row.result };
    if (!row?.ended) return { kind: 'unanswered' };
    const claimed = await this.#sql`
      UPDATE task_commands SET claimed_by = ${this.replicaId}
        WHERE id = ${id} AND result IS NULL AND (claimed_by IS NULL OR ${this.#gone(this.#sql`claimed_by`)})
      RETURNING id`;
    return claimed.length > 0 ? { kind: 'ended' } : { kind: 'unanswered' };
  }

  async serve(
    owns: (taskId: string) => boolean,
    run: (taskId: string, command: string, again: boolean) => Promise<string | undefined>,
  ): Promise<void> {
    this.#owns = owns;
    this.#run = run;
    await this.#stayAlive();
    const listen = async (channel: string, heard: (payload: string) => void, reconnected?: () => void) => {
      const { unlisten } = await this.#sql.listen(channel, heard, reconnected);
      this.#unlisten.push(unlisten);
    };
    // After a reconnect, notifications sent meanwhile are lost: every follower reads what it may have missed.
    await listen(
      CHANGES_CHANNEL,
      (taskIds) => this.#heardChange(taskIds),
      () => this.#readAll(),
    );
    await listen(COMMANDS, (payload) => this.#heardCommand(payload));
    await listen(ANSWERS_CHANNEL, (payload) => this.#answers.get(Number(payload))?.());
  }

  async runWaiting(taskId: string): Promise<void> {
    // Also those the task's last owner claimed and never answered: it died, or lost the task, before it could.
    const rows = await this.#sql<{ id: number }[]>`
      SELECT id FROM task_commands
        WHERE task_id = ${taskId} AND result IS NULL AND claimed_by IS DISTINCT FROM ${this.replicaId} ORDER BY id`;
    // Started, not awaited, as the commands heard are: one may wait on the agent (a cancel, for its confirmation),
    // and the takeover that looks for them must not wait with it: it runs in a lease renewal, and at a replica's start.
    for (const { id } of rows) void this.#runCommand(id, taskId, true);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#unlisten.splice(0).map((unlisten) => unlisten().catch(() => undefined)));
    for (const heard of this.#answers.values()) heard();
    this.#followers.clear();
    // Its end frees the liveness lock.
    const session = this.#session;
    this.#session = undefined;
    await session?.end({ timeout: 5 });
  }

  /** A commit added changes of these tasks (space-separated ids) to the feed. */
  #heardChange(taskIds: string): void {
    for (const taskId of taskIds.split(' ')) {
      for (const follower of this.#followers.get(taskId) ?? []) this.#read(taskId, follower);
    }
  }

  #readAll(): void {
    for (const [taskId, followers] of this.#followers) for (const follower of followers) this.#read(taskId, follower);
  }

  /** Hands the follower every change after the last it heard, in order; one read at a time per follower. */
  #read(taskId: string, follower: Follower): void {
    follower.reading = follower.reading
      .then(async () => {
        if (follower.lastId === undefined) return;
        const rows = await this.#sql<{ id: number; change: string }[]>`
          SELECT id, change FROM task_changes WHERE task_id = ${taskId} AND id > ${follower.lastId} ORDER BY id`;
        for (const row of rows) {
          follower.lastId = row.id;
          follower.onChange(row.change);
        }
      })
      .catch((error: unknown) => this.#log(`reading the changes of task ${taskId}: ${String(error)}`));
  }

  #heardCommand(payload: string): void {
    const [id, taskId] = payload.split(' ');
    if (!id || !taskId || !this.#owns(taskId)) return;
    void this.#runCommand(Number(id), taskId, false);
  }

  /**
   * Runs a command on the replica that claims it. Only the task's leaseholder claims it, so a replica that lost the
   * task claims nothing after the new owner looked for waiting commands. A claim is taken once (`taken`: unclaimed),
   * except by a task's new owner (`takenOver`), which takes it from the last owner if that one never answered.
   */
  async #runCommand(id: number, taskId: string, takenOver: boolean): Promise<void> {
    try {
      const taken = takenOver
        ? this.#sql`c.claimed_by IS DISTINCT FROM ${this.replicaId}`
        : this.#sql`c.claimed_by IS NULL`;
      const [claimed] = await this.#sql<{ command: string; again: boolean }[]>`
        WITH before AS (SELECT id, claimed_by FROM task_commands WHERE id = ${id} FOR UPDATE)
        UPDATE task_commands c SET claimed_by = ${this.replicaId} FROM before
          WHERE c.id = before.id AND c.result IS NULL AND ${taken}
            AND EXISTS (SELECT 1 FROM task_leases WHERE task_id = ${taskId} AND owner = ${this.replicaId})
        RETURNING c.command, before.claimed_by IS NOT NULL AS again`;
      if (!claimed || !this.#run) return;
      const result = await this.#run(taskId, claimed.command, claimed.again);
      if (result === undefined) return;
      // Only while the claim is still this replica's, and so is the task (or the task has ended, which ends its
      // lease): a replica that lost the task gives no answer, and its new owner, which ran the command again, does.
      await this.#sql`
        WITH answered AS (
          UPDATE task_commands SET result = ${result}
            WHERE id = ${id} AND claimed_by = ${this.replicaId}
              AND (EXISTS (SELECT 1 FROM task_leases WHERE task_id = ${taskId} AND owner = ${this.replicaId})
                   OR EXISTS (SELECT 1 FROM tasks WHERE id = ${taskId} AND state IN ${this.#sql(TERMINAL_STATES)}))
          RETURNING id
        )
        SELECT pg_notify(${ANSWERS_CHANNEL}, id::text) FROM answered`;
    } catch (error) {
      this.#log(`running command ${id} for task ${taskId}: ${String(error)}`);
    }
  }

  async #sweep(): Promise<void> {
    if (Date.now() - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = Date.now();
    const before = new Date(Date.now() - KEEP_FEED_MS);
    // A change still marked for its notifications stays until they are queued (push-store.ts, queueMarked).
    await this.#sql`DELETE FROM task_changes WHERE created_at < ${before} AND NOT unqueued`;
    // Whoever asked has stopped waiting for an older command, answered or not.
    await this.#sql`DELETE FROM task_commands WHERE created_at < ${before}`;
  }
}

class CheckTimeout extends Error {
  constructor(ms: number) {
    super(`no answer in ${ms} ms`);
  }
}

/** A new replica id: marked as one that holds a liveness lock when it will (LIVE_OWNER_PREFIX). */
export function newReplicaId(holdsLivenessLock: boolean): string {
  return holdsLivenessLock ? `${LIVE_OWNER_PREFIX}${randomUUID()}` : randomUUID();
}
