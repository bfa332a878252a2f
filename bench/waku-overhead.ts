/**
 * Benchmark: what the gateway itself adds to a round trip over Waku Relay, on two relay nodes on 127.0.0.1.
 *
 *   (a) raw Waku 1:1 round trip — node A `send`s a small payload to node B (ECIES-encrypted and signed); B's
 *       onDirect handler `send`s it straight back; A times from the call to `send` until the reply is delivered.
 *   (b) gateway round trip — a blocking JSON-RPC SendMessage (A2A v1.0, text "hello") over keep-alive HTTP to a
 *       gateway started with startGateway() on the waku transport; its built-in echo agent runs on its own Waku
 *       node dialled to the gateway's, so each request is a 1:1 task_request plus one keyed task_result on the
 *       task's status topic.
 *
 * and, for information,
 *   (a′) raw Waku in the binding's shape — A `send`s 1:1 to B as in (a), but B answers with a publication under
 *       a key (AES-256-GCM, signed) on a content topic A subscribes to, as the agent answers on a task's status
 *       topic. A 1:1 message costs an ECIES seal and open (a few ms of secp256k1 in JS), a keyed publication a
 *       signature and its recovery but symmetric encryption (less), so
 *       (a) carries more transport crypto than (b) does, and (b) − (a) understates the gateway's cost by the
 *       difference; (b) − (a′) compares like with like.
 *
 * Both networks have the same shape (one node dials the other directly, defaults for cluster and shards), and both
 * run in this process, on the same thread as the client, so the difference to (b) is what HTTP, JSON-RPC, the task
 * engine, SQLite and the envelope work (both ends of the binding) cost on top of the Waku hops.
 *
 * Requests are sequential (one in flight). The phases run interleaved, a a′ b a a′ b …, because the machine is
 * noisy; every round is reported.
 *
 * Run:   node bench/waku-overhead.ts   (from the project root; node:sqlite prints an ExperimentalWarning, harmless)
 *
 * Settings (environment):
 *   BENCH_SAMPLES   measured requests per phase (default 300), each phase after BENCH_WARMUP (default 30) uncounted
 *   BENCH_ROUNDS    how many rounds of the phases to run (default 2)
 *   BENCH_PHASES    comma-separated subset of raw,raw-pub,gateway (default all), e.g. to profile the gateway alone:
 *                   BENCH_PHASES=gateway node --cpu-prof --cpu-prof-dir=<dir> bench/waku-overhead.ts
 *
 * Exit code 0 whatever the numbers are; 1 only when a functional check fails (a reply that is missing, late or
 * wrong, or a response that is not a completed task echoing the text).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startGateway, type Gateway } from '../src/gateway/gateway.ts';
import { WakuTransport } from '../src/logos/transports/waku.ts';
import {
  benchGatewayConfig,
  checkCompletedEcho,
  delay,
  FunctionalFailure,
  positiveInteger,
  postJson,
  printRows,
  runMain,
  sendMessageBody,
  stopAll,
  subsetFromEnv,
  summarize,
  type Summary,
} from './support.ts';

const ALL_PHASES = ['raw', 'raw-pub', 'gateway'] as const;
type Phase = (typeof ALL_PHASES)[number];

const SAMPLES = positiveInteger('BENCH_SAMPLES', 300);
const WARMUP = positiveInteger('BENCH_WARMUP', 30);
const ROUNDS = positiveInteger('BENCH_ROUNDS', 2);
const PHASES = subsetFromEnv('BENCH_PHASES', ALL_PHASES, 'phase');

/** p50 of (b) − (a) must stay under this. */
const GOAL_P50_MS = 2;
const REQUEST_TIMEOUT_MS = 10_000;
/** Padding of the raw phases' payload (a small message: JSON naming both parties, as every 1:1 body does). */
const RAW_PADDING = 'a'.repeat(200);
/** The key of B's answers in (a′), as a task's status key. */
const REPLY_KEY = new Uint8Array(32).fill(9);

/** The raw phases' body. B answers with the same `seq` and `pad`, and `from` and `to` swapped. */
interface RawBody {
  from: string;
  to: string;
  seq: number;
  pad: string;
}

const rawBytes = (body: RawBody) => new TextEncoder().encode(JSON.stringify(body));
const rawBody = (payload: Uint8Array) => JSON.parse(new TextDecoder().decode(payload)) as RawBody;
/** Any /logos-a2a/1/… topic names the binding's shard, where inboxes and status topics live. */
const BINDING_TOPIC = '/logos-a2a/1/mesh/proto';
/** Where B publishes its answers in (a′): on the binding's shard, like a task's status topic. */
const REPLY_TOPIC = '/logos-a2a/1/bench-replies/proto';
const ECHO_TEXT = 'hello';

