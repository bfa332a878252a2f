/**
 * Benchmark: how paid tasks batch into LEZ blocks. A gateway pays its built-in `paid` agent (skill `echo`, price 5)
 * on a local LEZ devnet with a timed block interval, and we count in how many blocks the payments land.
 *
 *   (a) concurrent — BENCH_TASKS blocking JSON-RPC SendMessage calls (A2A-Version 1.0, metadata {skill: 'echo'},
 *       distinct messageIds) sent at once over HTTP to /agents/paid, one connection each.
 *   (b) sequential — the same number of tasks strictly one at a time, each awaited before the next is sent.
 *
 * Wiring, as in test/bridge/paid-tasks-on-devnet.test.ts but without its helpers: startDevnet() on 127.0.0.1, then
 * startGateway() on the memory transport with payments.rail 'none' in the config and the payer handed in as a
 * dependency — gatewayPayer(lezRail(devnet, debug genesis 1)) — and the paid agent's AgentPayments on
 * lezRail(devnet, debug genesis 2). Both rails talk to the devnet over HTTP JSON-RPC, as to a real sequencer.
 *
 * Which block a payment landed in: every completed task's metadata.lez carries the payment's txHash; the devnet's
 * receipt API (devnet.receipt(txHash), the same data its JSON-RPC getTransactionReceipt serves) gives
 * {status: 'included', blockId}. As a cross-check, an onBlock listener records the transaction hashes of every block
 * built during the run, and both sources must agree for every payment.
 *
 * Functional checks (exit code 1 when one fails): every task TASK_STATE_COMPLETED with metadata.lez.status 'paid',
 * amount '5', the agent as payee and a txHash; the txHashes all distinct and all included; the gateway wallet down by
 * exactly 5 × tasks and the agent's account up by as much, per phase. The goal (all concurrent payments within
 * GOAL_BLOCKS blocks) is reported as PASS/MISS and does not change the exit code.
 *
 * Run:   node bench/lez-payments.ts   (from the project root; node:sqlite prints an ExperimentalWarning, harmless)
 *
 * Settings (environment):
 *   BENCH_BLOCK_MS    the devnet's block interval in ms (default 1000)
 *   BENCH_TASKS       tasks in (a), and by default in (b) (default 100)
 *   BENCH_SEQ_TASKS   tasks in (b) (default BENCH_TASKS); when fewer than BENCH_TASKS, blocks and wall time of (b)
 *                     are also extrapolated to BENCH_TASKS tasks, and the output says so
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startGateway, type Gateway } from '../src/gateway/gateway.ts';
import { hexToBytes } from '../src/lez/bytes.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../src/devnet/devnet.ts';
import { signingKeyFromSecretKey } from '../src/lez/keys.ts';
import { agentPayments, gatewayPayer, lezRail } from '../src/gateway/payment-wiring.ts';
import {
  ascending,
  benchGatewayConfig,
  FunctionalFailure,
  percentile,
  positiveInteger,
  postJson,
  printRows,
  runMain,
  sendMessageBody,
  sendMessageTask,
  stopAll,
  type HttpResponse,
} from './support.ts';

const BLOCK_MS = positiveInteger('BENCH_BLOCK_MS', 1000);
const TASKS = positiveInteger('BENCH_TASKS', 100);
const SEQ_TASKS = positiveInteger('BENCH_SEQ_TASKS', TASKS);

/** The `paid` agent's price of `echo` (src/logos/agents/paid.ts). */
const PRICE = 5n;
const SKILL = 'echo';
/** All concurrent payments must land within this many blocks. */
const GOAL_BLOCKS = 3;
/** A blocking paid task waits for its payment's block; allow many block intervals before calling it lost. */
const REQUEST_TIMEOUT_MS = Math.max(60_000, 30 * BLOCK_MS);
const SIGNING_MODE = 'prehash-v0.3';

const [walletGenesis, agentGenesis] = DEVNET_GENESIS;
const walletKey = signingKeyFromSecretKey(hexToBytes(walletGenesis.secretKeyHex));
const agentKey = signingKeyFromSecretKey(hexToBytes(agentGenesis.secretKeyHex));

type Mode = 'concurrent' | 'sequential';

