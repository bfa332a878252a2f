/**
 * Push-notification delivery against a real webhook receiver on 127.0.0.1. Made-up host names resolve through an
 * injected resolver; the ones that resolve to refused addresses must be stopped before any connection is made.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import { PushConfigError, PushNotificationService, type PushServiceOptions } from '../../src/push/push-service.ts';
import { WebhookGuard, WebhookRefusedError, type ResolvedAddress } from '../../src/push/webhook-guard.ts';
import { SqlitePushStore } from '../../src/store/sqlite/push-store.ts';
import type { PushConfigRecord, PushStore } from '../../src/store/push-store.ts';
import { decodeChange, encodeChange } from '../../src/bridge/replica-messages.ts';
import { PostgresPushStore } from '../../src/store/postgres/push-store.ts';
import { openStores } from '../../src/store/open-stores.ts';
import { createTestDatabase, postgresAdminUrl } from '../support/postgres.ts';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Never answer (the request hangs until the server closes). */
  hang?: boolean;
}

interface Receiver {
  port: number;
  received: Received[];
  url(path: string): string;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A webhook receiver on 127.0.0.1 that records every request and answers as `answer` says. */
async function startReceiver(
  answer: (request: Received, index: number) => Answer = () => ({ status: 200 }),
  port = 0,
): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const reply = answer(request, received.length - 1);
      if (reply.hang) return;
      res.writeHead(reply.status, reply.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanups.push(close);
  return { port: actualPort, received, url: (path) => `http://127.0.0.1:${actualPort}${path}`, close };
}

const logs: string[] = [];
const quiet = (message: string) => logs.push(message);
/** Receivers on 127.0.0.1 over http, short backoffs. */
const LOCAL: PushServiceOptions = {
  allowNetworks: ['127.0.0.1/32'],
  requireHttps: false,
  backoffBaseMs: 20,
  maxBackoffMs: 200,
  log: quiet,
};

function serviceWith(options: PushServiceOptions, store: PushStore = new SqlitePushStore(':memory:')) {
  const service = new PushNotificationService(store, options);
  cleanups.push(() => store.close());
  cleanups.push(() => service.stop());
  return { service, store };
}

/** Answers a fixed table of names; anything else does not exist. */
function resolverOf(table: Record<string, string | (() => string)>) {
  return async (hostname: string): Promise<ResolvedAddress[]> => {
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const address = typeof entry === 'function' ? entry() : entry;
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const task = Task.fromJSON({
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' },
});
const statusEvent = StreamResponse.fromJSON({
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } },
});
const artifactEvent = StreamResponse.fromJSON({
  artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a1', parts: [{ text: 'hello' }] } },
});
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('push notification configs', () => {
  it('are created, replaced by id, listed, read and deleted', async () => {
    const { service } = serviceWith(LOCAL);
    const generated = await service.createConfig({
      taskId: 't1',
      url: 'http://127.0.0.1:9/a',
      protocolVersion: '1.0',
      owner: 'alice',
    });
    expect(generated.id).toMatch(UUID);
    await service.createConfig({
      taskId: 't1',
      id: 'mine',
      url: 'http://127.0.0.1:9/b',
      token: 'tok',
      protocolVersion: '0.3',
    });
    await service.createConfig({
      taskId: 't1',
      id: 'mine',
      url: 'http://127.0.0.1:9/c',
      authentication: { scheme: 'Bearer', credentials: 's' },
      protocolVersion: '1.0',
    });
    expect((await service.listConfigs('t1')).map((config) => config.url).sort()).toEqual([
      'http://127.0.0.1:9/a',
      'http://127.0.0.1:9/c',
    ]);
    expect(await service.getConfig('t1', 'mine')).toMatchObject({
      url: 'http://127.0.0.1:9/c',
      protocolVersion: '1.0',
      authentication: { scheme: 'Bearer', credentials: 's' },
    });
    expect((await service.getConfig('t1', 'mine'))?.token).toBeUndefined();
    expect(await service.getConfig('t1', generated.id)).toMatchObject({ owner: 'alice', protocolVersion: '1.0' });
    expect(await service.getConfig('t2', 'mine')).toBeUndefined();
    expect(await service.deleteConfig('t1', 'mine')).toBe(true);
    expect(await service.deleteConfig('t1', 'mine')).toBe(false);
    expect(await service.listConfigs('t1')).toHaveLength(1);
  });

  it('are refused with a reason when the URL can never be a webhook', async () => {
    const { service } = serviceWith({});
    const create = (url: string, extra: object = {}) =>
      service.createConfig({ taskId: 't1', url, protocolVersion: '1.0', ...extra });
    await expect(create('http://hooks.example.com/')).rejects.toThrow(
      new PushConfigError('the webhook URL must use https'),
    );
    await expect(create('https://10.0.0.7/hook')).rejects.toThrow('10.0.0.7 is a private address (10.0.0.0/8)');
    await expect(create('https://169.254.169.254/')).rejects.toThrow('cloud metadata address');
    await expect(create('nonsense')).rejects.toThrow('not a valid absolute URL');
    await expect(create('https://hooks.example.com/', { token: 'a\r\nX-Evil: 1' })).rejects.toThrow('line breaks');
    expect(await service.listConfigs('t1')).toEqual([]);
  });
});

describe('push notification delivery', () => {
  it('on a store that marks changes, keeps delivering while its look for changes other replicas left waits', async () => {
    // That look waits on other replicas' row locks; awaited by the pump, it held every later delivery behind it.
    const receiver = await startReceiver();
    const sqlite = new SqlitePushStore(':memory:');
    const waiting = Object.assign(sqlite, {
      marksChanges: true,
      queueMarked: () => new Promise<number>(() => undefined),
    }) as unknown as PushStore;
    const { service } = serviceWith({ ...LOCAL, readChange: decodeChange }, waiting);
    await service.createConfig({ taskId: 't1', id: 'c', url: receiver.url('/hook'), protocolVersion: '1.0' });
    service.start();
    // One webhook's deliveries go one at a time: the second waits for the pump after the first.
    await service.notify(task, [statusEvent, artifactEvent]);
    await until(() => receiver.received.length === 2);
  });

  it('on a store that marks changes, queues a new task’s own event before the marked changes that follow it', async () => {
    // The new task is queued directly (no change marks it), its first change from its mark: the lookup of the first
    // may take longer than the second's whole way, and a webhook would then hear the change before the task.
    const order: string[] = [];
    const sqlite = new SqlitePushStore(':memory:');
    const marking = Object.assign(sqlite, {
      marksChanges: true,
      mayHaveConfigs: () => true,
      listConfigs: async (taskId: string) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return [{ taskId, id: 'c', url: 'https://hooks.example/a', protocolVersion: '1.0', createdAt: '' }];
      },
      enqueue: async () => void order.push('the task'),
      queueMarked: async () => {
        order.push('its first change');
        return 0;
      },
    }) as unknown as PushStore;
    const { service } = serviceWith({ ...LOCAL, readChange: decodeChange }, marking);
    void service.notify(task, [StreamResponse.fromJSON({ task: Task.toJSON(task) })]);
    void service.changed(task, [statusEvent]);
    await until(() => order.length === 2);
    expect(order).toEqual(['the task', 'its first change']);
  });

  it('looks up no config for a task change while the store holds none, and does once one is saved', async () => {
    const receiver = await startReceiver();
    const { service, store } = serviceWith(LOCAL);
    const lookups = vi.spyOn(store, 'listConfigs');
    await service.notify(task, [statusEvent]);
    expect(lookups).not.toHaveBeenCalled();
    await service.createConfig({ taskId: 't1', id: 'v1', url: receiver.url('/v1'), protocolVersion: '1.0' });
    service.start();
    await service.notify(task, [statusEvent]);
    expect(lookups).toHaveBeenCalledWith('t1');
    await until(() => receiver.received.length === 1);
  });

  it('posts each event to each webhook in its version’s shape, with the token, the authorization and the event id', async () => {
    const receiver = await startReceiver();
    const { service, store } = serviceWith(LOCAL);
    await service.createConfig({
      taskId: 't1',
      id: 'v1',
      url: receiver.url('/v1'),
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
      protocolVersion: '1.0',
    });
    await service.createConfig({
      taskId: 't1',
      id: 'v03',
      url: receiver.url('/v03'),
      token: 'tok-3',
      protocolVersion: '0.3',
    });
    service.start();
    await service.notify(task, [statusEvent, artifactEvent]);
    await until(() => receiver.received.length === 4);

    const v1 = receiver.received.filter((request) => request.path === '/v1');
    expect(v1.map((request) => JSON.parse(request.body))).toEqual([
      StreamResponse.toJSON(statusEvent),
      StreamResponse.toJSON(artifactEvent),
    ]);
    for (const request of v1) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/a2a+json');
      expect(request.headers.authorization).toBe('Bearer secret');
      expect(request.headers['x-a2a-notification-token']).toBe('tok-1');
      expect(request.headers['a2a-notification-id']).toMatch(UUID);
    }
    const v03 = receiver.received.filter((request) => request.path === '/v03');
    // v0.3 webhooks receive the task as it stands, as the SDK sends them.
    expect(v03.map((request) => JSON.parse(request.body))).toEqual([
      { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'working', timestamp: '2026-01-01T00:00:00.000Z' } },
      { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'working', timestamp: '2026-01-01T00:00:00.000Z' } },
    ]);
    expect(v03[0]?.headers['content-type']).toBe('application/json');
    expect(v03[0]?.headers['x-a2a-notification-token']).toBe('tok-3');
    expect(v03[0]?.headers.authorization).toBeUndefined();
    // One id per event, the same for every webhook told of it.
    expect(v03.map((request) => request.headers['a2a-notification-id'])).toEqual(
      v1.map((request) => request.headers['a2a-notification-id']),
    );
    expect(v1[0]?.headers['a2a-notification-id']).not.toBe(v1[1]?.headers['a2a-notification-id']);

