/**
 * Benchmark: blocking JSON-RPC SendMessage (A2A v1.0) against
 *   (a) the ceiling — a bare Hono app returning a static completed task,
 *   (b) @a2a-js/sdk 1.3.0's own Express server with an in-process echo executor and InMemoryTaskStore,
 *   (p) the plain-HTTP deployment of a remote agent: a reverse proxy in front of (b) running as its own process,
 *   (c) this gateway with the built-in echo agent and the durable SQLite store,
 *   (d) the same without durability, (e) this gateway over Waku with the echo agent as its own process,
 * one after another, with the same load generator (autocannon's programmatic API).
 *
 * Run:   npm run bench        (or: node bench/gateway-vs-sdk.ts from the project root; Node ≥ 22.18 strips the
 *        TypeScript types natively, no flag needed. node:sqlite prints an ExperimentalWarning; it is harmless.)
 *
 * Settings (environment):
 *   BENCH_SECONDS      measured seconds per target (default 8); each target also gets BENCH_WARMUP_SECONDS
 *                      (default 2) of uncounted warm-up first
 *   BENCH_CONNECTIONS  concurrent connections (default 32)
 *   BENCH_TARGETS      comma-separated subset of hono,sdk,proxy,gateway,gateway-memory,gateway-waku (default:
 *                      all), e.g. for profiling
 *   BENCH_ROUNDS       rounds (default 3): each round measures every target once, in order; the table gives each
 *                      target's median round, and each ratio is the median of the rounds' ratios. On a shared
 *                      machine one target's figure moved by 40 % between runs minutes apart: a ratio of two targets
 *                      measured one after the other, round by round, is what holds still.
 *   BENCH_INLINE=1     run the servers on the main thread, sharing it with autocannon (default: each server runs
 *                      in a worker thread of this process, so server and load generator each get a JS thread)
 *
 * Profiling the gateway alone:  BENCH_TARGETS=gateway node --cpu-prof --cpu-prof-dir=<dir> bench/gateway-vs-sdk.ts
 * (one .cpuprofile per thread; the server's is the worker's.)
 *
 * With the servers in worker threads, each target's row also gives the CPU time of the server's thread per request
 * over the measured seconds (user + system, `process.threadCpuUsage()` in the worker): steadier than req/s on a
 * shared machine, and what the ratios come down to when the cores are saturated. (A target's other processes, the
 * Waku echo agent of (e), are not in it.)
 *
 * Every target is first checked functionally (one request must come back as a completed task echoing the text),
 * and again after the load; under load every response body is checked too. The exit code is 0 whatever the
 * numbers are, and 1 only on a functional failure: a failed check, or errors / non-2xx / wrong bodies under load.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import {
  A2A_JSON_HEADERS,
  checkCompletedEcho,
  ECHO_TEXT,
  isCompletedEchoBody,
  loadSettings,
  delay,
  positiveInteger,
  FunctionalFailure,
  postJson,
  printRows,
  runMain,
  sendMessageBody,
  subsetFromEnv,
} from './support.ts';
import { startTarget, TARGET_LABELS, TARGETS, type RunningTarget, type TargetName } from './targets.ts';

const { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS } = loadSettings();
const INLINE = process.env.BENCH_INLINE === '1';
const SELECTED = subsetFromEnv('BENCH_TARGETS', TARGETS, 'target');
const ROUNDS = positiveInteger('BENCH_ROUNDS', 3);

const GOALS = [
  { label: 'c/b (gateway vs SDK)', numerator: 'gateway', denominator: 'sdk', min: 2.0 },
  { label: 'c/a (gateway vs ceiling)', numerator: 'gateway', denominator: 'hono', min: 0.4 },
  { label: 'd/a (no durability vs ceiling)', numerator: 'gateway-memory', denominator: 'hono' },
  // The path over Waku against what reaching a remote agent costs without Logos: a proxy and the agent's process.
  { label: 'e/p (over Waku vs HTTP proxy)', numerator: 'gateway-waku', denominator: 'proxy', min: 1.0 },
  { label: 'e/b (over Waku vs SDK)', numerator: 'gateway-waku', denominator: 'sdk' },
] as const satisfies readonly { label: string; numerator: TargetName; denominator: TargetName; min?: number }[];

/** Over Waku, the median latency must stay low too: throughput bought with deep queues would not count. */
const WAKU_P50_GOAL_MS = 30;

const REQUEST_BODY = sendMessageBody(1, {
  messageId: 'bench-message-1',
  role: 'ROLE_USER',
  parts: [{ text: ECHO_TEXT }],
});

