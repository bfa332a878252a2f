/**
 * Benchmark: the CPU time one task costs over Waku — target (e) of bench/gateway-vs-sdk.ts, the gateway on its
 * Waku relay node and the echo agent as its own process — split into the gateway's process and the agent's.
 *
 * Throughput on a machine whose two cores are shared swings with whatever else runs; CPU time per task hardly
 * does, and it is what bounds (e) there: the gateway, the agent and the load generator share the cores. So this
 * script runs the gateway on its main thread, the load (autocannon, BENCH_CONNECTIONS blocking SendMessage
 * requests in flight, each a new message) in a child process of its own, and reads the CPU time (user + system,
 * every thread: JavaScript, garbage collection, libuv) of the gateway's process and of the agent's across the
 * measured seconds, divided by the tasks completed in them. Beside it, the time the gateway's event loop was busy per
 * task: its main thread's share, what bounds one gateway on a machine with cores to spare (work moved to other threads,
 * such as sealing, leaves it).
 *
 * What part of that is the stock wire's own cost: the script first measures, in this process before any load, one
 * task's cryptography alone (bench/wire-crypto.ts: a 1:1 request and a keyed reply, sealed and opened, the seven
 * secp256k1 operations of both ends), the floor no gateway goes below, and prints each figure as a multiple of it
 * too. The rest of the multiple is ours to cut. It is the machine's as much as the milliseconds are: the same code
 * cost 1.2–1.7 ms per task on one machine and 2.1–2.8 ms on another, where libsecp256k1 ran as fast and HTTP and
 * JavaScript two to three times slower.
 *
 * Run:   node bench/waku-cpu-per-task.ts   (Linux: the agent's CPU time is read from /proc)
 *
 * Settings (environment): BENCH_SECONDS (default 8), BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS
 * (default 32), BENCH_ROUNDS measured windows on the same target (default 2; each is reported),
 * BENCH_AGENT_NODE_FLAGS Node flags for the agent's process (profile both: `BENCH_AGENT_NODE_FLAGS=--cpu-prof node
 * --cpu-prof bench/waku-cpu-per-task.ts`).
 *
 * Exit code 0 whatever the numbers are; 1 on a functional failure (a check, errors or wrong bodies under load).
 */
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  A2A_JSON_HEADERS,
  ascending,
  checkCompletedEcho,
  ECHO_TEXT,
  FunctionalFailure,
  isCompletedEchoBody,
  loadSettings,
  percentile,
  positiveInteger,
  postJson,
  printRows,
  runMain,
  sendMessageBody,
} from './support.ts';
import { wireCryptoMsPerTask } from './wire-crypto.ts';

const { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS } = loadSettings();
const ROUNDS = positiveInteger('BENCH_ROUNDS', 2);
/** Issue #26: gateway and agent together, the stock wire's seven secp256k1 operations included. */
const GOAL_MS_PER_TASK = 1.5;

interface LoadRequest {
  url: string;
  seconds: number;
  firstMessage: number;
}
interface LoadResult {
  requests: number;
  duration: number;
  p50: number;
  failures: number;
}

// ---------------------------------------------------------------------------------------------------------------
// The load generator's process: one autocannon run per request from the parent.