interface Stats extends Summary {
  phase: Phase;
  round: number;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `Waku overhead — sequential round trips on 127.0.0.1, ${WARMUP} warm-up + ${SAMPLES} measured per phase, ` +
      `${ROUNDS} round(s) of ${PHASES.join(' then ')}; Node ${process.version}, ${availableParallelism()} CPU(s)`,
  );
  const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-waku-bench-'));
  let raw: RawPair | undefined;
  let gateway: Gateway | undefined;
  const results: Stats[] = [];
  try {
    if (PHASES.includes('raw') || PHASES.includes('raw-pub')) {
      process.stdout.write('\n(a), (a′) raw pair: starting… ');
      raw = await startRawPair();
      console.log(`ok (B dialled A at ${raw.a.multiaddrs()[0] ?? '?'})`);
    }
    if (PHASES.includes('gateway')) {
      process.stdout.write('(b) gateway: starting… ');
      gateway = await startBenchGateway(folder);
      console.log(`ok (http://127.0.0.1:${gateway.port}/, echo agent at ${gateway.directory.all()[0]?.id ?? '?'})`);
    }

    for (let round = 1; round <= ROUNDS; round++) {
      for (const phase of PHASES) {
        process.stdout.write(`round ${round} ${LABELS[phase]}: `);
        const timings =
          phase === 'gateway'
            ? await measureGateway(gateway!.port)
            : await measureRaw(raw!, phase === 'raw' ? 'direct' : 'publication');
        const stats = statsOf(phase, round, timings);
        results.push(stats);
        console.log(`p50 ${ms(stats.p50)} ms, p99 ${ms(stats.p99)} ms`);
      }
    }
  } finally {
    await stopAll(folder, () => {
      const stops: Promise<unknown>[] = [];
      if (raw) stops.push(raw.a.stop(), raw.b.stop());
      if (gateway) stops.push(gateway.stop());
      return stops;
    });
  }

  console.log();
  printTable(results);
  console.log();
  printOverhead(results);
}

// ---------------------------------------------------------------------------------------------------------------
// (a), (a′) Two bare Waku nodes: B dials A (as an in-process agent dials the gateway) and echoes every 1:1 message
// back to its sender, 1:1 or as a publication on REPLY_TOPIC.

type ReplyPath = 'direct' | 'publication';

interface RawPair {
  a: WakuTransport;
  b: WakuTransport;
  /** How B answers. */
  replyPath: ReplyPath;
  /** A's receiver of B's answers, by either path. */
  onReply?: (payload: Uint8Array, sender: string | undefined, path: ReplyPath) => void;
}

async function startRawPair(): Promise<RawPair> {
  const a = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'] });
  let b: WakuTransport | undefined;
  try {
    b = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'], staticPeers: a.multiaddrs() });
    const pair: RawPair = { a, b, replyPath: 'direct' };
    const echoer = b;
    echoer.onDirect((payload, delivery) => {
      if (delivery.sender === undefined) return;
      const answer = rawBytes({ ...rawBody(payload), from: echoer.address, to: delivery.sender });
      const sent =
        pair.replyPath === 'direct'
          ? echoer.send(delivery.sender, answer)
          : echoer.publish(REPLY_TOPIC, answer, { key: REPLY_KEY });
      void sent.catch((error: unknown) => console.error('\nraw echo: reply failed', error));
    });
    a.onDirect((payload, delivery) => pair.onReply?.(payload, delivery.sender, 'direct'));
    a.subscribe(REPLY_TOPIC, (payload, delivery) => pair.onReply?.(payload, delivery.sender, 'publication'), {
      key: REPLY_KEY,
    });
    await until(
      () => a.meshPeerCount(BINDING_TOPIC) > 0 && echoer.meshPeerCount(BINDING_TOPIC) > 0,
      15_000,
      'the raw pair to form a relay mesh',
    );
    return pair;
  } catch (error) {
    await Promise.allSettled([a.stop(), b?.stop()]);
    throw error;
  }
}

async function measureRaw(pair: RawPair, replyPath: ReplyPath): Promise<number[]> {
  const { a, b } = pair;
  let pending: { seq: number; resolve: (at: number) => void; reject: (error: Error) => void } | undefined;
  let strays = 0;
  pair.replyPath = replyPath;
  pair.onReply = (payload, sender, path) => {
    const at = performance.now();
    const answer = rawBody(payload);
    const seq = answer.seq;
    if (!pending || seq !== pending.seq) {
      strays++;
      return;
    }
    const done = pending;
    pending = undefined;
    // (The transport swallows what a handler throws, so a wrong reply fails the request in flight instead.)
    if (sender !== b.address) done.reject(new FunctionalFailure(`raw reply ${seq}: sender ${sender}, not B`));
    else if (path !== replyPath)
      done.reject(new FunctionalFailure(`raw reply ${seq}: came as ${path}, not ${replyPath}`));
    else if (answer.pad !== RAW_PADDING || answer.from !== b.address || answer.to !== a.address)
      done.reject(new FunctionalFailure(`raw reply ${seq}: the body is not the answer to what was sent`));
    else done.resolve(at);
  };
  const timings: number[] = [];
  try {
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const seq = (Math.random() * 0xffffffff) >>> 0;
      const body = rawBytes({ from: a.address, to: b.address, seq, pad: RAW_PADDING });
      const replied = new Promise<number>((resolve, reject) => (pending = { seq, resolve, reject }));
      const started = performance.now();
      await a.send(b.address, body);
      const at = await withTimeout(replied, REQUEST_TIMEOUT_MS, `raw round trip ${i + 1}: no reply from B`);
      if (i >= WARMUP) timings.push(at - started);
    }
  } finally {
    pending = undefined;
    pair.onReply = undefined;
  }
  if (strays > 0) throw new FunctionalFailure(`raw phase: ${strays} reply(ies) that matched no request in flight`);
  return timings;
}