interface Measurement {
  target: TargetName;
  requestsPerSecond: number;
  total: number;
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  badBodies: number;
  /** CPU time of the server's thread per request, µs; undefined with BENCH_INLINE=1 (one thread for both). */
  serverCpuMicros: number | undefined;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `A2A v1.0 blocking SendMessage — ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per target, ` +
      `${ROUNDS} round(s), servers ${INLINE ? 'on the main thread (BENCH_INLINE=1)' : 'in worker threads'}; ` +
      `Node ${process.version}, ${availableParallelism()} CPU(s)`,
  );
  const rounds: Measurement[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`\nround ${round} of ${ROUNDS}`);
    rounds.push(await measureRound());
  }
  const results = SELECTED.map((target) => medianRound(rounds.map((round) => round.find((r) => r.target === target)!)));

  console.log();
  printTable(results);
  console.log();
  printGoals(rounds);

  const failed = rounds.flat().filter((r) => r.errors + r.non2xx + r.badBodies > 0);
  if (failed.length > 0) {
    throw new FunctionalFailure(
      `Errors under load (the numbers above are not valid for these targets): ${failed
        .map(
          (r) =>
            `${r.target}: ${r.errors} errors (${r.timeouts} timeouts), ${r.non2xx} non-2xx, ${r.badBodies} bad bodies`,
        )
        .join('; ')}`,
    );
  }
}

/** Every selected target once, in order. */
async function measureRound(): Promise<Measurement[]> {
  const results: Measurement[] = [];
  for (const target of SELECTED) {
    process.stdout.write(`\n${TARGET_LABELS[target]}: starting… `);
    const server = INLINE ? await startInline(target) : await startInWorker(target);
    try {
      process.stdout.write(`${server.url} — check… `);
      await checkSendMessage(target, server.url);
      process.stdout.write('ok — warm-up… ');
      await load(server.url, WARMUP_SECONDS);
      process.stdout.write('measuring… ');
      const cpuBefore = await server.cpuMicros?.();
      const result = await load(server.url, SECONDS);
      const cpuAfter = await server.cpuMicros?.();
      await checkSendMessage(target, server.url);
      const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
      results.push(measurementOf(target, result, cpu));
      console.log('done');
    } finally {
      await server.close();
    }
  }
  return results;
}

/** A target's round of median throughput (with its own latencies and CPU); errors of every round count. */
function medianRound(measured: Measurement[]): Measurement {
  const sorted = [...measured].sort((x, y) => x.requestsPerSecond - y.requestsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const sum = (field: 'errors' | 'timeouts' | 'non2xx' | 'badBodies') =>
    measured.reduce((total, r) => total + r[field], 0);
  return {
    ...median,
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non2xx: sum('non2xx'),
    badBodies: sum('badBodies'),
  };
}

/** The median of `values` (the lower middle one of an even count, as `medianRound` takes). */
function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

// ---------------------------------------------------------------------------------------------------------------
// Load

let messageCount = 0;

function load(url: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: 'POST',
    headers: A2A_JSON_HEADERS,
    // Each request a new message, as real clients send: nothing may be answered from a retry's cache.
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: sendMessageBody(1, {
            messageId: `bench-message-${++messageCount}`,
            role: 'ROLE_USER',
            parts: [{ text: ECHO_TEXT }],
          }),
        }),
      },
    ],
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    // A 200 carrying a JSON-RPC error or a non-completed task must not count as throughput.
    verifyBody: isCompletedEchoBody,
  });
}

