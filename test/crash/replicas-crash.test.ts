/**
 * Money and progress that survive replicas dying: three `logos-a2a serve` replicas on one PostgreSQL database, paying
 * from one wallet on the devnet, run paid tasks for the paid agent (a process of its own that all three reach over
 * Waku) while the replicas are killed with SIGKILL at seeded random moments and started again. Calls go to whichever
 * replica is up, as behind a load balancer, and a call that a kill cut off is sent again (the same message id: a
 * retry). Once things settle, every task has ended (none left working for good), each message made one task, and the
 * chain, read block by block, agrees with every receipt: no task paid twice, a refund for every task paid and not
 * completed, the balances exact. The seed is printed; REPLICA_CRASH_SEED=N replays it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, onTestFailed } from 'vitest';
import { CancelTaskRequest, GetTaskRequest, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import postgres from 'postgres';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { CliParty, untilAnswered } from '../support/cli-party.ts';
import { AGENT, saveWalletKeyFile, WALLET } from '../support/devnet-wallet.ts';
import { freePort } from '../support/free-port.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { expectChainAgrees, hasEnded, untilSettled } from '../support/paid-receipts.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';
import { seeded, seedFrom } from '../support/seeded-random.ts';

const TASKS = 18;
const PRICE = 5n;
const REPLICAS = 3;
/** Short, so that a dead replica's tasks are taken over within the run; long enough for a loaded machine's renewals. */
const LEASE_MS = 3_000;
const PASSPHRASE = 'replica crash suite';
/**
 * How long the client waits for an answer before it sends the call again, as an impatient client does: a command (a
 * cancel) that a replica had claimed for the task when it was killed is run again by the task's new owner only once
 * the dead replica's lease has run out, and a call to a replica killed under it may never be answered.
 */
const CALL_TIMEOUT_MS = 5_000;

const seed = seedFrom('REPLICA_CRASH_SEED', 'replica crash suite');
const random = seeded(seed);
const between = (low: number, high: number) => Math.round(low + random() * (high - low));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string | undefined;
let database: TestDatabase | undefined;
let devnet: Devnet | undefined;