    await until(() => service.counters.delivered === 4);
    expect(await store.deliveries('t1')).toEqual([]);
    expect(service.counters).toEqual({ delivered: 4, failed: 0, retried: 0 });
  });

  it('retries 5xx answers with backoff and gives up on other 4xx and after the last attempt', async () => {
    const receiver = await startReceiver((request, index): Answer => {
      if (request.path === '/flaky')
        return index < 2 ? { status: 503, headers: index === 0 ? { 'retry-after': '0' } : {} } : { status: 204 };
      if (request.path === '/gone') return { status: 410 };
      return { status: 500 };
    });
    const { service, store } = serviceWith({ ...LOCAL, maxAttempts: 3 });
    await service.createConfig({ taskId: 't1', id: 'flaky', url: receiver.url('/flaky'), protocolVersion: '1.0' });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.delivered === 1);
    expect(receiver.received.map((request) => request.path)).toEqual(['/flaky', '/flaky', '/flaky']);
    expect(new Set(receiver.received.map((request) => request.headers['a2a-notification-id'])).size).toBe(1);
    expect(service.counters).toEqual({ delivered: 1, failed: 0, retried: 2 });
    await service.deleteConfig('t1', 'flaky');

    await service.createConfig({ taskId: 't1', id: 'gone', url: receiver.url('/gone'), protocolVersion: '1.0' });
    await service.createConfig({ taskId: 't1', id: 'broken', url: receiver.url('/broken'), protocolVersion: '1.0' });
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.failed === 2);
    const rows = await store.deliveries('t1');
    expect(rows.find((row) => row.configId === 'gone')).toMatchObject({
      state: 'failed',
      attempts: 1,
      lastError: 'the receiver answered 410',
    });
    expect(rows.find((row) => row.configId === 'broken')).toMatchObject({
      state: 'failed',
      attempts: 3,
      lastError: 'the receiver answered 500',
    });
    expect(receiver.received.filter((request) => request.path === '/broken')).toHaveLength(3);
    expect(
      logs.some((line) =>
        line.includes('task t1 to webhook gone failed after 1 attempt(s): the receiver answered 410'),
      ),
    ).toBe(true);
  });

  it('keeps what a receiver that was down did not get, and delivers it after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'logos-a2a-push-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.db');
    const down = await startReceiver();
    await down.close(); // nothing listens on this port now
    const url = `http://127.0.0.1:${down.port}/hook`;

    const first = serviceWith({ ...LOCAL, backoffBaseMs: 50 }, new SqlitePushStore(file));
    await first.service.createConfig({ taskId: 't1', id: 'c', url, token: 'tok', protocolVersion: '1.0' });
    first.service.start();
    await first.service.notify(task, [statusEvent, artifactEvent]);
    await until(() => first.service.counters.retried >= 1);
    await first.service.stop();
    await first.store.close();

    const second = serviceWith(LOCAL, new SqlitePushStore(file));
    const pending = await second.store.deliveries('t1');
    expect(pending.map((row) => row.state)).toEqual(['pending', 'pending']);
    expect(pending[0]?.attempts).toBeGreaterThanOrEqual(1);
    expect(pending[0]?.lastError).toMatch(/ECONNREFUSED/);
    const up = await startReceiver(() => ({ status: 200 }), down.port);
    second.service.start();
    await until(() => up.received.length === 2);
    expect(up.received.map((request) => JSON.parse(request.body))).toEqual([
      StreamResponse.toJSON(statusEvent),
      StreamResponse.toJSON(artifactEvent),
    ]);
    expect(up.received.map((request) => request.headers['a2a-notification-id'])).toEqual(
      pending.map((row) => row.eventId),
    );
    expect(up.received[0]?.headers['x-a2a-notification-token']).toBe('tok');
    await until(async () => (await second.store.deliveries('t1')).length === 0);
  });

  it('stop cuts short an attempt that does not end in time and leaves its delivery pending', async () => {
    const receiver = await startReceiver(() => ({ status: 200, hang: true }));
    const { service, store } = serviceWith(LOCAL);
    await service.createConfig({ taskId: 't1', id: 'c', url: receiver.url('/hook'), protocolVersion: '1.0' });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => receiver.received.length === 1);
    await service.stop(50);
    expect(await store.deliveries('t1')).toMatchObject([{ state: 'pending', attempts: 0 }]);
    expect(service.counters).toEqual({ delivered: 0, failed: 0, retried: 0 });
  });
});

