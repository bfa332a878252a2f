/**
 * Money that survives any crash: paid tasks go through the gateway (the official A2A client) to the paid agent while
 * the devnet, the gateway and the agent, each its own process with its state on disk, are killed with SIGKILL at
 * random moments and started again. Once things settle, the chain itself (read block by block over the devnet's
 * RPC, not from our records) must agree with every task's receipt: each task is one payment at most, its refund is
 * on chain exactly when the receipt says so, nothing was paid twice or lost, and no task ends `refund-missing` while
 * its agent is alive; on a sequencer with fees (lee-v0.3) the fees each transfer paid are in the balances too. It runs
 * on each protocol profile. The moments come from a seeded generator: the seed is printed, and CRASH_SEED=N replays
 * it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterAll, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { CancelTaskRequest, GetTaskRequest, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { MIN_BASE_FEE } from '../../src/lez/fees.ts';
import { feeTransferBytes } from '../../src/lez/native-transfer.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { CliParty, untilAnswered } from '../support/cli-party.ts';
import { AGENT as agentKey, saveWalletKeyFile, WALLET as wallet } from '../support/devnet-wallet.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { expectChainAgrees, hasEnded, untilSettled } from '../support/paid-receipts.ts';
import { seeded, seedFrom } from '../support/seeded-random.ts';

const PRICE = 5n;
/**
 * Each protocol profile, with the CLI devnet's own settings and the gateway's and agent's defaults (no fee settings).
 * On lee-v0.3 every transfer also pays a fee, at the devnet's steady minimum base fees: the gas the CLI devnet meters
 * a transfer at (its default --transfer-gas, 100) and the transfer's bytes, each at 8. The genesis wallet's 10,000
 * pays for only a few of them, so fewer tasks run there: the rest fail for want of funds, with nothing paid. The
 * spending limits are the operator's policy, not the protocol's.
 */
const PROFILES = [
  { profile: 'v0.2', tasks: 20, feePerTransfer: undefined, limits: {} },
  {
    profile: 'lee-v0.3',
    tasks: 5,
    feePerTransfer: MIN_BASE_FEE * (100n + feeTransferBytes()),
    // The spending gate counts the default fee cap (32,448) beside each price: limits with room for it.
    limits: { perTransactionLimit: '100000', perPeriodLimit: '10000000' },
  },
] as const;
const seed = seedFrom('CRASH_SEED', 'crash suite');
const random = seeded(seed);
const between = (low: number, high: number) => Math.round(low + random() * (high - low));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dirs: string[] = [];

afterAll(() => {
  CliParty.killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Submitted {
  messageId: string;
  skill: 'echo' | 'slow';
  taskId?: string;
}

it.each(PROFILES)(
  `on $profile, $tasks paid tasks while the devnet, the gateway and the agent are each killed -9: the chain agrees with every receipt`,
  async ({ profile, tasks: TASKS, feePerTransfer, limits }) => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-crash-'));
    dirs.push(dir);
    const [devnetPort, gatewayPort, wakuPort] = [await freePort(), await freePort(), await freePort()];
    const sequencerUrl = `http://127.0.0.1:${devnetPort}`;
    const passphrase = 'crash-suite';
    const walletFile = join(dir, 'wallet.json');
    await saveWalletKeyFile(walletFile, passphrase);
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
        // The signing mode and profile are given: a party restarted while the devnet is down cannot probe them.
        payments: {
          rail: 'lez',
          sequencerUrl,
          signingMode: 'prehash-v0.3',
          profile,
          walletKeyFile: walletFile,
          ...limits,
        },
      }),
    );

    onTestFailed(() => {
      for (const party of CliParty.all) console.error(`--- ${party.name}:\n${party.output.slice(-6000)}`);
      // What the agent holds and owes, as its own books say.
      const books = new DatabaseSync(join(dir, 'agent', 'agent-paid-payments.db'), { readOnly: true });
      console.error(
        `--- the agent's payments:\n${JSON.stringify(books.prepare('SELECT tx_hash, status, refund_state IS NOT NULL AS signed FROM agent_payments').all())}`,
      );
      books.close();
    });
    const devnet = new CliParty('devnet', [
      'devnet',
      '--port',
      String(devnetPort),
      '--data',
      join(dir, 'devnet'),
      '--profile',
      profile,
    ]);
    await devnet.start();
    const gateway = new CliParty('gateway', ['serve', '--config', configFile], {
      LOGOS_A2A_WALLET_PASSPHRASE: passphrase,
      LOGOS_A2A_LOG_LEVEL: 'warn',
    });
    await gateway.start();
    const joinAt = /join at (\S+)/.exec(gateway.output)?.[1];
    expect(joinAt).toBeDefined();
    const agent = new CliParty('agent', [
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
      '--profile',
      profile,
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
    const sequencer = new SequencerClient({ url: sequencerUrl, timeoutMs: 5_000, layout: profile });
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
    const final = await untilSettled(
      () =>
        Promise.all(
          tasks.map((task) => untilAnswered(() => client.getTask(GetTaskRequest.fromJSON({ id: task.taskId! })))),
        ),
      seed,
      (seen, round) => {
        // A client whose cancel found the task still working (its cancel lost in a crash) asks again now and then.
        if (round % 6 !== 5) return;
        seen.forEach((task, i) => {
          if (tasks[i]!.skill === 'slow' && !hasEnded(task))
            void client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id })).catch(() => undefined);
        });
      },
    );

    // The chain, block by block.
    const moved = await expectChainAgrees(final, {
      sequencer,
      price: PRICE,
      payer: wallet.account,
      payee: agentKey.account,
      before: { payer: walletBefore, payee: agentBefore },
      balance,
      seed,
      ...(feePerTransfer === undefined ? {} : { feePerTransfer }),
    });
    console.info(
      `crash suite on ${profile} (seed ${seed}): ${final.length} tasks, ${moved.transactions} transactions, paid ${moved.paidOut}, refunded ${moved.paidBack}; ` +
        `tasks and crashes ${chaosEndedAt - startedAt} ms, settling ${Date.now() - chaosEndedAt} ms`,
    );
  },
  150_000,
);
