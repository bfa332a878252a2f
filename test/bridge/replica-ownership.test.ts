/**
 * Replica ownership on its own, over a real SQLite task store and a replica store whose answers each test plays: a
 * task whose lease another replica took is let go and its listeners follow it there, orphaned tasks are taken over
 * and their waiting commands run, and a task runs elsewhere only while it is unfinished and not live here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Artifact, TaskState, type Task } from '@a2a-js/sdk';
import { LiveTasks } from '../../src/bridge/engine/live-tasks.ts';
import { ReplicaOwnership } from '../../src/bridge/engine/replica-ownership.ts';
import { LiveTask } from '../../src/bridge/live-task.ts';
import { statusOf } from '../../src/bridge/mapping.ts';
import type { TaskRequest } from '../../src/logos/envelope.ts';
import type { ReplicaStore } from '../../src/store/replica-store.ts';
import type { TaskChange } from '../../src/bridge/task-change.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import type { StoredTask } from '../../src/store/task-store.ts';
import { idleReplicaStore } from '../support/idle-replica-store.ts';

const stores: SqliteTaskStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const task = (id: string, state = TaskState.TASK_STATE_WORKING): Task => ({
  id,
  contextId: 'ctx',
  status: statusOf(state),
  artifacts: [],
  history: [],
  metadata: undefined,
});
const record = (id: string, state?: TaskState): StoredTask => ({
  agentId: 'agent',
  task: task(id, state),
  link: { agentAddress: 'agent:addr', lastSeq: 0, request: JSON.stringify({ task_id: id }) },
});

/** `failingResumes`: how many resumes fail after the task went live (a read after it failed), as a test plays. */
function bed(replicas: ReplicaStore, failingResumes = 0) {
  const store = new SqliteTaskStore(':memory:');
  stores.push(store);
  const logs: string[] = [];
  const tasks = new LiveTasks({ store, sharesChanges: true, leaseLost: () => undefined, log: () => undefined });
  const resumed: string[] = [];
  const detached: LiveTask[] = [];
  const ownership = new ReplicaOwnership({
    replicas,
    cancelTimeoutMs: 100,
    tasks,
    store,
    resume: async (stored) => {
      resumed.push(stored.task.id);
      tasks.add(
        new LiveTask(stored.agentId, stored.task, stored.link.agentAddress, 0, {
          task_id: stored.task.id,
        } as TaskRequest),
      );
      if (failingResumes-- > 0) throw new Error('the connection was dropped');
    },
    detach: (live) => detached.push(live),
    log: (m) => logs.push(m),
  });
  const goLive = (id: string) => {
    const live = new LiveTask('agent', task(id), 'agent:addr', 0, { task_id: id } as TaskRequest);
    tasks.add(live);
    return live;
  };
  return { store, tasks, ownership, resumed, detached, logs, goLive };
}