describe.skipIf(postgresAdminUrl === undefined)('push notifications from an outbox shared by replicas', () => {
  /** PostgreSQL's stores mark changes in the change feed: the service reads them as the gateway does. */
  const SHARED: PushServiceOptions = { ...LOCAL, readChange: decodeChange };

  /** Replicas' push stores on one new database, with a claim of `claimMs`. */
  async function sharedOutbox(claimMs: number) {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const replica = async () => {
      const stores = await openStores(database.url);
      cleanups.push(() => stores.close());
      return new PostgresPushStore(stores.sql!, { claimMs });
    };
    return { replica };
  }

  it('starts every delivery it claims: more webhooks due than attempts at once wait for an attempt, not a claim', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const stuck = await startReceiver(() => ({ status: 200, hang: true }));
    const { replica } = await sharedOutbox(30_000);
    const { service } = serviceWith({ ...SHARED, concurrency: 3 }, await replica());
    // Two webhooks that never answer hold two of the three attempts; the other four share the third.
    const tasks = Array.from({ length: 6 }, (_, i) => Task.fromJSON({ ...(Task.toJSON(task) as object), id: `t${i}` }));
    for (const [i, each] of tasks.entries()) {
      const url = (i < 2 ? stuck : receiver).url(`/hook-${i}`);
      await service.createConfig({ taskId: each.id, id: 'c', url, protocolVersion: '1.0' });
    }
    service.start();
    for (const each of tasks) await service.notify(each, [statusEvent]);
    // Before, the pump claimed as many more as it had attempts in flight, and those it did not start waited out their
    // claim (here 30 s).
    await until(() => receiver.received.length === 4);
    await stuck.close();
  });

  it('delivers what a replica that stopped mid-queue left, on a replica that had nothing of its own to do', async () => {
    const receiver = await startReceiver((_request, index) =>
      index === 0 ? { status: 200, hang: true } : { status: 200 },
    );
    const { replica } = await sharedOutbox(300);
    const idle = serviceWith({ ...SHARED, sharedPollMs: 100 }, await replica());
    idle.service.start(); // looks once, and finds nothing
    const owner = serviceWith(SHARED, await replica());
    await owner.service.createConfig({ taskId: 't1', id: 'c', url: receiver.url('/hook'), protocolVersion: '1.0' });
    owner.service.start();
    await owner.service.notify(task, [statusEvent, artifactEvent, statusEvent]);
    await until(() => receiver.received.length === 1);
    await owner.service.stop(50); // its attempt cut short: the first delivery stays claimed, the rest wait behind it
    await until(() => receiver.received.length === 4);
    await until(async () => (await owner.store.deliveries('t1')).length === 0);
    expect(idle.service.counters.delivered).toBe(3);
  });
  it('queues a backlog of marked changes larger than one statement binds, a part per look', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const stores = await openStores(database.url);
    cleanups.push(() => stores.close());
    const sql = stores.sql!;
    // 1,200 tasks with a webhook each, 7 marked changes each: 8,400 deliveries, 84,000 parameters in one statement.
    await sql`INSERT INTO push_configs (task_id, config_id, url, protocol_version, created_at)
      SELECT 't' || i, 'c', 'https://hooks.example/a', '1.0', '' FROM generate_series(1, 1200) AS i`;
    await sql`INSERT INTO task_changes (task_id, change, unqueued)
      SELECT 't' || (i % 1200 + 1), 'x', true FROM generate_series(1, 8400) AS i`;
    const build = (_change: string, configs: PushConfigRecord[]) =>
      configs.map((config) => ({
        eventId: randomUUID(),
        taskId: config.taskId,
        configId: config.id,
        url: config.url,
        headers: {},
        body: '{}',
      }));
    // Before, one statement took them all, and failed on every look: MAX_PARAMETERS_EXCEEDED.
    const first = await stores.push.queueMarked({ olderThanMs: 0 }, build, Date.now());
    expect(first).toBe(7_000);
    expect(await stores.push.queueMarked({ olderThanMs: 0 }, build, Date.now())).toBe(1_400);
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM push_outbox`;
    expect(row?.n).toBe(8_400);
  }, 60_000);

  it('queues the changes a replica committed and did not live to queue: once and in order, whoever asks', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const [dead, alive] = [await openStores(database.url), await openStores(database.url)];
    cleanups.push(
      () => dead.close(),
      () => alive.close(),
    );
    const receiver = await startReceiver();
    const taskId = 't1';
    await dead.tasks.insert({ agentId: 'echo', task, link: { agentAddress: 'a', lastSeq: 0, request: '{}' } });
    await dead.push.saveConfig({
      taskId,
      id: 'c',
      url: receiver.url('/hook'),
      protocolVersion: '1.0',
      createdAt: new Date().toISOString(),
    });
    // Two changes committed as the engine commits them (with their feed entries), then nothing: the replica died.
    const working = { task, events: [statusEvent] };
    const completed = Task.fromJSON({ ...(Task.toJSON(task) as object), status: { state: 'TASK_STATE_COMPLETED' } });
    const ended = {
      task: completed,
      events: [artifactEvent, StreamResponse.fromJSON({ task: Task.toJSON(completed) })],
    };
    await dead.tasks.update(taskId, working.task, 1, encodeChange(working));
    await dead.tasks.update(taskId, ended.task, 2, encodeChange(ended));
    // A change of a task without a webhook is not marked at all.
    await dead.tasks.insert({
      agentId: 'echo',
      task: { ...task, id: 't2' },
      link: { agentAddress: 'a', lastSeq: 0, request: '{}' },
    });
    await dead.tasks.update('t2', { ...task, id: 't2' }, 1, encodeChange({ ...working, task: { ...task, id: 't2' } }));

    // Every replica's pump and the task's next owner ask at once, several times: the three events are queued once.
    const built: string[] = [];
    const build = (change: string, configs: PushConfigRecord[]) =>
      configs.map((config, index) => {
        built.push(change);
        return {
          eventId: `e${built.length}`,
          taskId,
          configId: config.id,
          url: config.url,
          headers: {},
          body: `${index}`,
        };
      });
    const asks = [dead, alive, alive, dead].map((stores, i) =>
      stores.push.queueMarked(i % 2 === 0 ? { olderThanMs: 0 } : { taskIds: [taskId, 't2'] }, build, Date.now()),
    );
    expect((await Promise.all(asks)).reduce((sum, queued) => sum + queued, 0)).toBe(2);
    expect(built.map((change) => decodeChange(change).task.status?.state)).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    expect((await alive.push.deliveries(taskId)).map((delivery) => delivery.eventId)).toEqual(['e1', 'e2']);
    expect(await alive.push.queueMarked({ olderThanMs: 0 }, build, Date.now())).toBe(0);

    // Through the service, a replica that has nothing of its own to do queues and delivers what was left, even
    // beside a marked change that cannot be read (its mark goes, logged; it held back every other's before).
    await dead.tasks.update(taskId, completed, 3, encodeChange(ended));
    await dead.sql!`INSERT INTO task_changes (task_id, change, unqueued) VALUES (${taskId}, 'not a change', true)`;
    const { service } = serviceWith({ ...SHARED, sharedPollMs: 100 }, alive.push);
    service.start();
    await until(() => receiver.received.length === 4, 20_000);
    const bodies = receiver.received.slice(2).map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(Object.keys(bodies[0]!)).toEqual(['artifactUpdate']);
    expect(Object.keys(bodies[1]!)).toEqual(['task']);
    await until(async () => (await alive.sql!`SELECT id FROM task_changes WHERE unqueued`).length === 0);
  }, 40_000);
});

describe('push notification SSRF protection', () => {
  it('refuses a host name that resolves to a private address, without retrying', async () => {
    const { service, store } = serviceWith({
      resolver: resolverOf({ 'hook.example': '10.0.0.7' }),
      backoffBaseMs: 20,
      log: quiet,
    });
    await service.createConfig({ taskId: 't1', id: 'c', url: 'https://hook.example/a2a', protocolVersion: '1.0' });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.failed === 1);
    expect(await store.deliveries('t1')).toMatchObject([
      {
        state: 'failed',
        attempts: 1,
        lastError:
          'webhook host hook.example resolves to a refused address: 10.0.0.7 is a private address (10.0.0.0/8)',
      },
    ]);
    expect(service.counters.retried).toBe(0);
  });

  it('refuses the metadata service even in development', async () => {
    const { service, store } = serviceWith({
      allowPrivate: true,
      resolver: resolverOf({ 'hook.example': '169.254.169.254' }),
      log: quiet,
    });
    await service.createConfig({
      taskId: 't1',
      id: 'c',
      url: 'http://hook.example/latest/meta-data/',
      protocolVersion: '1.0',
    });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.failed === 1);
    expect((await store.deliveries('t1'))[0]?.lastError).toBe(
      'webhook host hook.example resolves to a refused address: 169.254.169.254 is a cloud metadata address (169.254.169.254)',
    );
  });

  it('checks every redirect hop: a redirect to the metadata service is refused', async () => {
    const receiver = await startReceiver(() => ({
      status: 307,
      headers: { location: 'http://metadata.example/latest/meta-data/' },
    }));
    const resolver = resolverOf({ 'metadata.example': '169.254.169.254' });
    const { service, store } = serviceWith({ ...LOCAL, resolver });
    await service.createConfig({ taskId: 't1', id: 'c', url: receiver.url('/hook'), protocolVersion: '1.0' });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.failed === 1);
    expect(await store.deliveries('t1')).toMatchObject([
      {
        state: 'failed',
        attempts: 1,
        lastError:
          'webhook host metadata.example resolves to a refused address: 169.254.169.254 is a cloud metadata address (169.254.169.254)',
      },
    ]);
    expect(receiver.received).toHaveLength(1);
  });

  it('follows allowed redirects, and keeps the credentials from another origin', async () => {
    const receiver = await startReceiver((request) => {
      if (request.path === '/moved') return { status: 308, headers: { location: '/same-origin' } };
      if (request.path === '/same-origin')
        return { status: 302, headers: { location: `http://alias.example:${receiver.port}/other-origin` } };
      return { status: 200 };
    });
    const { service } = serviceWith({ ...LOCAL, resolver: resolverOf({ 'alias.example': '127.0.0.1' }) });
    await service.createConfig({
      taskId: 't1',
      id: 'c',
      url: receiver.url('/moved'),
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 's' },
      protocolVersion: '1.0',
    });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.delivered === 1);
    const [moved, sameOrigin, otherOrigin] = receiver.received;
    expect(sameOrigin).toMatchObject({
      method: 'POST',
      body: moved?.body,
      headers: { authorization: 'Bearer s', 'x-a2a-notification-token': 'tok' },
    });
    expect(otherOrigin?.method).toBe('GET');
    expect(otherOrigin?.body).toBe('');
    expect(otherOrigin?.headers['content-type']).toBeUndefined();
    expect(otherOrigin?.headers.host).toBe(`alias.example:${receiver.port}`);
    expect(otherOrigin?.headers.authorization).toBeUndefined();
    expect(otherOrigin?.headers['x-a2a-notification-token']).toBeUndefined();
  });

  it('checks a literal address at connect time too (one more loopback address, so a broken check stays on this machine)', async () => {
    const receiver = await startReceiver();
    const agent = await new WebhookGuard({ allowNetworks: ['127.0.0.1/32'], requireHttps: false }).createAgent(1000);
    cleanups.push(() => agent.destroy());
    const attempt = request(`http://127.0.0.2:${receiver.port}/hook`, {
      method: 'POST',
      body: '{}',
      dispatcher: agent,
    });
    await expect(attempt).rejects.toThrow(
      new WebhookRefusedError('webhook address refused: 127.0.0.2 is a loopback address (127.0.0.0/8)'),
    );
    expect(receiver.received).toHaveLength(0);
  });

  it('checks the addresses at every connection, so a name rebound to a private address is refused', async () => {
    // Connection: close makes each delivery open a new connection, and so look the name up again.
    const receiver = await startReceiver(() => ({ status: 200, headers: { connection: 'close' } }));
    const answers = ['127.0.0.1', '10.0.0.7'];
    const resolver = resolverOf({ 'rebind.example': () => answers.shift() ?? '10.0.0.7' });
    const { service, store } = serviceWith({ ...LOCAL, resolver });
    await service.createConfig({
      taskId: 't1',
      id: 'c',
      url: `http://rebind.example:${receiver.port}/hook`,
      protocolVersion: '1.0',
    });
    service.start();
    await service.notify(task, [statusEvent]);
    await until(() => service.counters.delivered === 1);
    await service.notify(task, [artifactEvent]);
    await until(() => service.counters.failed === 1);
    expect(receiver.received).toHaveLength(1);
    expect(await store.deliveries('t1')).toMatchObject([
      {
        state: 'failed',
        attempts: 1,
        lastError:
          'webhook host rebind.example resolves to a refused address: 10.0.0.7 is a private address (10.0.0.0/8)',
      },
    ]);
  });
});
