/**
 * Money that survives any crash: paid tasks go through the gateway (the official A2A client) to the paid agent while
 * the devnet, the gateway and the agent, each its own process with its state on disk, are killed with SIGKILL at
 * random moments and started again. Once things settle, the chain itself (read block by block over the devnet's
 * RPC, not from our records) must agree with every task's receipt: each task is one payment at most, its refund is
 * on chain exactly when the receipt says so, nothing was paid twice or lost, and no task ends `refund-missing` while
 * its agent is alive. The moments come from a seeded generator: the seed is printed, and CRASH_SEED=N replays it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterAll, expect, it, onTestFailed } from 'vitest';
import { stopChild } from '../support/child-process.ts';
import { freePort } from '../support/free-port.ts';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { encryptKeyFile, saveKeyFile } from '../../src/lez/wallet-key-file.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { cliEntry } from '../cli/dist.ts';

const TASKS = 20;
const PRICE = 5n;
const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.info(`crash suite seed: ${seed} (CRASH_SEED=${seed} replays these moments)`);

/** mulberry32: a small seeded generator, so that a failing run's moments can be replayed. */
function seeded(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const random = seeded(seed);
const between = (low: number, high: number) => Math.round(low + random() * (high - low));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const wallet = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
const agentKey = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32));
const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-crash-'));
const running = new Set<ChildProcess>();
/** Every party, for their output when the test fails. */
const parties: Party[] = [];

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** One of the three parties: `logos-a2a ARGS` as a child process, started (again) until it says it is ready. */
class Party {
  private child: ChildProcess | undefined;
  output = '';

  readonly name: string;
  private readonly args: string[];
  private readonly env: Record<string, string>;

