/**
 * A replica killed with -9 between saving a task's terminal state and anything that follows (publishing the change,
 * telling its listeners, queuing its webhooks' notifications): a stream following the task on another replica must
 * still see it end, and its webhook must still hear it. The change feed is written in the same transaction as the
 * state, so the kill cannot leave a terminal row the feed never carried; a change of a task with a webhook is marked
 * there until its notifications are queued, by whichever replica looks next.
 * The victim is a `logos-a2a serve` process that kills itself at that exact moment (support/replica-dies-after-save.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskRequest, SubscribeToTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { clientFor, collect, textMessage } from '../support/gateway.ts';
import { eventually } from '../support/eventually.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const victimScript = fileURLToPath(new URL('../support/replica-dies-after-save.ts', import.meta.url));

describe.skipIf(postgresAdminUrl === undefined)('a replica killed -9 between save and publish', () => {
  let dir: string;
  let database: TestDatabase;
  const victims: ChildProcess[] = [];
  let survivor: Gateway;

  /** A replica that dies at its first terminal write; the task runs on it, and the survivor only follows it. */
  async function startVictim() {
    const victim = spawn(process.execPath, [victimScript, 'serve'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        LOGOS_A2A_CONFIG: join(dir, 'gateway.json'),
        LOGOS_A2A_DATABASE: database.url,
        LOGOS_A2A_CARD_KEY_FILE: join(dir, 'card-signing.key'),
        LOGOS_A2A_TRANSPORT: 'memory',
        LOGOS_A2A_LOG_LEVEL: 'warn',
        LOGOS_A2A_PUSH_ALLOW_PRIVATE: 'true',
      },
    });
    victims.push(victim);
    let output = '';
    const read = (chunk: Buffer) => (output += chunk.toString());
    victim.stdout!.on('data', read);
    victim.stderr!.on('data', read);
    const started = await untilPrinted(victim, /A2A gateway listening at (\S+)[\s\S]*Ctrl-C/, 'the victim replica');
    expect(started.match, started.output).toBeDefined();
    const died = new Promise<NodeJS.Signals | null>((resolve) =>
      victim.once('exit', (_code, signal) => resolve(signal)),
    );
    // It prints localhost; tests talk to 127.0.0.1 only.
    const url = started.match![1]!.replace('//localhost:', '//127.0.0.1:');
    return { url, died, output: () => output };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-killed-after-save-'));
    database = await createTestDatabase();
    // Each replica runs the conformance agent in its own process, on the in-process network.
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify({ agents: [{ builtin: 'conformance' }] }));
    survivor = await startGateway(
      loadConfig({
        env: {},
        overrides: {
          port: 0,
          host: '127.0.0.1',
          database: database.url,
          cardSigningKeyFile: join(dir, 'card-signing.key'),
          agents: [{ builtin: 'conformance' }],
          shutdownGraceMs: 500,
          pushAllowPrivate: true,
          transport: { kind: 'memory' },
        },
      }),
      { log: () => undefined },
    );
  }, 60_000);

  afterAll(async () => {
    for (const victim of victims) await stopChild(victim, 'SIGKILL');
    await survivor?.stop();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a stream on another replica still sees the terminal state', async () => {
    const victim = await startVictim();
    const onVictim = await clientFor(`${victim.url}/agents/conformance`);
    const onSurvivor = await clientFor(`${survivor.url}/agents/conformance`);
    // Working, then completed a few seconds later: the survivor's stream joins while it works.
    const task = (await onVictim.sendMessage(
      textMessage('slow', {
        messageId: 'test-resubscribe-message-id-killed-after-save',
        configuration: { returnImmediately: true },
      }),
    )) as Task;
    const streamed = collect(onSurvivor.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id })));
    const events = await Promise.race([
      streamed,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`the survivor's stream never ended; the victim said:\n${victim.output()}`)),
          20_000,
        ),
      ),
    ]);

    // The victim died where it was meant to: right after committing the completed state.
    expect(await victim.died).toBe('SIGKILL');
    expect(victim.output()).toContain(`saved task ${task.id} as ended`);
    // The survivor followed the task while it worked (it did not just read a row that had ended), to its end.
    const first = events[0]?.payload;
    expect(first?.$case === 'task' && first.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const stored = await onSurvivor.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 60_000);

  it('a webhook still hears the terminal state: another replica queues the notifications the victim committed', async () => {
    const received: { state?: string }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          task?: { status?: { state?: string } };
          statusUpdate?: { status?: { state?: string } };
        };
        received.push({ state: (body.statusUpdate ?? body.task)?.status?.state });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const victim = await startVictim();
      const onVictim = await clientFor(`${victim.url}/agents/conformance`);
      const { port } = receiver.address() as AddressInfo;
      const task = (await onVictim.sendMessage(
        textMessage('slow', {
          messageId: 'test-resubscribe-message-id-killed-after-save-push',
          configuration: {
            returnImmediately: true,
            taskPushNotificationConfig: { url: `http://127.0.0.1:${port}/hook` },
          },
        }),
      )) as Task;
      expect(await victim.died).toBe('SIGKILL');
      expect(victim.output()).toContain(`saved task ${task.id} as ended`);
      // The victim died right after the commit, before it queued anything for it. Before, nobody ever did: the
      // webhook heard the task working and never heard it end.
      await eventually(() => received.some((each) => each.state === 'TASK_STATE_COMPLETED') || undefined, 40_000);
      expect(received.at(-1)?.state).toBe('TASK_STATE_COMPLETED');
      expect(received.filter((each) => each.state === 'TASK_STATE_COMPLETED')).toHaveLength(1);
    } finally {
      receiver.close();
    }
  }, 90_000);
});