function measurementOf(target: TargetName, result: autocannon.Result, cpuMicros: number | undefined): Measurement {
  return {
    target,
    requestsPerSecond: result.requests.total / result.duration,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    badBodies: result.mismatches,
    serverCpuMicros:
      cpuMicros === undefined || result.requests.total === 0 ? undefined : cpuMicros / result.requests.total,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Functional check: one SendMessage must return a JSON-RPC result holding a completed task that echoes the text.

async function checkSendMessage(target: TargetName, url: string): Promise<void> {
  // A fresh connection each time: no pooled socket survives the target.
  const response = await postJson(url, REQUEST_BODY, {
    agent: false,
    timeoutMs: 10_000,
    timeoutError: () => new Error(`POST ${url} timed out after 10 s`),
  });
  checkCompletedEcho(response, 1, `${TARGET_LABELS[target]} at ${url}`, ECHO_TEXT);
}

// ---------------------------------------------------------------------------------------------------------------
// Servers: in a worker thread of this process (default) or on the main thread.

/** A running target; in a worker thread, it also answers that thread's CPU time so far (µs). */
type BenchTarget = RunningTarget & { cpuMicros?: () => Promise<number> };

async function startInline(target: TargetName): Promise<BenchTarget> {
  return startTarget(target);
}

async function startInWorker(target: TargetName): Promise<BenchTarget> {
  const worker = new Worker(new URL('./target-worker.ts', import.meta.url), { workerData: { target } });
  let workerError: Error | undefined;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const next = (type: string, timeoutMs: number) =>
    new Promise<{ type: string; url?: string; error?: string; micros?: number }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new FunctionalFailure(`${target} worker: no "${type}" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        cleanup();
        resolve(message);
      };
      const onError = (error: Error) => {
        cleanup();
        reject(new FunctionalFailure(`${target} worker failed: ${error.stack ?? error.message}`));
      };
      const onExit = (code: number) => {
        cleanup();
        reject(
          new FunctionalFailure(
            `${target} worker exited (code ${code}) before "${type}"${workerError ? `: ${workerError.stack}` : ''}`,
          ),
        );
      };
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  worker.on('error', (error) => (workerError = error));

  const ready = await next('ready', 30_000);
  return {
    url: ready.url!,
    async cpuMicros() {
      const answer = next('cpu', 5_000);
      worker.postMessage({ type: 'cpu' });
      return (await answer).micros!;
    },
    async close() {
      const stopped = next('stopped', 15_000);
      worker.postMessage({ type: 'stop' });
      const { error } = await stopped;
      if (error) throw new FunctionalFailure(`${target} did not stop cleanly: ${error}`);
      // A target that leaves handles open (timers, sockets, …) would keep its thread alive: say so, then end it.
      const code = await Promise.race([exited, delay(3_000, { unref: true }).then(() => undefined)]);
      if (code === undefined) {
        console.warn(`\nwarning: the ${target} worker did not exit by itself within 3 s after stop(); terminating it`);
        await worker.terminate();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Report

function printTable(results: Measurement[]): void {
  const header = [
    'target',
    'req/s',
    'server CPU µs/req',
    'p50 ms',
    'p99 ms',
    'mean ms',
    'requests',
    'errors',
    'non-2xx',
    'bad body',
  ];
  const rows = results.map((r) => [
    TARGET_LABELS[r.target],
    r.requestsPerSecond.toFixed(0),
    r.serverCpuMicros === undefined ? 'n/a' : r.serverCpuMicros.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    r.mean.toFixed(2),
    String(r.total),
    r.timeouts > 0 ? `${r.errors} (${r.timeouts} timeouts)` : String(r.errors),
    String(r.non2xx),
    String(r.badBodies),
  ]);
  printRows(header, rows, 1);
}

/**
 * Each ratio is taken within each round and the median of the rounds' ratios printed, the rounds' own after it: two
 * targets measured one after the other share the machine's state of that moment.
 */
function printGoals(rounds: Measurement[][]): void {
  const ratios = (of: (round: Map<TargetName, Measurement>) => number | undefined): number[] | undefined => {
    const values = rounds.map((round) => of(new Map(round.map((r) => [r.target, r]))));
    return values.every((value) => value !== undefined) ? (values as number[]) : undefined;
  };
  const line = (label: string, values: number[], verdict: string, digits = 2) => {
    const each = values.length > 1 ? `   (rounds ${values.map((value) => value.toFixed(digits)).join(', ')})` : '';
    console.log(`${label.padEnd(30)} ${median(values).toFixed(digits).padStart(6)}   ${verdict}${each}`);
  };
  for (const goal of GOALS) {
    const values = ratios((round) => {
      const [numerator, denominator] = [round.get(goal.numerator), round.get(goal.denominator)];
      return numerator && denominator ? numerator.requestsPerSecond / denominator.requestsPerSecond : undefined;
    });
    if (!values) {
      console.log(`${goal.label.padEnd(30)} n/a (needs ${goal.numerator} and ${goal.denominator} in BENCH_TARGETS)`);
      continue;
    }
    const verdict =
      'min' in goal
        ? `goal ≥ ${goal.min.toFixed(1)}   ${median(values) >= goal.min ? 'PASS' : 'MISS'}`
        : '(for information)';
    line(goal.label, values, verdict);
  }
  // The same ratios from the servers' CPU per request: what c/b and c/a come to when the load generator and the
  // server each have a core, whatever else the machine runs meanwhile.
  for (const [label, denominator] of [
    ['c/b', 'sdk'],
    ['c/a', 'hono'],
  ] as const) {
    const values = ratios((round) => {
      const [theirs, ours] = [round.get(denominator)?.serverCpuMicros, round.get('gateway')?.serverCpuMicros];
      return theirs === undefined || ours === undefined ? undefined : theirs / ours;
    });
    if (values) line(`${label} by server CPU per request`, values, '(for information)');
  }
  const p50s = ratios((round) => round.get('gateway-waku')?.p50);
  if (p50s) {
    const met = median(p50s) <= WAKU_P50_GOAL_MS ? 'PASS' : 'MISS';
    line('e p50 (over Waku)', p50s, `goal ≤ ${WAKU_P50_GOAL_MS} ms  ${met}`, 1);
  }
}

await runMain(main);