describe('replica ownership', () => {
  it('lets go of a task whose lease the renewal no longer names; its listeners follow it on its new holder', async () => {
    const followed: string[] = [];
    const replicas = {
      ...idleReplicaStore(60_000),
      renew: async () => new Set(['kept']),
      follow: async (taskId: string) => {
        followed.push(taskId);
        return { stop: () => undefined };
      },
    };
    const { tasks, ownership, detached, goLive } = bed(replicas);
    const kept = goLive('kept');
    const lost = goLive('lost');
    lost.listeners.add(() => undefined);
    ownership.leases('kept');
    ownership.leases('lost');
    await ownership.renewLeases();
    expect(detached).toEqual([lost]);
    expect(tasks.holds(lost)).toBe(false);
    expect(tasks.holds(kept)).toBe(true);
    expect(followed).toEqual(['lost']);
    // Let go once: a second renewal finds nothing more to let go.
    await ownership.renewLeases();
    expect(detached).toEqual([lost]);
  });

  it('tells the listeners of a task it let go what the new holder committed before they followed it there', async () => {
    // The new holder has finished the task (an artifact, then completed) by the time this replica lets go: those
    // changes are in the feed before the point a follow starts from, so only a catch-up from the task tells them.
    const finished: Task = {
      ...task('lost', TaskState.TASK_STATE_COMPLETED),
      artifacts: [Artifact.fromJSON({ artifactId: 'a1', parts: [{ text: 'done' }] })],
    };
    const replicas = {
      ...idleReplicaStore(60_000),
      renew: async () => new Set<string>(),
      follow: async () => ({ stop: () => undefined, task: { ...record('lost'), task: finished } }),
    };
    const { ownership, goLive } = bed(replicas);
    const lost = goLive('lost');
    const heard: TaskChange[] = [];
    lost.listeners.add((change) => heard.push(change));
    ownership.leases('lost');
    await ownership.renewLeases();
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toHaveLength(1);
    expect(heard[0]!.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(heard[0]!.events.map((event) => event.payload?.$case)).toEqual(['artifactUpdate', 'statusUpdate']);
  });

  it('keeps a task leased during the renewal, and one whose lease ended with its terminal write', async () => {
    let answer!: (held: Set<string>) => void;
    const replicas = { ...idleReplicaStore(60_000), renew: () => new Promise<Set<string>>((r) => (answer = r)) };
    const { ownership, detached, goLive } = bed(replicas);
    goLive('old');
    ownership.leases('old');
    const renewing = ownership.renewLeases();
    goLive('new');
    ownership.leases('new');
    answer(new Set(['old']));
    await renewing;
    expect(detached).toEqual([]);
    // Ended: its terminal write ended its lease, so the next answer does not name it, and it is not lost.
    goLive('ended');
    ownership.leases('ended');
    ownership.released('ended');
    replicas.renew = async () => new Set(['old', 'new']);
    await ownership.renewLeases();
    expect(detached).toEqual([]);
  });

  it('takes over the orphaned tasks the store hands it, resuming each and running the commands left for it', async () => {
    const ran: string[] = [];
    const replicas = {
      ...idleReplicaStore(60_000),
      takeOver: async () => ['orphan', 'live-here'],
      runWaiting: async (taskId: string) => void ran.push(taskId),
    };
    const { store, ownership, resumed, goLive } = bed(replicas);
    await store.insert(record('orphan'));
    await store.insert(record('live-here'));
    await store.insert(record('not-taken'));
    goLive('live-here');
    await ownership.start(async () => true);
    await ownership.stop();
    expect(resumed).toEqual(['orphan']);
    expect(ran).toEqual(['orphan']);
  });

  it('runs at a later beat a task whose takeover committed but whose reading failed (a dropped connection)', async () => {
    // The store hands the lease over once; this replica renews it from then on, so nobody else would take the task.
    const offered = [[], ['orphan'], []];
    const replicas = {
      ...idleReplicaStore(60_000),
      takeOver: async () => offered.shift() ?? [],
      renew: async () => new Set(['orphan']),
    };
    const { store, ownership, resumed, logs } = bed(replicas);
    await store.insert(record('orphan'));
    const listActive = store.listActive.bind(store);
    let failures = 1;
    store.listActive = async () => {
      if (failures-- > 0) throw new Error('the connection was dropped');
      return listActive();
    };
    await ownership.start(async () => true);
    await ownership.renewLeases();
    expect(resumed).toEqual([]);
    expect(logs.join('\n')).toMatch(/the connection was dropped/);
    await ownership.renewLeases();
    await ownership.stop();
    expect(resumed).toEqual(['orphan']);
  });

  it('undoes a resume that failed halfway (the task live, a read after it failed), and resumes it whole later', async () => {
    const offered = [['orphan'], []];
    const replicas = {
      ...idleReplicaStore(60_000),
      takeOver: async () => offered.shift() ?? [],
      renew: async () => new Set(['orphan']),
    };
    const { store, tasks, ownership, resumed, detached } = bed(replicas, 1);
    await store.insert(record('orphan'));
    await ownership.start(async () => true);
    expect(resumed).toEqual(['orphan']);
    expect(tasks.has('orphan')).toBe(false);
    expect(detached.map((live) => live.task.id)).toEqual(['orphan']);
    await ownership.renewLeases();
    await ownership.stop();
    expect(resumed).toEqual(['orphan', 'orphan']);
    expect(tasks.has('orphan')).toBe(true);
  });

  it('resumes the other tasks of a takeover when one of them fails to resume', async () => {
    const replicas = { ...idleReplicaStore(60_000), takeOver: async () => ['first', 'second'] };
    const { store, tasks, ownership, resumed } = bed(replicas, 1);
    await store.insert(record('first'));
    await store.insert(record('second'));
    await ownership.start(async () => true);
    await ownership.stop();
    expect(resumed).toHaveLength(2);
    expect([tasks.has('first'), tasks.has('second')].filter(Boolean)).toHaveLength(1);
  });

  it('a task runs elsewhere while unfinished and not live here', async () => {
    const { store, ownership, goLive } = bed(idleReplicaStore(60_000));
    await store.insert(record('elsewhere'));
    await store.insert(record('done', TaskState.TASK_STATE_COMPLETED));
    await store.insert(record('here'));
    goLive('here');
    expect(await ownership.runsElsewhere('agent', 'elsewhere')).toBe(true);
    expect(await ownership.runsElsewhere('agent', 'done')).toBe(false);
    expect(await ownership.runsElsewhere('agent', 'here')).toBe(false);
    expect(await ownership.runsElsewhere('agent', 'unknown')).toBe(false);
    expect(await ownership.runsElsewhere('another-agent', 'elsewhere')).toBe(false);
  });

  it('releases every lease when it stops, and a release that fails is logged, not thrown', async () => {
    let released = 0;
    const replicas = {
      ...idleReplicaStore(60_000),
      releaseAll: async () => {
        released++;
        throw new Error('database gone');
      },
    };
    const { ownership, logs } = bed(replicas);
    await ownership.start(async () => true);
    await ownership.stop();
    expect(released).toBe(1);
    expect(logs).toEqual(['releasing leases: Error: database gone']);
  });
});