// ---------------------------------------------------------------------------------------------------------------
// (b) The gateway on the waku transport with its built-in echo agent, as a deployment would start it.

async function startBenchGateway(folder: string): Promise<Gateway> {
  const config = await benchGatewayConfig(folder, {
    agents: [{ builtin: 'echo' }],
    transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/0'], keyFile: join(folder, 'gateway.key') },
  });
  return startGateway(config, { log: (message) => console.warn(`\ngateway: ${message}`) });
}

async function measureGateway(port: number): Promise<number[]> {
  // One connection, kept alive; a fresh pool per phase so no socket idles past the server's keep-alive timeout.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const timings: number[] = [];
  try {
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const id = i + 1;
      const body = sendMessageBody(id, { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: ECHO_TEXT }] });
      const started = performance.now();
      const response = await postJson(`http://127.0.0.1:${port}/`, body, { agent, timeoutMs: REQUEST_TIMEOUT_MS });
      const elapsed = performance.now() - started;
      // The response must be a JSON-RPC result holding a completed task whose artifacts echo the text.
      checkCompletedEcho(response, id, `SendMessage ${id}`, ECHO_TEXT);
      if (i >= WARMUP) timings.push(elapsed);
    }
  } finally {
    agent.destroy();
  }
  return timings;
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const LABELS: Record<Phase, string> = {
  raw: '(a) raw Waku 1:1 round trip',
  'raw-pub': '(a′) raw Waku 1:1 + publication back',
  gateway: '(b) gateway SendMessage (blocking)',
};

function statsOf(phase: Phase, round: number, timings: number[]): Stats {
  return { phase, round, ...summarize(timings) };
}

function printTable(results: Stats[]): void {
  const header = ['round', 'phase', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'min ms', 'max ms', 'samples'];
  const rows = results.map((r) => [
    String(r.round),
    LABELS[r.phase],
    ms(r.p50),
    ms(r.p90),
    ms(r.p99),
    ms(r.mean),
    ms(r.min),
    ms(r.max),
    String(r.samples),
  ]);
  printRows(header, rows, 2);
}

function printOverhead(results: Stats[]): void {
  const differences: { baseline: Phase; label: string; goal: boolean }[] = [
    { baseline: 'raw', label: '(b) − (a)', goal: true },
    { baseline: 'raw-pub', label: '(b) − (a′)', goal: false },
  ];
  const rows: string[][] = [];
  for (const { baseline, label, goal } of differences) {
    for (let round = 1; round <= ROUNDS; round++) {
      const base = results.find((r) => r.round === round && r.phase === baseline);
      const gateway = results.find((r) => r.round === round && r.phase === 'gateway');
      if (!base || !gateway) continue;
      const p50 = gateway.p50 - base.p50;
      const verdict = p50 < GOAL_P50_MS ? 'PASS' : 'MISS';
      rows.push([
        label,
        String(round),
        ms(p50),
        ms(gateway.p99 - base.p99),
        ms(gateway.mean - base.mean),
        goal ? verdict : `(${verdict})`,
      ]);
    }
  }
  if (rows.length === 0) {
    console.log('(b) − (a): n/a (needs gateway and raw or raw-pub in BENCH_PHASES)');
    return;
  }
  console.log(
    `The gateway's own cost (HTTP + JSON-RPC + task engine + SQLite + envelope work); goal: (b) − (a) p50 < ${GOAL_P50_MS} ms`,
  );
  printRows(['difference', 'round', 'p50 ms', 'p99 ms', 'mean ms', `p50 < ${GOAL_P50_MS} ms`], rows, 2);
  console.log(
    "(in parentheses: the same threshold against (a′), for information; a′ has the binding's mix of 1:1 and publication)",
  );
}

function ms(value: number): string {
  return value.toFixed(2);
}

// ---------------------------------------------------------------------------------------------------------------

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new FunctionalFailure(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(20);
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionalFailure(`${message} within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

await runMain(main);