  constructor(name: string, args: string[], env: Record<string, string> = {}) {
    this.name = name;
    this.args = args;
    this.env = env;
    parties.push(this);
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [cliEntry(), ...this.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env },
    });
    this.child = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start:\n${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        this.output += chunk.toString();
        if (!output.includes('Ctrl-C')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${this.name} exited (${code}) before it started:\n${output}`)));
    });
  }

  /** kill -9, then a start on the same data after `downMs`. */
  async crash(downMs: number): Promise<void> {
    const child = this.child!;
    await stopChild(child, 'SIGKILL');
    console.info(`crash suite: killed the ${this.name}, back in ${downMs} ms`);
    await sleep(downMs);
    await this.start();
  }
}

interface Submitted {
  messageId: string;
  skill: 'echo' | 'slow';
  taskId?: string;
}

/** Retries a call until the gateway answers (it may be down, or restarting). */
async function untilAnswered<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt > 200) throw error;
      await sleep(250);
    }
  }
}

it(`${TASKS} paid tasks while the devnet, the gateway and the agent are each killed -9: the chain agrees with every receipt`, async () => {
  const [devnetPort, gatewayPort, wakuPort] = [await freePort(), await freePort(), await freePort()];
  const sequencerUrl = `http://127.0.0.1:${devnetPort}`;
  const passphrase = 'crash-suite';
  const walletFile = join(dir, 'wallet.json');
  await saveKeyFile(
    walletFile,
    await encryptKeyFile({ type: 'secret-key', secretKey: wallet.secretKey }, passphrase, { logN: 10, r: 8, p: 1 }),
  );
  writeFileSync(join(dir, 'agent.lez.key'), `${DEVNET_GENESIS[1].secretKeyHex}\n`, { mode: 0o600 });
  const configFile = join(dir, 'gateway.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      port: gatewayPort,
      host: '127.0.0.1',
      database: join(dir, 'gateway', 'gateway.db'),
      agents: [],
      agentTimeoutMs: 10_000,
      transport: {
        kind: 'waku',
        listen: [`/ip4/127.0.0.1/tcp/${wakuPort}`],
        keyFile: join(dir, 'gateway', 'waku.key'),
      },
      payments: { rail: 'lez', sequencerUrl, signingMode: 'prehash-v0.3', walletKeyFile: walletFile },
    }),
  );

  onTestFailed(() => {
    for (const party of parties) console.error(`--- ${party.name}:\n${party.output.slice(-6000)}`);
    // What the agent holds and owes, as its own books say.
    const books = new DatabaseSync(join(dir, 'agent', 'agent-paid-payments.db'), { readOnly: true });
    console.error(
      `--- the agent's payments:\n${JSON.stringify(books.prepare('SELECT tx_hash, status, refund_state IS NOT NULL AS signed FROM agent_payments').all())}`,
    );
    books.close();
  });
  const devnet = new Party('devnet', ['devnet', '--port', String(devnetPort), '--data', join(dir, 'devnet')]);
  await devnet.start();
  const gateway = new Party('gateway', ['serve', '--config', configFile], {
    LOGOS_A2A_WALLET_PASSPHRASE: passphrase,
    LOGOS_A2A_LOG_LEVEL: 'warn',
  });
  await gateway.start();
  const joinAt = /join at (\S+)/.exec(gateway.output)?.[1];
  expect(joinAt).toBeDefined();
  const agent = new Party('agent', [
    'agent',
    'paid',
    '--peer',
    joinAt!,
    '--data',
    join(dir, 'agent'),
    '--card-key-file',
    join(dir, 'agent.lez.key'),
    '--sequencer',
    sequencerUrl,
    '--signing-mode',
    'prehash-v0.3',
    '--announce-every',
    '500',
  ]);
  await agent.start();
  const agentUrl = `http://127.0.0.1:${gatewayPort}/agents/paid`;
  await eventually(
    async () => ((await fetch(`${agentUrl}/.well-known/agent-card.json`)).ok ? true : undefined),
    20_000,
  );
  const client: Client = await clientFor(agentUrl);
  const sequencer = new SequencerClient({ url: sequencerUrl, timeoutMs: 5_000 });
  const balance = async (account: string) => {
    const answer = await untilAnswered(async () => {
      const result = await sequencer.getAccountBalance(account);
      if (result.kind !== 'result') throw new Error(result.kind);
      return result.value;
    });
    return answer;
  };
  const [walletBefore, agentBefore] = [await balance(wallet.account), await balance(agentKey.account)];
  const startedAt = Date.now();

  // The plan: when each task is sent, which are cancelled, and when each party dies and for how long.
  const tasks: Submitted[] = Array.from({ length: TASKS }, (_, i) => ({
    messageId: `crash-${seed}-${i}`,
    skill: random() < 0.6 ? 'echo' : 'slow',
  }));
  const sendAt = tasks.map(() => between(0, 8_000));
  const crashes = (['devnet', 'gateway', 'agent'] as const).map((name) => ({
    party: { devnet, gateway, agent }[name],
    at: between(500, 8_000),
    downMs: between(200, 1_500),
  }));

  const send = async (task: Submitted, at: number) => {
    await sleep(at);
    const answer = await untilAnswered(() =>
      client.sendMessage(
        textMessage(`task ${task.messageId}`, {
          messageId: task.messageId,
          metadata: { skill: task.skill },
          configuration: { returnImmediately: true },
        }),
      ),
    );
    task.taskId = (answer as Task).id;
    // A slow task is cancelled a little later (its refund), unless a crash ends it first.
    if (task.skill === 'slow') {
      await sleep(between(500, 3_000));
      await untilAnswered(() => client.cancelTask(CancelTaskRequest.fromJSON({ id: task.taskId! }))).catch(
        () => undefined,
      );
    }
  };
  await Promise.all([
    ...tasks.map((task, i) => send(task, sendAt[i]!)),
    ...crashes.map(async ({ party, at, downMs }) => {
      await sleep(at);
      await party.crash(downMs);
    }),
  ]);

  // Settle: every task ends, and no receipt is left in doubt.
  const chaosEndedAt = Date.now();
  const ended = [
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
  ];
  const isSettled = (task: Task) => {
    const receipt = (task.metadata as { lez?: { status: string } } | undefined)?.lez;
    return (
      ended.includes(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED) &&
      receipt !== undefined &&
      !['pending', 'refund-missing'].includes(receipt.status)
    );
  };
  let final: Task[] = [];
  for (let round = 0, deadline = Date.now() + 60_000; !final.every(isSettled) || final.length === 0; round++) {
    if (Date.now() > deadline) {
      const states = final.map((t, i) => [
        t.id,
        tasks[i]!.skill,
        t.status?.state,
        t.metadata?.lez,
        t.status?.message?.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''),
      ]);
      throw new Error(`not settled (seed ${seed}): ${JSON.stringify(states)}`);
    }
    await sleep(500);
    final = await Promise.all(
      tasks.map((task) => untilAnswered(() => client.getTask(GetTaskRequest.fromJSON({ id: task.taskId! })))),
    );
    // A client whose cancel found the task still working (its cancel lost in a crash) asks again now and then.
    if (round % 6 === 5) {
      final.forEach((task, i) => {
        if (tasks[i]!.skill === 'slow' && !ended.includes(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED))
          void client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id })).catch(() => undefined);
      });
    }
  }

  // The chain, block by block.
  const transfers = await transfersBetween(sequencer, wallet.account, agentKey.account);
  const payments = new Map(transfers.filter((t) => t.from === wallet.account).map((t) => [t.hash, t]));
  const refunds = new Map(transfers.filter((t) => t.from === agentKey.account).map((t) => [t.hash, t]));
  const claimed = new Set<string>();
  let paidOut = 0n;
  let paidBack = 0n;
  for (const task of final) {
    const receipt = (
      task.metadata as { lez: { status: string; amount: string; txHash?: string; refundTxHash?: string } }
    ).lez;
    const state = TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];
    const where = `task ${task.id} (${state}, seed ${seed}): ${JSON.stringify(receipt)}`;
    expect(receipt.amount, where).toBe(PRICE.toString());
    if (receipt.status === 'failed') {
      // Nothing was charged: no transaction of it is claimed, and the task did not complete.
      expect(receipt.txHash, where).toBeUndefined();
      expect(state, where).not.toContain('COMPLETED');
      continue;
    }
    // paid or refunded: the payment is on chain, of the price, to the agent, and counted for this task only.
    expect(['paid', 'refunded'], where).toContain(receipt.status);
    const payment = payments.get(receipt.txHash!);
    expect(payment, where).toMatchObject({ to: agentKey.account, amount: PRICE });
    expect(claimed.has(receipt.txHash!), where).toBe(false);
    claimed.add(receipt.txHash!);
    paidOut += PRICE;
    if (state.includes('COMPLETED')) {
      expect(receipt.status, where).toBe('paid');
      continue;
    }
    // Paid and not completed: the agent paid it back, on chain, once.
    expect(receipt.status, where).toBe('refunded');
    expect(refunds.get(receipt.refundTxHash!), where).toMatchObject({ to: wallet.account, amount: PRICE });
    expect(claimed.has(receipt.refundTxHash!), where).toBe(false);
    claimed.add(receipt.refundTxHash!);
    paidBack += PRICE;
  }
  // Nothing moved that no receipt accounts for: no double payment, no refund of nothing, and the balances agree.
  expect(
    [...payments.keys()].filter((hash) => !claimed.has(hash)),
    `payments no receipt names (seed ${seed})`,
  ).toEqual([]);
  expect(
    [...refunds.keys()].filter((hash) => !claimed.has(hash)),
    `refunds no receipt names (seed ${seed})`,
  ).toEqual([]);
  expect(await balance(wallet.account)).toBe(walletBefore - paidOut + paidBack);
  expect(await balance(agentKey.account)).toBe(agentBefore + paidOut - paidBack);
  console.info(
    `crash suite (seed ${seed}): ${final.length} tasks, ${claimed.size} transactions, paid ${paidOut}, refunded ${paidBack}; ` +
      `tasks and crashes ${chaosEndedAt - startedAt} ms, settling ${Date.now() - chaosEndedAt} ms`,
  );
}, 150_000);