afterAll(async () => {
  CliParty.killAll();
  await devnet?.stop();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

interface Submitted {
  messageId: string;
  skill: 'echo' | 'slow';
  taskId?: string;
}

it.skipIf(postgresAdminUrl === undefined)(
  `${TASKS} paid tasks on ${REPLICAS} replicas killed -9 at random: every task ends, paid once, as the chain says`,
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-replica-crash-'));
    database = await createTestDatabase();
    devnet = await startDevnet({ blockIntervalMs: 500 });
    const walletKeyFile = join(dir, 'wallet.json');
    await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
    writeFileSync(join(dir, 'agent.lez.key'), `${DEVNET_GENESIS[1].secretKeyHex}\n`, { mode: 0o600 });

    onTestFailed(async () => {
      for (const party of CliParty.all) console.error(`--- ${party.name}:\n${party.output.slice(-6000)}`);
      // What the replicas' books say of each payment.
      const sql = postgres(database!.url, { max: 1, onnotice: () => {} });
      const books =
        await sql`SELECT task_id, status, tx_hash, rail_state, updated_at FROM payments ORDER BY created_at`;
      console.error(`--- the replicas' payments:\n${JSON.stringify(books, undefined, 1)}`);
      await sql.end();
    });
    const agent = new CliParty('agent', [
      'agent',
      'paid',
      '--data',
      join(dir, 'agent'),
      '--card-key-file',
      join(dir, 'agent.lez.key'),
      '--sequencer',
      devnet.url,
      '--signing-mode',
      'prehash-v0.3',
      '--announce-every',
      '500',
    ]);
    await agent.start();
    const agentAddress = /listening at (\S+?)(?:,|\s)/.exec(agent.output)![1]!;
    writeFileSync(
      join(dir, 'gateway.json'),
      JSON.stringify({
        host: '127.0.0.1',
        database: database.url,
        replicaLeaseMs: LEASE_MS,
        cardSigningKeyFile: join(dir, 'card-signing.key'),
        agents: [],
        agentTimeoutMs: 10_000,
        // Every replica reaches the agent over Waku, under one Logos identity: the agent takes a cancel of a task
        // only from the party that submitted it, whichever replica that is now.
        transport: {
          kind: 'waku',
          listen: ['/ip4/127.0.0.1/tcp/0'],
          peers: [agentAddress],
          keyFile: join(dir, 'gateway.key'),
        },
        payments: { rail: 'lez', sequencerUrl: devnet.url, signingMode: 'prehash-v0.3', walletKeyFile },
      }),
    );
    const replicas: { party: CliParty; client: Client }[] = [];
    // One after another: the first creates the keys (card signing, Logos identity) the others then read.
    for (let index = 0; index < REPLICAS; index++) {
      const port = await freePort();
      const party = new CliParty(`replica ${index}`, ['serve', '--config', join(dir, 'gateway.json')], {
        PORT: String(port),
        LOGOS_A2A_WALLET_PASSPHRASE: PASSPHRASE,
        LOGOS_A2A_LOG_LEVEL: 'warn',
      });
      await party.start();
      const agentUrl = `http://127.0.0.1:${port}/agents/paid`;
      await eventually(
        async () => ((await fetch(`${agentUrl}/.well-known/agent-card.json`)).ok ? true : undefined),
        20_000,
      );
      replicas.push({ party, client: await clientFor(agentUrl) });
    }
    /** A call to the next replica that is up, round-robin, sent again (maybe elsewhere) until one answers in time. */
    let turn = 0;
    const anyReplica = <T>(
      call: (client: Client, options: { signal: AbortSignal }) => Promise<T>,
      attempts?: number,
    ): Promise<T> =>
      untilAnswered(() => {
        const up = replicas.filter((replica) => replica.party.isUp);
        if (up.length === 0) throw new Error('no replica is up');
        return call(up[turn++ % up.length]!.client, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      }, attempts);

    const sequencer = new SequencerClient({ url: devnet.url, timeoutMs: 5_000 });
    const balance = async (account: string) => devnet!.balance(account);
    const before = { payer: await balance(WALLET.account), payee: await balance(AGENT.account) };
    const startedAt = Date.now();

    // The plan: when each task is sent (and whether cancelled), and when each replica dies and for how long.
    const tasks: Submitted[] = Array.from({ length: TASKS }, (_, i) => ({
      messageId: `replica-crash-${seed}-${i}`,
      skill: random() < 0.6 ? 'echo' : 'slow',
    }));
    const sendAt = tasks.map(() => between(0, 8_000));
    const crashes = replicas.map(({ party }) => ({
      party,
      // One or two deaths each, the second after the first is back.
      deaths: Array.from({ length: between(1, 2) }, () => ({
        after: between(500, 5_000),
        downMs: between(200, 2_000),
      })),
    }));

    const send = async (task: Submitted, at: number) => {
      await sleep(at);
      const answer = await anyReplica((client, options) =>
        client.sendMessage(
          textMessage(`task ${task.messageId}`, {
            messageId: task.messageId,
            metadata: { skill: task.skill },
            configuration: { returnImmediately: true },
          }),
          options,
        ),
      );
      task.taskId = (answer as Task).id;
      // A slow task is cancelled a little later (its refund), through whichever replica is up.
      if (task.skill === 'slow') {
        await sleep(between(500, 3_000));
        // A few tries: one a kill cut off is asked again while the tasks settle.
        await anyReplica(
          (client, options) => client.cancelTask(CancelTaskRequest.fromJSON({ id: task.taskId! }), options),
          3,
        ).catch(() => undefined);
      }
    };
    await Promise.all([
      ...tasks.map((task, i) => send(task, sendAt[i]!)),
      ...crashes.map(async ({ party, deaths }) => {
        for (const { after, downMs } of deaths) {
          await sleep(after);
          await party.crash(downMs);
        }
      }),
    ]);

    // Settle: every task ends, and no receipt is left in doubt.
    const chaosEndedAt = Date.now();
    const final = await untilSettled(
      () =>
        Promise.all(
          tasks.map((task) =>
            anyReplica((client, options) => client.getTask(GetTaskRequest.fromJSON({ id: task.taskId! }), options)),
          ),
        ),
      seed,
      (seen, round) => {
        // A cancel a kill cut off is asked again now and then.
        if (round % 6 !== 5) return;
        seen.forEach((task, i) => {
          if (tasks[i]!.skill === 'slow' && !hasEnded(task))
            void anyReplica(
              (client, options) => client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }), options),
              1,
            ).catch(() => undefined);
        });
      },
    );

    // One task per message, whatever was sent again after a kill; none left working, nor leased.
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ id: string }[]>`SELECT id FROM tasks`;
      expect(rows.map((row) => row.id).sort(), `tasks (seed ${seed})`).toEqual(final.map((task) => task.id).sort());
      await eventually(async () => (await sql`SELECT task_id FROM task_leases`).length === 0 || undefined, 10_000);
    } finally {
      await sql.end();
    }

    // The chain, block by block.
    const moved = await expectChainAgrees(final, {
      sequencer,
      price: PRICE,
      payer: WALLET.account,
      payee: AGENT.account,
      before,
      balance,
      seed,
    });
    const kills = crashes.reduce((sum, { deaths }) => sum + deaths.length, 0);
    console.info(
      `replica crash suite (seed ${seed}): ${final.length} tasks, ${kills} kills, ${moved.transactions} transactions, ` +
        `paid ${moved.paidOut}, refunded ${moved.paidBack}; tasks and crashes ${chaosEndedAt - startedAt} ms, ` +
        `settling ${Date.now() - chaosEndedAt} ms`,
    );
  },
  150_000,
);