function loadGenerator(): void {
  process.on('message', (message: LoadRequest | 'exit') => {
    if (message === 'exit') return process.disconnect();
    let sent = message.firstMessage;
    void autocannon({
      url: message.url,
      method: 'POST',
      headers: A2A_JSON_HEADERS,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: sendMessageBody(1, { messageId: `cpu-${++sent}`, role: 'ROLE_USER', parts: [{ text: ECHO_TEXT }] }),
          }),
        },
      ],
      connections: CONNECTIONS,
      pipelining: 1,
      duration: message.seconds,
      verifyBody: isCompletedEchoBody,
    }).then((result) => {
      const answer: LoadResult = {
        requests: result.requests.total,
        duration: result.duration,
        p50: result.latency.p50,
        failures: result.errors + result.non2xx + result.mismatches,
      };
      process.send!(answer);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The gateway's process.

/** CPU seconds (user + system) of a process of this machine, from /proc; undefined elsewhere. */
function processCpuSeconds(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces: the fields that follow start after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The agent: the one child process of this one that is not the load generator. */
function agentPid(loadGeneratorPid: number): number | undefined {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === loadGeneratorPid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children.length === 1 ? children[0] : undefined;
}

async function main(): Promise<void> {
  const { startTarget } = await import('./targets.ts');
  console.log(
    `CPU per task over Waku (target e) — ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ` +
      `${ROUNDS} × ${SECONDS} s measured; load generator in its own process; Node ${process.version}`,
  );
  // Measured before anything else runs: the floor is the cryptography's cost on a quiet process.
  const floor = await wireCryptoMsPerTask();
  console.log(
    `the wire's cryptography for one task, alone in this process (${floor.backend}): ${floor.ms.toFixed(3)} ms ` +
      '(a 1:1 request and a keyed reply, each sealed and opened)',
  );
  const generator = fork(fileURLToPath(import.meta.url), ['--load'], { stdio: 'inherit' });
  const target = await startTarget('gateway-waku');
  let messages = 0;
  const run = (seconds: number) =>
    new Promise<LoadResult>((resolve) => {
      generator.once('message', (result: LoadResult) => resolve(result));
      const request: LoadRequest = { url: target.url, seconds, firstMessage: messages };
      messages += 1_000_000;
      generator.send(request);
    });
  try {
    const check = await postJson(
      target.url,
      sendMessageBody(1, { messageId: 'cpu-check', role: 'ROLE_USER', parts: [{ text: ECHO_TEXT }] }),
      { agent: false, timeoutMs: 10_000, timeoutError: () => new Error('the check timed out after 10 s') },
    );
    checkCompletedEcho(check, 1, 'the gateway over Waku', ECHO_TEXT);
    const agent = agentPid(generator.pid!);
    if (agent === undefined) throw new FunctionalFailure('the echo agent process was not found in /proc (Linux only)');
    await run(WARMUP_SECONDS);
    const rows: string[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const gatewayBefore = process.cpuUsage();
      const loopBefore = performance.eventLoopUtilization();
      const agentBefore = processCpuSeconds(agent)!;
      const result = await run(SECONDS);
      const gatewayCpu = process.cpuUsage(gatewayBefore);
      const loop = performance.eventLoopUtilization(loopBefore);
      const agentSeconds = processCpuSeconds(agent)! - agentBefore;
      if (result.failures > 0) throw new FunctionalFailure(`${result.failures} failed requests under load`);
      const perTask = (seconds: number) => (seconds * 1_000) / result.requests;
      const gatewaySeconds = (gatewayCpu.user + gatewayCpu.system) / 1e6;
      const bothMs = perTask(gatewaySeconds + agentSeconds);
      rows.push([
        String(round),
        (result.requests / result.duration).toFixed(0),
        result.p50.toFixed(1),
        perTask(gatewaySeconds).toFixed(3),
        perTask(loop.active / 1_000).toFixed(3),
        perTask(agentSeconds).toFixed(3),
        bothMs.toFixed(3),
        `${(bothMs / floor.ms).toFixed(2)}×`,
      ]);
    }
    console.log();
    printRows(
      [
        'round',
        'req/s',
        'p50 ms',
        'gateway CPU ms/task',
        'its event loop busy ms/task',
        'agent CPU ms/task',
        'both ms/task',
        'both ÷ floor',
      ],
      rows,
      0,
    );
    const both = percentile(ascending(rows.map((row) => Number(row[6]))), 0.5);
    const met = both <= GOAL_MS_PER_TASK ? 'PASS' : 'MISS';
    console.log(
      `\nboth processes, median of rounds ${both.toFixed(3)} ms/task   goal ≤ ${GOAL_MS_PER_TASK} ms  ${met}` +
        `   (${(both / floor.ms).toFixed(2)}× the wire's cryptography, ${floor.ms.toFixed(3)} ms)`,
    );
  } finally {
    generator.send('exit');
    await target.close();
  }
}

if (process.argv.includes('--load')) loadGenerator();
else await runMain(main);
