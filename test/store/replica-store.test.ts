/**
 * What replicas share beyond the tables, on a real PostgreSQL: task leases (taken once when their owner stops
 * renewing), the change feed (every change, in order, to every follower), and commands (run once, by the owner or
 * by whoever takes the task over).
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { openStores, type Stores } from '../../src/store/open-stores.ts';
import { LIVENESS_LOCKS, PostgresReplicaStore } from '../../src/store/postgres/replica-store.ts';
import { LeaseLostError, type ReplicaStore } from '../../src/store/replica-store.ts';
import { withinMs } from '../../src/time-limit.ts';
import { eventually } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const LEASE_MS = 1_000;

const working = (id: string, timestamp = new Date().toISOString()) =>
  Task.fromJSON({ id, contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp }, history: [] });

describe.skipIf(postgresAdminUrl === undefined)('replicas on one PostgreSQL: leases, feed, commands', () => {
  let database: TestDatabase;
  let stores: Stores[];
  let replicas: ReplicaStore[];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  beforeEach(async () => {
    stores = await Promise.all([0, 1, 2].map(() => openStores(database.url, { leaseMs: LEASE_MS, log: () => {} })));
    replicas = stores.map((store) => store.replicas!);
    // Each takes its liveness lock, as a gateway's engine does (through serve and takeOver) before it runs a task.
    await Promise.all(replicas.map((replica) => replica.renew()));
  });
  afterEach(async () => {
    // Through the one replica whose pool no test kills: a pool whose connections were killed fails a query or two.
    await stores[2]!.sql!`TRUNCATE tasks, task_leases, task_changes, task_commands`;
    await Promise.all(stores.map((store) => store.close()));
  });

  /** A new task, inserted (and so leased) by replica `by`. */
  const record = (id: string, timestamp?: string, by = 0) =>
    stores[by]!.tasks.insert({
      agentId: 'echo',
      task: working(id, timestamp),
      link: { agentAddress: 'a', lastSeq: 0, request: '{}' },
    });
  const ended = (id: string) =>
    Task.fromJSON({
      id,
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
    });
  /** A change of a task written by replica `by`, with `feed` as its entry in the change feed. */
  const change = (id: string, seq: number, feed: string, by = 0) =>
    stores[by]!.tasks.update(id, working(id), seq, feed);

  it('leaves a renewed lease alone, and hands a lapsed one to exactly one of the replicas racing for it', async () => {
    const [owner, b, c] = replicas as [ReplicaStore, ReplicaStore, ReplicaStore];
    // Inserting a task leases it to the inserting replica, in the same transaction.
    await Promise.all(['t1', 't2', 't3'].map((id) => record(id)));
    expect([...(await owner.renew())].sort()).toEqual(['t1', 't2', 't3']);
    expect(await b.takeOver()).toEqual([]);
    expect(await b.leasedElsewhere()).toEqual(new Set(['t1', 't2', 't3']));

    await stores[0]!.tasks.update('t3', ended('t3'), 1); // t3 ended: its lease ends with that write
    expect([...(await owner.renew())].sort()).toEqual(['t1', 't2']);
    await sleep(LEASE_MS + 100); // the owner died: no renewal
    const [takenByB, takenByC] = await Promise.all([b.takeOver(), c.takeOver()]);
    expect([...takenByB, ...takenByC].sort()).toEqual(['t1', 't2']);
    expect(await owner.renew()).toEqual(new Set());
  });

  it('takes a task without a lease only once it has been quiet for a lease', async () => {
    // Rows of an earlier version, which leased a task in a statement of its own after inserting it.
    const insert = (id: string, timestamp: string) => stores[2]!.sql!`
      INSERT INTO tasks (id, agent_id, context_id, state, status_ts, task_json, agent_addr, last_seq, request)
      VALUES (${id}, 'echo', 'c', ${TaskState.TASK_STATE_WORKING}, ${timestamp}, '{}', 'a', 0, '{}')`;
    await insert('fresh', new Date().toISOString());
    await insert('old', new Date(Date.now() - 2 * LEASE_MS).toISOString());
    expect(await replicas[1]!.takeOver()).toEqual(['old']);
  });

  it('at start, takes at once the fresh leases of a replica whose process is gone, and only those', async () => {
    const [crashed, live] = replicas as [ReplicaStore, ReplicaStore];
    await record('of-crashed');
    await record('of-live', undefined, 1);
    // The crashed replica's connections end with its process (here: its pool and its liveness session).
    await stores[0]!.close();
    stores[0] = await openStores(database.url, { leaseMs: LEASE_MS, log: () => {} });
    const restarted = await openStores(database.url, { leaseMs: 60_000, log: () => {} });
    // A replica of an earlier version holds no liveness lock, and is alive: its fresh lease is left alone.
    const earlierVersion = new PostgresReplicaStore(stores[1]!.sql!, { leaseMs: LEASE_MS });
    await record('of-earlier-version');
    await stores[2]!
      .sql!`UPDATE task_leases SET owner = ${earlierVersion.replicaId} WHERE task_id = 'of-earlier-version'`;
    try {
      // Its leases have most of their time left; the live replica's stay with it.
      expect(await restarted.replicas!.takeOver()).toEqual(['of-crashed']);
      expect(await live.renew()).toEqual(new Set(['of-live']));
      expect(await crashed.leasedElsewhere().catch(() => undefined)).toBeUndefined(); // its pool is gone
      // After its start, a replica waits for leases to run out, as before.
      expect(await restarted.replicas!.takeOver()).toEqual([]);
    } finally {
      await restarted.close();
    }
  });

  it('refuses every write of a replica whose task another took over (fenced), even after the task ended', async () => {
    const taker = replicas[1]!;
    await record('fenced');
    await stores[0]!.tasks.update('fenced', working('fenced'), 1); // its own lease: written
    await sleep(LEASE_MS + 100); // it stalls past its lease
    expect(await taker.takeOver()).toContain('fenced');
    await expect(stores[0]!.tasks.update('fenced', working('fenced'), 2, 'stale')).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(stores[0]!.tasks.updateRequest('fenced', '{"stale":true}')).rejects.toBeInstanceOf(LeaseLostError);
    await stores[1]!.tasks.update('fenced', working('fenced'), 3);
    expect((await stores[2]!.tasks.get('echo', 'fenced'))?.link.lastSeq).toBe(3);
    // The new owner finishes it, which ends its lease: the stalled replica's late write is refused all the same.
    await stores[1]!.tasks.update('fenced', ended('fenced'), 4);
    expect(await taker.renew()).toEqual(new Set());
    await expect(stores[0]!.tasks.update('fenced', working('fenced'), 5)).rejects.toBeInstanceOf(LeaseLostError);
    const stored = await stores[2]!.tasks.get('echo', 'fenced');
    expect(stored?.link.lastSeq).toBe(4);
    expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Nor did its refused write reach the change feed.
    const [feed] = await stores[2]!.sql!<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM task_changes WHERE change = 'stale'`;
    expect(feed!.n).toBe(0);
  });

  /** The server process of the connection that holds `replica`'s liveness lock, seen from another replica's pool. */
  const livenessPid = async (replica: ReplicaStore) => {
    const rows = await stores[2]!.sql!<{ pid: number }[]>`
      SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted
        AND classid = ${LIVENESS_LOCKS}::int4::oid AND objid = hashtext(${replica.replicaId})::oid`;
    return rows[0]?.pid;
  };
  /** Ends server processes as a failover or an administrator would: the client hears only that they are gone. */
  const terminate = async (pids: number[]) => {
    await stores[2]!.sql!`SELECT pg_terminate_backend(pid) FROM unnest(${pids}::int4[]) AS pid`;
  };
  /** The server processes of `sql`'s pool, found by running on every one of its connections at once. */
  const poolPids = async (sql: NonNullable<Stores['sql']>) => {
    const rows = await Promise.all(
      [...Array(10)].map(() => sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`),
    );
    return [...new Set(rows.map(([row]) => row!.pid))];
  };
  /** Settles `promise` or fails the test after `ms`: a hung renewal must fail here, not at the test's timeout. */
  const within = <T>(ms: number, promise: Promise<T>) =>
    withinMs(promise, ms, () => new Error(`not settled within ${ms} ms`));

  it('takes its liveness lock again at the renewal after its connection was killed, and keeps leasing', async () => {
    const [owner, other] = replicas as [ReplicaStore, ReplicaStore];
    await record('kept');
    const before = await livenessPid(owner);
    expect(before).toBeDefined();
    await terminate([before!]);
    await eventually(async () => (await livenessPid(owner)) === undefined || undefined);
    expect(await within(2_000, owner.renew())).toEqual(new Set(['kept']));
    const after = await livenessPid(owner);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // It is alive again: a replica starting now leaves its lease alone.
    expect(await other.takeOver()).toEqual([]);
  });

  it('never hangs a renewal or a takeover when its liveness connection is killed under a check', async () => {
    // Another caller of the store at the moment a check fails (a takeover, which checks too): here the log of that
    // failure.
    let takeOverAtFailure = false;
    const takeOvers: Promise<unknown>[] = [];
    const store = await openStores(database.url, {
      leaseMs: LEASE_MS,
      log: (message) => {
        if (!takeOverAtFailure || !message.includes('liveness lock')) return;
        takeOverAtFailure = false;
        takeOvers.push(store.replicas!.takeOver());
      },
    });
    stores.push(store);
    const owner = store.replicas!;
    await owner.renew();
    await record('kept', undefined, stores.length - 1);
    // The kill races the check (the server's process may or may not be gone when the check is sent): several rounds.
    for (let round = 0; round < 5; round++) {
      const pid = await eventually(() => livenessPid(owner));
      takeOverAtFailure = true;
      await terminate([pid]);
      await within(2_000, owner.renew());
      await within(2_000, Promise.all(takeOvers.splice(0)));
      // Taken again by a later renewal, at the latest.
      await eventually(async () => {
        await within(2_000, owner.renew());
        return (await livenessPid(owner)) ?? undefined;
      });
    }
    expect(await within(2_000, owner.renew())).toEqual(new Set(['kept']));
  });

  it('renews within a bounded time when the server goes silent on its connections (a failover)', async () => {
    // A proxy whose existing connections stop passing bytes, without closing: what a server that vanished looks
    // like until TCP gives up, minutes later. New connections still reach the server (the new primary).
    const frozen: (() => void)[] = [];
    const sockets: Socket[] = [];
    const proxy = createServer((client) => {
      const server = connect(Number(new URL(database.url).port || 5432), '127.0.0.1');
      sockets.push(client, server);
      let passing = true;
      frozen.push(() => (passing = false));
      client.on('data', (data) => passing && server.write(data));
      server.on('data', (data) => passing && client.write(data));
      for (const [socket, peer] of [
        [client, server],
        [server, client],
      ] as const) {
        socket.on('error', () => undefined);
        socket.on('close', () => peer.destroy());
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(database.url);
      url.hostname = '127.0.0.1';
      url.port = String((proxy.address() as AddressInfo).port);
      const store = await openStores(url.toString(), { leaseMs: LEASE_MS, log: () => {} });
      stores.push(store);
      const owner = store.replicas!;
      await owner.renew();
      await record('kept', undefined, stores.length - 1);
      expect(await owner.renew()).toEqual(new Set(['kept']));
      for (const freeze of frozen) freeze();
      // As the engine does, each renewal is given up after a quarter of a lease: one may be (its pool connection is
      // silent), a later one renews on a new connection. Before, the liveness check on the silent session held every
      // renewal back. (The old server process here still holds the lock, so the lock itself cannot be checked.)
      const renewed = await eventually(
        () => within(LEASE_MS / 4 + 500, owner.renew()).catch(() => undefined),
        3 * LEASE_MS,
      );
      expect(renewed).toEqual(new Set(['kept']));
    } finally {
      proxy.close();
      for (const socket of sockets) socket.destroy();
    }
  });

  it('renews and follows again once the connections of its pool and its listener were killed', async () => {
    const [owner, follower] = replicas as [ReplicaStore, ReplicaStore];
    await Promise.all(
      replicas.map((replica) =>
        replica.serve(
          () => false,
          async () => '',
        ),
      ),
    );
    await record('kept');
    const heard: string[] = [];
    await follower.follow('kept', (change) => heard.push(change));
    const listeners = await stores[2]!.sql!<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'listen %'
        AND pid <> pg_backend_pid()`;
    expect(listeners.length).toBeGreaterThan(0);
    const pools = [...(await poolPids(stores[0]!.sql!)), ...(await poolPids(stores[1]!.sql!))];
    await terminate([...pools, ...listeners.map((row) => row.pid), (await livenessPid(owner))!]);
    // A query on a killed connection fails (this driver fails the first one after it reconnects too): renewals, each
    // settled in a bounded time, soon renew the lease and hold the lock again.
    const renewed = await eventually(async () => {
      const held = await within(2_000, owner.renew()).catch(() => undefined);
      return held && (await livenessPid(owner)) !== undefined ? held : undefined;
    });
    expect(renewed).toEqual(new Set(['kept']));
    // The follower hears a change published after the kill (its listener is back, or reads it after reconnecting).
    await eventually(() =>
      change('kept', 1, 'after the kill').then(
        () => true,
        () => undefined,
      ),
    );
    await eventually(() => heard.includes('after the kill') || undefined);
  });

  it('commits the writes of one turn in one statement, and answers one turn’s push-config lookups in one query', async () => {
    const statements: string[] = [];
    const store = await openStores(database.url, {
      leaseMs: LEASE_MS,
      log: () => {},
      onStatement: (statement) => statements.push(statement),
    });
    stores.push(store);
    statements.length = 0; // the migrations' check at open
    const count = (pattern: RegExp) => statements.splice(0).filter((statement) => pattern.test(statement)).length;
    const ids = [...Array(20)].map((_, index) => `batch-${index}`);
    await Promise.all(
      ids.map((id) =>
        store.tasks.insert({
          agentId: 'echo',
          task: working(id),
          link: { agentAddress: 'a', lastSeq: 0, request: '{}' },
        }),
      ),
    );
    // One statement for the turn: inserts, leases, updates, feed and notifications together, no BEGIN or COMMIT.
    const writes = () => {
      const sent = statements.splice(0);
      return {
        tasks: sent.filter((statement) => /\btasks\b/.test(statement)).length,
        begins: sent.filter((statement) => /^\s*begin/i.test(statement)).length,
      };
    };
    expect(writes()).toEqual({ tasks: 1, begins: 0 });
    await Promise.all(ids.map((id, index) => store.tasks.update(id, working(id), 1, `change ${index}`)));
    expect(writes()).toEqual({ tasks: 1, begins: 0 });
    const [fed] = await stores[2]!.sql!<{ n: number }[]>`SELECT count(*)::int AS n FROM task_changes`;
    expect(fed!.n).toBe(20);

    await store.push.saveConfig({
      taskId: 'batch-3',
      id: 'c1',
      url: 'https://hook.example/1',
      protocolVersion: '1.0',
      createdAt: new Date().toISOString(),
    });
    statements.length = 0;
    const configs = await Promise.all(ids.map((id) => store.push.listConfigs(id)));
    expect(count(/push_configs/)).toBe(1);
    expect(configs.map((found) => found.map((config) => config.id))).toEqual(
      ids.map((id) => (id === 'batch-3' ? ['c1'] : [])),
    );
  });

  it('commits a task’s writes, and its feed entries, in the order they were made while transactions overlap', async () => {
    const ids = ['o1', 'o2', 'o3', 'o4', 'o5'];
    await Promise.all(ids.map((id) => record(id)));
    // One write of every task per turn, none awaited: each turn's transaction starts while earlier ones travel.
    const writes: Promise<void>[] = [];
    for (let seq = 1; seq <= 30; seq++) {
      for (const id of ids) writes.push(change(id, seq, `${id}:${seq}`));
      await new Promise((next) => setImmediate(next));
    }
    await Promise.all(writes);
    const sql = stores[2]!.sql!;
    const rows = await sql<{ id: string; last_seq: number }[]>`SELECT id, last_seq FROM tasks ORDER BY id`;
    expect(rows.map((row) => [row.id, row.last_seq])).toEqual(ids.map((id) => [id, 30]));
    for (const id of ids) {
      const fed = await sql<{ change: string }[]>`SELECT change FROM task_changes WHERE task_id = ${id} ORDER BY id`;
      expect(fed.map((row) => row.change)).toEqual([...Array(30)].map((_, index) => `${id}:${index + 1}`));
    }
  });

  it('lets a stopping replica’s leases go at once', async () => {
    await record('t');
    await replicas[0]!.releaseAll();
    expect(await replicas[1]!.takeOver()).toEqual(['t']);
  });

  it('hands every follower each change committed after it began following, in order', async () => {
    const [, b, c] = replicas as [ReplicaStore, ReplicaStore, ReplicaStore];
    await Promise.all(
      replicas.map((replica) =>
        replica.serve(
          () => false,
          async () => '',
        ),
      ),
    );
    await record('t');
    await record('other');
    await change('t', 1, 'before');
    const heardB: string[] = [];
    const heardC: string[] = [];
    const { stop: stopB } = await b.follow('t', (change) => heardB.push(change));
    await c.follow('t', (change) => heardC.push(change));
    await b.follow('other', (change) => heardB.push(`other:${change}`));
    // A large change (NOTIFY payloads end at 8000 bytes) and many at once, not awaited one by one.
    const large = 'x'.repeat(20_000);
    await Promise.all(['1', '2', large, '4', '5'].map((entry, index) => change('t', 2 + index, entry)));
    await eventually(() => heardC.length === 5 || undefined);
    await eventually(() => heardB.length === 5 || undefined);
    expect(heardB).toEqual(['1', '2', large, '4', '5']);
    expect(heardC).toEqual(heardB);
    stopB();
    await change('t', 7, '6');
    await eventually(() => heardC.length === 6 || undefined);
    expect(heardB).toHaveLength(5);
  });

  it('starts a follow at the task it returns: a follower hears every change after it, and none it holds', async () => {
    const b = replicas[1]!;
    await b.serve(
      () => false,
      async () => '',
    );
    await record('t');
    for (let round = 0; round < 10; round++) {
      const last = (round + 1) * 100;
      const writes = (async () => {
        for (let seq = last - 29; seq <= last; seq++) await change('t', seq, String(seq));
      })();
      await sleep(Math.random() * 30);
      const heard: number[] = [];
      const { stop, task } = await b.follow('t', (entry) => heard.push(Number(entry)));
      await writes;
      const at = task!.link.lastSeq;
      await eventually(() => at === last || heard.at(-1) === last || undefined);
      // The task's reply seq is its last change's: the follower hears exactly those after it, in order, once each.
      const written = Array.from({ length: 30 }, (_, i) => last - 29 + i);
      expect(heard).toEqual(written.filter((seq) => seq > at));
      stop();
    }
  });

  it('runs a command once, on the owner; one for a dead owner’s task waits for whoever takes it over', async () => {
    const [owner, b, c] = replicas as [ReplicaStore, ReplicaStore, ReplicaStore];
    const ran: string[] = [];
    const serve = (replica: ReplicaStore, name: string, owned: string[]) =>
      replica.serve(
        (taskId) => owned.includes(taskId),
        async (taskId, command) => {
          ran.push(`${name}:${taskId}:${command}`);
          return `${command} done by ${name}`;
        },
      );
    await Promise.all([serve(owner, 'owner', ['t']), serve(b, 'b', []), serve(c, 'c', [])]);
    await record('t');
    expect(await b.request('t', 'cancel', 5_000)).toEqual({ kind: 'answered', outcome: 'cancel done by owner' });
    expect(ran).toEqual(['owner:t:cancel']);

    // Nobody runs "orphan" yet: the request waits, and the replica that takes it over (its leaseholder) answers.
    await record('orphan', undefined, 2);
    const answer = b.request('orphan', 'follow-up', 5_000);
    await sleep(100);
    expect(ran).toHaveLength(1);
    await c.runWaiting('orphan');
    expect(await answer).toEqual({ kind: 'answered', outcome: 'follow-up done by c' });
    // Nobody at all: the caller hears nothing, after its wait.
    expect(await b.request('nobody', 'cancel', 200)).toEqual({ kind: 'unanswered' });
  });

  it('runs a command announced while its owner was not listening (its listener reconnecting, say), once', async () => {
    const [owner, b] = replicas as [ReplicaStore, ReplicaStore];
    const ran: string[] = [];
    await record('t');
    const answer = b.request('t', 'cancel', 5_000);
    await sleep(LEASE_MS / 10); // announced, and nobody heard it
    await owner.serve(
      (taskId) => taskId === 't',
      async (taskId, command) => {
        ran.push(`${taskId}:${command}`);
        await sleep(LEASE_MS); // announced again while it runs (every third of a lease)
        return 'cancelled';
      },
    );
    expect(await answer).toEqual({ kind: 'answered', outcome: 'cancelled' });
    expect(ran).toEqual(['t:cancel']);
  });

  it('runs again, on the task’s new owner, a command its last owner claimed and never answered; the last owner’s late answer is refused', async () => {
    const [owner, b, c] = replicas as [ReplicaStore, ReplicaStore, ReplicaStore];
    const runs: { name: string; again: boolean }[] = [];
    let stalled!: (answer: string) => void;
    await owner.serve(
      (taskId) => taskId === 'claimed',
      (_taskId, _command, again) => {
        runs.push({ name: 'owner', again });
        // It claimed the command, and stalls past its lease before answering.
        return new Promise((resolve) => (stalled = resolve));
      },
    );
    await c.serve(
      () => false,
      async (_taskId, command, again) => {
        runs.push({ name: 'c', again });
        return `${command} done by c`;
      },
    );
    await record('claimed');
    const answer = b.request('claimed', 'cancel', 10_000);
    await eventually(() => runs.length === 1 || undefined);
    await sleep(LEASE_MS + 100);
    expect(await c.takeOver()).toEqual(['claimed']);
    await c.runWaiting('claimed');
    expect(await answer).toEqual({ kind: 'answered', outcome: 'cancel done by c' });
    expect(runs).toEqual([
      { name: 'owner', again: false },
      { name: 'c', again: true },
    ]);
    // The stalled owner answers at last: refused (the claim and the task are c's), c's answer stays.
    stalled('cancel done by the stalled owner');
    await sleep(200);
    const [row] = await stores[2]!.sql!<{ result: string; claimed_by: string }[]>`
      SELECT result, claimed_by FROM task_commands WHERE task_id = 'claimed'`;
    expect(row).toEqual({ result: 'cancel done by c', claimed_by: c.replicaId });
    // Nor does a replica that lost the task claim a command sent to it afterwards: it is left to the new owner.
    const late = b.request('claimed', 'follow-up', 300);
    expect(await late).toEqual({ kind: 'unanswered' });
    expect(runs).toHaveLength(2);
  });

  it('hands the asking replica a command whose task ended unanswered, its claimer dead', async () => {
    const [owner, b] = replicas as [ReplicaStore, ReplicaStore];
    await owner.serve(
      (taskId) => taskId === 'ended-unanswered',
      async (taskId) => {
        // The command ends the task (a cancel that took effect), and its replica dies before answering.
        await stores[0]!.tasks.update(taskId, ended(taskId), 1);
        await stores[0]!.close();
        return 'never written';
      },
    );
    await record('ended-unanswered');
    // Far sooner than the wait: nobody is left to answer, and the caller's replica answers from the ended task.
    const started = Date.now();
    expect(await b.request('ended-unanswered', 'cancel', 60_000)).toEqual({ kind: 'ended' });
    expect(Date.now() - started).toBeLessThan(30_000);
    const [row] = await stores[2]!.sql!<{ result: string | null; claimed_by: string }[]>`
      SELECT result, claimed_by FROM task_commands WHERE task_id = 'ended-unanswered'`;
    expect(row).toEqual({ result: null, claimed_by: b.replicaId });
    stores[0] = await openStores(database.url, { leaseMs: LEASE_MS, log: () => {} });
  });

  it('answers at once a command whose task had ended when it was written: no owner is left to answer it', async () => {
    // A lease of ten minutes: the first wait would be a third of it.
    const slow = await openStores(database.url, { leaseMs: 600_000, log: () => {} });
    try {
      await record('ended-before');
      await stores[0]!.tasks.update('ended-before', ended('ended-before'), 1);
      expect(await slow.replicas!.request('ended-before', 'follow-up', 120_000)).toEqual({ kind: 'ended' });
    } finally {
      await slow.close();
    }
  }, 20_000);

  it('wakes the asker of a command whose task then ends unanswered: it answers from the ended task at once', async () => {
    const slow = await openStores(database.url, { leaseMs: 600_000, log: () => {} });
    try {
      // Listening for answers, as every replica does once it serves.
      await slow.replicas!.serve(
        () => false,
        async () => undefined,
      );
      await record('ends-later');
      const answer = slow.replicas!.request('ends-later', 'follow-up', 120_000);
      // Written and announced, nobody claims it; then the task ends on its owner (the same message, sent there).
      const sql = stores[2]!.sql!;
      while ((await sql`SELECT id FROM task_commands WHERE task_id = 'ends-later'`).length === 0)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await stores[0]!.tasks.update('ends-later', ended('ends-later'), 1);
      // Before, the asker looked again only after a third of its lease (here 200 s).
      expect(await answer).toEqual({ kind: 'ended' });
    } finally {
      await slow.close();
    }
  }, 20_000);
});