interface PhaseResult {
  mode: Mode;
  tasks: number;
  wallMs: number;
  latencies: number[];
  /** Payments per block, in block order. */
  perBlock: Map<bigint, number>;
  firstBlock: bigint;
  lastBlock: bigint;
  /** Blocks the devnet built while the phase ran (including empty ones). */
  blocksBuilt: bigint;
  walletDrop: bigint;
  agentGain: bigint;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `LEZ payments — paid tasks (skill ${SKILL}, price ${PRICE}) through the gateway on a devnet with ${BLOCK_MS} ms blocks; ` +
      `(a) ${TASKS} concurrent, (b) ${SEQ_TASKS} sequential; Node ${process.version}, ${availableParallelism()} CPU(s)`,
  );
  const needed = PRICE * BigInt(TASKS + SEQ_TASKS);
  if (needed > walletGenesis.balance) {
    throw new Error(
      `the gateway wallet (debug genesis 1) holds ${walletGenesis.balance}; ${TASKS + SEQ_TASKS} tasks need ${needed}: lower BENCH_TASKS / BENCH_SEQ_TASKS`,
    );
  }

  const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-lez-bench-'));
  let devnet: Devnet | undefined;
  let gateway: Gateway | undefined;
  let unsubscribe: (() => void) | undefined;
  const results: PhaseResult[] = [];
  const started = performance.now();
  try {
    process.stdout.write('starting devnet and gateway… ');
    devnet = await startDevnet({ port: 0, host: '127.0.0.1', blockIntervalMs: BLOCK_MS });
    // The cross-check: which block each transaction hash appeared in, as the blocks are built.
    const seenInBlock = new Map<string, bigint>();
    unsubscribe = devnet.onBlock((block) => {
      for (const hash of block.transactions) seenInBlock.set(hash.toLowerCase(), block.blockId);
    });
    const config = await benchGatewayConfig(folder, {
      agents: [{ builtin: 'paid' }],
      transport: { kind: 'memory' },
      payments: {
        rail: 'none',
        perTransactionLimit: '1000000',
        perPeriodLimit: '1000000000',
        sequencerUrl: devnet.url,
      },
    });
    gateway = await startGateway(config, {
      payer: gatewayPayer(lezRail(devnet.url, walletKey, SIGNING_MODE)),
      paidAgent: { payments: agentPayments(lezRail(devnet.url, agentKey, SIGNING_MODE)), key: agentKey.secretKey },
      log: (message) => console.warn(`\ngateway: ${message}`),
    });
    console.log(`ok (devnet ${devnet.url}, gateway http://127.0.0.1:${gateway.port}/agents/paid)`);

    for (const [mode, tasks] of [
      ['concurrent', TASKS],
      ['sequential', SEQ_TASKS],
    ] as const) {
      process.stdout.write(`${LABELS[mode]} ×${tasks}: `);
      const result = await runPhase(devnet, gateway.port, mode, tasks, seenInBlock);
      results.push(result);
      console.log(
        `${result.perBlock.size} block(s) [${blockList(result.perBlock)}], ` +
          `${secs(result.wallMs)} s, wallet −${result.walletDrop}`,
      );
    }
  } finally {
    await stopAll(folder, () => {
      unsubscribe?.();
      return [gateway?.stop(), devnet?.stop()];
    });
  }

  console.log();
  printTable(results);
  console.log();
  printSummary(results);
  console.log(`\ntotal run time ${secs(performance.now() - started)} s`);
}

// ---------------------------------------------------------------------------------------------------------------

const LABELS: Record<Mode, string> = {
  concurrent: '(a) concurrent',
  sequential: '(b) sequential',
};

