/**
 * A command forwarded to the replica that runs a task, claimed there, and never carried out: that replica is killed
 * with -9 right after claiming it (support/replica-dies-after-claiming.ts). The replica that takes the task over runs
 * the command again, and the caller, on the other replica, gets its answer: a cancel cancels the task at its agent,
 * a follow-up reaches the agent once and completes the task. Two `logos-a2a serve` replicas on one PostgreSQL and
 * the conformance agent, each a process of its own, on Waku.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import postgres from 'postgres';
import { cliEntry } from '../cli/dist.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const victimScript = fileURLToPath(new URL('../support/replica-dies-after-claiming.ts', import.meta.url));
/** Long enough that the survivor, slowed down by a loaded machine, does not lose its own leases. */
const LEASE_MS = 3_000;

describe.skipIf(postgresAdminUrl === undefined)('a replica killed -9 right after claiming forwarded commands', () => {
  let dir: string;
  let database: TestDatabase;
  const children: ChildProcess[] = [];
  let victim: ChildProcess;
  let victimOutput = '';
  let victimUrl: string;
  let survivorUrl: string;

  /** Starts `script ARGS` with `env`; resolves with the child and what it printed until `pattern` matched. */
  const start = async (script: string, args: string[], env: Record<string, string>, pattern: RegExp, name: string) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const printed = await untilPrinted(child, pattern, name, 60_000);
    expect(printed.match, printed.output).toBeDefined();
    return { child, match: printed.match!, output: printed.output };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-claimed-then-killed-'));
    database = await createTestDatabase();
    const agent = await start(
      cliEntry(),
      ['agent', 'conformance', '--key-file', join(dir, 'agent.key'), '--card-key-file', join(dir, 'agent.lez.key')],
      {},
      /listening at (\S+?)(?:,|\s)[\s\S]*Ctrl-C/,
      'the agent',
    );
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify({ agents: [] }));
    const replicaEnv = {
      HOST: '127.0.0.1',
      PORT: '0',
      LOGOS_A2A_CONFIG: join(dir, 'gateway.json'),
      LOGOS_A2A_DATABASE: database.url,
      LOGOS_A2A_REPLICA_LEASE_MS: String(LEASE_MS),
      LOGOS_A2A_CARD_KEY_FILE: join(dir, 'card-signing.key'),
      LOGOS_A2A_LOG_LEVEL: 'warn',
      LOGOS_A2A_TRANSPORT: 'waku',
      LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
      LOGOS_A2A_WAKU_PEERS: agent.match[1]!,
      // One Logos identity for both: the agent takes a follow-up or a cancel only from the party that sent the task.
      LOGOS_A2A_WAKU_KEY_FILE: join(dir, 'gateway.key'),
    };
    const listening = /A2A gateway listening at (\S+)[\s\S]*Ctrl-C/;
    // One after another: the first creates the keys the second reads.
    const survivor = await start(cliEntry(), ['serve'], replicaEnv, listening, 'the survivor');
    const dying = await start(
      victimScript,
      ['serve'],
      { ...replicaEnv, LOGOS_A2A_TEST_DIE_AFTER_CLAIMING: '2' },
      listening,
      'the victim',
    );
    victim = dying.child;
    victimOutput = dying.output;
    victim.stdout!.on('data', (chunk: Buffer) => (victimOutput += chunk.toString()));
    victim.stderr!.on('data', (chunk: Buffer) => (victimOutput += chunk.toString()));
    // It prints localhost; tests talk to 127.0.0.1 only.
    [survivorUrl, victimUrl] = [survivor.match[1]!, dying.match[1]!].map((url) =>
      url.replace('//localhost:', '//127.0.0.1:'),
    ) as [string, string];
    for (const url of [survivorUrl, victimUrl]) {
      await eventually(async () => {
        const response = await fetch(`${url}/agents/conformance/.well-known/agent-card.json`);
        return response.status === 200 || undefined;
      }, 30_000);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(children.map((child) => stopChild(child)));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs the commands again on the task’s new owner, once, and answers their callers', async () => {
    const onVictim = await clientFor(`${victimUrl}/agents/conformance`);
    const onSurvivor = await clientFor(`${survivorUrl}/agents/conformance`);
    // Two tasks the victim runs, each waiting for its caller: one for input, one for authentication.
    const waitingForInput = (await onVictim.sendMessage(
      textMessage('first', { messageId: 'tck-input-required-claimed' }),
    )) as Task;
    expect(waitingForInput.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const waitingForAuth = (await onVictim.sendMessage(
      textMessage('first', { messageId: 'tck-auth-required-claimed' }),
    )) as Task;
    expect(waitingForAuth.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const victimDied = new Promise<NodeJS.Signals | null>((resolve) =>
      victim.once('exit', (_code, signal) => resolve(signal)),
    );

    // Both calls reach the survivor, which forwards them to the victim; the victim claims both and dies.
    const [followedUp, cancelled] = await Promise.all([
      onSurvivor.sendMessage(
        textMessage('more', {
          taskId: waitingForInput.id,
          contextId: waitingForInput.contextId,
          messageId: 'claimed-follow-up',
        }),
      ) as Promise<Task>,
      onSurvivor.cancelTask(CancelTaskRequest.fromJSON({ id: waitingForAuth.id })),
    ]);

    expect(await victimDied).toBe('SIGKILL');
    expect(victimOutput).toContain(`claimed a follow-up for task ${waitingForInput.id}`);
    expect(victimOutput).toContain(`claimed a cancel for task ${waitingForAuth.id}`);
    expect(followedUp.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The agent had the input once, and answered it.
    const completed = await onSurvivor.getTask(GetTaskRequest.fromJSON({ id: waitingForInput.id }));
    expect(completed.history.filter((message) => message.messageId === 'claimed-follow-up')).toHaveLength(1);
    expect(JSON.stringify(completed)).toContain('Received: more');

    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      // Each command was claimed by the victim, then by the survivor, which answered it.
      const commands = await sql<{ task_id: string; claimed_by: string; answered: boolean }[]>`
        SELECT task_id, claimed_by, result IS NOT NULL AS answered FROM task_commands ORDER BY id`;
      expect(commands).toHaveLength(2);
      expect(commands.every((command) => command.answered)).toBe(true);
      const owners = await sql<{ owner: string }[]>`SELECT DISTINCT claimed_by AS owner FROM task_commands`;
      expect(owners).toHaveLength(1);
      // And both tasks ended there, giving their leases back.
      await eventually(async () => (await sql`SELECT task_id FROM task_leases`).length === 0 || undefined);
    } finally {
      await sql.end();
    }
  }, 120_000);
});
