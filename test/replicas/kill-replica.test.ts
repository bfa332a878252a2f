/**
 * Three `logos-a2a serve` replicas as processes on one PostgreSQL database, each with its own Waku node, and the
 * conformance agent as a process of its own that all three reach over Waku. Calls go round-robin over the replicas,
 * as behind a load balancer. One replica is killed with -9 while tasks it runs are working: the others take its
 * leases over, no task is lost, the streams they hold see every task to its completion, and a follow-up sent after
 * the kill reaches the task's new owner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../support/child-process.ts';
import { GetTaskRequest, SubscribeToTaskRequest, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import postgres from 'postgres';
import { cliEntry } from '../cli/dist.ts';
import { clientFor, collect, eventually, textMessage } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const cli = cliEntry();
/** Long enough that a survivor slowed down by a loaded machine does not lose its own leases. */
const LEASE_MS = 3_000;

interface Replica {
  child: ChildProcess;
  url: string;
  client: Client;
}

/** Starts the CLI; resolves with its output so far once it prints "Ctrl-C" (it is up). */
function startCli(
  args: string[],
  env: Record<string, string>,
  name: string,
): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 60_000);
    const heard = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ctrl-C')) return;
      clearTimeout(timer);
      resolve({ child, output });
    };
    child.stdout!.on('data', heard);
    child.stderr!.on('data', heard);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output}`)));
  });
}

const state = (task: Task | undefined) => task?.status?.state;
const lastState = (events: StreamResponse[]) => {
  const last = events.at(-1)?.payload;
  return last?.$case === 'statusUpdate' ? last.value.status?.state : undefined;
};

describe.skipIf(postgresAdminUrl === undefined)('three replicas, one killed with -9 mid-task', () => {
  let dir: string;
  let database: TestDatabase;
  let agent: ChildProcess;
  const replicas: Replica[] = [];
  let turn = 0;
  /** The next replica still running, round-robin: what a load balancer in front of them does. */
  const roundRobin = () => {
    const running = replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
    return running[turn++ % running.length]!.client;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-replicas-'));
    database = await createTestDatabase();
    const started = await startCli(
      [
        'agent',
        'conformance',
        '--key-file',
        join(dir, 'agent.key'),
        '--card-key-file',
        join(dir, 'agent.lez.key'),
        '--announce-every',
        '500',
      ],
      {},
      'the agent',
    );
    agent = started.child;
    const agentAddress = /listening at (\S+?)(?:,|\s)/.exec(started.output)![1]!;
    // The replicas serve no in-process agent: every one of them reaches the agent process over Waku.
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify({ agents: [] }));
    const replicaEnv = () => ({
      HOST: '127.0.0.1',
      PORT: '0',
      LOGOS_A2A_CONFIG: join(dir, 'gateway.json'),
      LOGOS_A2A_DATABASE: database.url,
      LOGOS_A2A_REPLICA_LEASE_MS: String(LEASE_MS),
      LOGOS_A2A_CARD_KEY_FILE: join(dir, 'card-signing.key'),
      LOGOS_A2A_LOG_LEVEL: 'warn',
      LOGOS_A2A_AGENT_TIMEOUT_MS: '30000',
      LOGOS_A2A_TRANSPORT: 'waku',
      LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
      LOGOS_A2A_WAKU_PEERS: agentAddress,
      // One Logos identity for all (each node has a peer id of its own): the agent takes a follow-up or a
      // question about a task only from the party that submitted it, whichever replica that is now.
      LOGOS_A2A_WAKU_KEY_FILE: join(dir, 'gateway.key'),
    });
    // One after another: the first creates the keys (card signing, Logos identity) the others then read.
    for (let index = 0; index < 3; index++) {
      const { child, output } = await startCli(['serve'], replicaEnv(), `replica ${index}`);
      const url = /A2A gateway listening at (\S+)/.exec(output)![1]!;
      await eventually(async () => {
        const response = await fetch(`${url}/agents/conformance/.well-known/agent-card.json`);
        return response.status === 200 || undefined;
      }, 30_000);
      replicas.push({ child, url, client: await clientFor(`${url}/agents/conformance`) });
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...replicas.map((replica) => replica.child), agent].map((child) => stopChild(child)));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('loses no task, and the surviving replicas finish the dead one’s tasks and streams', async () => {
    // Six slow tasks (working, then 4.5 s later completed), two created on each replica, and one waiting for input.
    const slow: Task[] = [];
    for (let index = 0; index < 6; index++) {
      slow.push(
        (await roundRobin().sendMessage(
          textMessage(`slow ${index}`, {
            messageId: `test-resubscribe-message-id-${index}`,
            configuration: { returnImmediately: true },
          }),
        )) as Task,
      );
    }
    const victim = replicas[turn % 3]!;
    const waiting = (await victim.client.sendMessage(
      textMessage('first', { messageId: 'tck-input-required-kill' }),
    )) as Task;
    expect(state(waiting)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const survivors = replicas.filter((replica) => replica !== victim);
    // Every slow task streamed from a survivor, which may or may not be the replica running it.
    const streams = slow.map((task, index) =>
      collect(survivors[index % 2]!.client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id }))),
    );
    await eventually(async () => {
      const states = await Promise.all(
        slow.map(async (task) => state(await survivors[0]!.client.getTask(GetTaskRequest.fromJSON({ id: task.id })))),
      );
      return states.every((s) => s === TaskState.TASK_STATE_WORKING) || undefined;
    }, 10_000);

    await stopChild(victim.child, 'SIGKILL');

    // The follow-up reaches the task's new owner once it has taken the dead replica's lease over.
    const followed = (await roundRobin().sendMessage(
      textMessage('more', { taskId: waiting.id, contextId: waiting.contextId }),
    )) as Task;
    expect(state(followed)).toBe(TaskState.TASK_STATE_COMPLETED);

    const streamed = await Promise.all(streams);
    expect(streamed.map(lastState)).toEqual(slow.map(() => TaskState.TASK_STATE_COMPLETED));
    for (const task of [...slow, waiting]) {
      const seen = await roundRobin().getTask(GetTaskRequest.fromJSON({ id: task.id }));
      expect(state(seen)).toBe(TaskState.TASK_STATE_COMPLETED);
    }

    // The two slow tasks and the waiting one the victim ran were taken over, each by one survivor.
    const takeovers = await Promise.all(
      survivors.map(async ({ url }) => {
        const text = await (await fetch(`${url}/metrics`)).text();
        return Number(/^logos_a2a_lease_takeovers_total (\d+)/m.exec(text)?.[1] ?? 0);
      }),
    );
    expect(takeovers[0]! + takeovers[1]!).toBe(3);
    // And no lease is left behind: every task finished and gave its lease back.
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      // Given back just after each task ended (not awaited by anyone).
      await eventually(async () => (await sql`SELECT task_id FROM task_leases`).length === 0 || undefined);
      expect((await sql`SELECT count(*)::int AS n FROM tasks`)[0]!.n).toBe(7);
    } finally {
      await sql.end();
    }
  }, 90_000);
});