async function runPhase(
  devnet: Devnet,
  port: number,
  mode: Mode,
  tasks: number,
  seenInBlock: Map<string, bigint>,
): Promise<PhaseResult> {
  const walletBefore = devnet.balance(walletKey.account);
  const agentBefore = devnet.balance(agentKey.account);
  const blockBefore = devnet.lastBlockId();
  // One socket per task in flight, so the concurrent calls really are concurrent.
  const agent = new Agent({ keepAlive: true, maxSockets: mode === 'concurrent' ? tasks : 1 });
  const latencies: number[] = [];
  const txHashes: string[] = [];
  let wallMs: number;
  try {
    const one = async (index: number): Promise<void> => {
      const id = index + 1;
      const body = sendMessageBody(id, {
        messageId: `bench-${mode}-${id}-${randomUUID()}`,
        role: 'ROLE_USER',
        parts: [{ text: `task ${id}` }],
        metadata: { skill: SKILL },
      });
      const t0 = performance.now();
      const response = await postJson(`http://127.0.0.1:${port}/agents/paid`, body, {
        agent,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      latencies.push(performance.now() - t0);
      txHashes.push(checkPaidTask(response, id, `${mode} ${id}`));
    };
    const t0 = performance.now();
    if (mode === 'concurrent') {
      const settled = await Promise.allSettled(Array.from({ length: tasks }, (_, i) => one(i)));
      const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failures.length > 0) {
        throw new FunctionalFailure(
          `${failures.length} of ${tasks} concurrent task(s) failed; the first: ${String((failures[0]!.reason as Error)?.message ?? failures[0]!.reason)}`,
        );
      }
    } else {
      for (let i = 0; i < tasks; i++) await one(i);
    }
    wallMs = performance.now() - t0;
  } finally {
    agent.destroy();
  }
  const blockAfter = devnet.lastBlockId();

  if (new Set(txHashes).size !== txHashes.length)
    throw new FunctionalFailure(
      `${mode}: ${txHashes.length - new Set(txHashes).size} txHash(es) repeated across tasks`,
    );
  const walletDrop = walletBefore - devnet.balance(walletKey.account);
  const agentGain = devnet.balance(agentKey.account) - agentBefore;
  const expected = PRICE * BigInt(tasks);
  if (walletDrop !== expected)
    throw new FunctionalFailure(`${mode}: the gateway wallet dropped by ${walletDrop}, expected exactly ${expected}`);
  if (agentGain !== expected)
    throw new FunctionalFailure(`${mode}: the agent's account rose by ${agentGain}, expected exactly ${expected}`);

  // txHash → block: the devnet's receipt, cross-checked against the blocks seen by the onBlock listener.
  const perBlock = new Map<bigint, number>();
  for (const hash of txHashes) {
    const receipt = devnet.receipt(hash);
    if (receipt.status !== 'included')
      throw new FunctionalFailure(`${mode}: payment ${hash} is ${receipt.status}, not included`);
    const seen = seenInBlock.get(hash);
    if (seen !== receipt.blockId)
      throw new FunctionalFailure(
        `${mode}: payment ${hash}: receipt says block ${receipt.blockId}, the block listener saw it in ${seen ?? 'none'}`,
      );
    perBlock.set(receipt.blockId, (perBlock.get(receipt.blockId) ?? 0) + 1);
  }
  const sorted = new Map([...perBlock].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  const ids = [...sorted.keys()];
  return {
    mode,
    tasks,
    wallMs,
    latencies,
    perBlock: sorted,
    firstBlock: ids[0]!,
    lastBlock: ids.at(-1)!,
    blocksBuilt: blockAfter - blockBefore,
    walletDrop,
    agentGain,
  };
}

interface TaskLike {
  id?: unknown;
  status?: { state?: unknown; message?: { parts?: { text?: unknown }[] } };
  metadata?: { lez?: { status?: unknown; amount?: unknown; payee?: unknown; txHash?: unknown } };
}

/** The response must be a completed task whose payment was made; returns the payment's txHash (lowercase). */
function checkPaidTask(response: HttpResponse, id: number, what: string): string {
  const { task, fail } = sendMessageTask<TaskLike>(response, id, `SendMessage ${what}`);
  if (task.status?.state !== 'TASK_STATE_COMPLETED')
    fail(`task state is ${JSON.stringify(task.status?.state)}, not TASK_STATE_COMPLETED`);
  const lez = task.metadata?.lez;
  if (lez?.status !== 'paid') fail(`metadata.lez.status is ${JSON.stringify(lez?.status)}, not "paid"`);
  if (lez?.amount !== PRICE.toString()) fail(`metadata.lez.amount is ${JSON.stringify(lez?.amount)}, not "${PRICE}"`);
  if (lez?.payee !== agentKey.account)
    fail(`metadata.lez.payee is ${JSON.stringify(lez?.payee)}, not the agent's account ${agentKey.account}`);
  if (typeof lez?.txHash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(lez.txHash))
    fail(`metadata.lez.txHash is ${JSON.stringify(lez?.txHash)}, not a 64-hex hash`);
  return (lez!.txHash as string).toLowerCase();
}

// ---------------------------------------------------------------------------------------------------------------
// Report

function printTable(results: PhaseResult[]): void {
  const header = [
    'phase',
    'tasks',
    'blocks',
    'block span',
    'blocks built',
    'tx/block',
    'wall s',
    'blocks/task',
    's/task',
    'p50 ms',
    'max ms',
    'wallet Δ',
  ];
  const rows = results.map((r) => {
    const sorted = ascending(r.latencies);
    const p50 = percentile(sorted, 0.5);
    return [
      LABELS[r.mode],
      String(r.tasks),
      String(r.perBlock.size),
      `#${r.firstBlock}–#${r.lastBlock} (${r.lastBlock - r.firstBlock + 1n})`,
      String(r.blocksBuilt),
      (r.tasks / r.perBlock.size).toFixed(1),
      secs(r.wallMs),
      (r.perBlock.size / r.tasks).toFixed(2),
      (r.wallMs / 1000 / r.tasks).toFixed(3),
      sorted.length ? p50.toFixed(0) : '-',
      sorted.length ? sorted.at(-1)!.toFixed(0) : '-',
      `−${r.walletDrop}`,
    ];
  });
  printRows(header, rows, 1);
  console.log(
    'blocks: distinct blocks the payments landed in (txHash from metadata.lez → devnet receipt blockId, cross-checked with onBlock);\n' +
      'block span: first–last of those blocks (count); blocks built: blocks the devnet produced during the phase; p50/max: per-request latency',
  );
}

function printSummary(results: PhaseResult[]): void {
  const concurrent = results.find((r) => r.mode === 'concurrent');
  const sequential = results.find((r) => r.mode === 'sequential');
  if (sequential && sequential.tasks < TASKS) {
    const factor = TASKS / sequential.tasks;
    console.log(
      `(b) ran ${sequential.tasks} tasks, not ${TASKS} (BENCH_SEQ_TASKS); extrapolated linearly to ${TASKS}: ` +
        `~${Math.round(sequential.perBlock.size * factor)} blocks, ~${secs(sequential.wallMs * factor)} s ` +
        `(${(sequential.perBlock.size / sequential.tasks).toFixed(2)} blocks/task measured)`,
    );
  }
  if (concurrent && sequential) {
    const seqBlocksAtN = (sequential.perBlock.size / sequential.tasks) * concurrent.tasks;
    const seqWallAtN = (sequential.wallMs / sequential.tasks) * concurrent.tasks;
    console.log(
      `batching: ${concurrent.tasks} concurrent tasks took ${concurrent.perBlock.size} block(s) and ${secs(concurrent.wallMs)} s; ` +
        `one at a time they take ${sequential.tasks < concurrent.tasks ? '~' : ''}${Math.round(seqBlocksAtN)} blocks and ${sequential.tasks < concurrent.tasks ? '~' : ''}${secs(seqWallAtN)} s ` +
        `(${(seqWallAtN / concurrent.wallMs).toFixed(1)}× the wall time)`,
    );
  }
  if (concurrent) {
    const verdict = concurrent.perBlock.size <= GOAL_BLOCKS ? 'PASS' : 'MISS';
    console.log(
      `goal: all ${concurrent.tasks} concurrent within ${GOAL_BLOCKS} blocks — ${verdict} ` +
        `(${concurrent.perBlock.size} distinct block(s), span ${concurrent.lastBlock - concurrent.firstBlock + 1n}, ${BLOCK_MS} ms blocks)`,
    );
  }
}

/** `#id:payments` per block; a long run of one-payment blocks as a range. */
function blockList(perBlock: Map<bigint, number>): string {
  const entries = [...perBlock];
  if (entries.length <= 12) return entries.map(([id, n]) => `#${id}:${n}`).join(' ');
  const max = Math.max(...entries.map(([, n]) => n));
  return `#${entries[0]![0]}…#${entries.at(-1)![0]}, at most ${max} per block`;
}

function secs(ms: number): string {
  return (ms / 1000).toFixed(2);
}

await runMain(main);
