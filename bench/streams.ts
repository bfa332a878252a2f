/**
 * Benchmark: many concurrent A2A streams on one gateway.
 *
 * A gateway runs in a child process (bench/stream-gateway.ts) with one agent that keeps every task working until
 * released; the agent runs in a process of its own, as a real agent does (BENCH_AGENT=in-process: in the gateway's
 * process, as measured before; its side of each task then counts in the gateway's figures). This process opens
 * SendStreamingMessage streams (JSON-RPC v1.0, one connection each) and reports, from the gateway's side:
 *   - the event-loop delay (p50, p99, max) while the first BENCH_BURST streams open all at once, and the CPU time
 *     the gateway's process spent on that burst (steadier than the delay on a shared machine, where the delay
 *     also measures how long the process waited for a core);
 *   - the memory each open stream costs, its live task included: (RSS and heap after a full GC with every stream
 *     open) minus (the same before any), divided by the number of streams.
 * Then every task is released, and every stream must deliver its submitted task first and its completed task
 * last, echoing its own text (the functional check: any miss makes the exit code 1).
 *
 * Run:   npm run bench:streams      (or: node bench/streams.ts)
 * Settings (environment):
 *   BENCH_STREAMS   streams held open at once (default 10000; the gateway and this process each need that many
 *                   file descriptors: see `ulimit -n`)
 *   BENCH_BURST     streams opened at once while the event-loop delay is measured (default 1000)
 *   BENCH_PARALLEL  opens in flight after the burst (default 500)
 *   BENCH_AGENT     `process` (default): the agent in a process of its own; `in-process`: in the gateway's
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request, type ClientRequest } from 'node:http';
import { FunctionalFailure, positiveInteger, printRows, runMain } from './support.ts';

const STREAMS = positiveInteger('BENCH_STREAMS', 10_000);
const BURST = Math.min(positiveInteger('BENCH_BURST', 1_000), STREAMS);
const PARALLEL = positiveInteger('BENCH_PARALLEL', 500);
/** The "20 KB" read as 20,000 bytes (19.5 KiB), the stricter reading. */
const GOALS = { bytesPerStream: 20_000, delayP99Ms: 50 };

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  held: number;
  /** The agent's own process, when it has one. */
  agent?: { rss: number; heapUsed: number };
}
interface Delay {
  p50: number;
  p99: number;
  max: number;
  cpuMs: number;
}

/** The gateway child, with a request/answer helper over IPC. */
class GatewayChild {
  private readonly child: ChildProcess;
  readonly url: string;

  private constructor(child: ChildProcess, url: string) {
    this.child = child;
    this.url = url;
  }

  static async start(): Promise<GatewayChild> {
    const child = fork(new URL('./stream-gateway.ts', import.meta.url), {
      execArgv: ['--expose-gc', '--no-warnings', ...(process.env.BENCH_GATEWAY_NODE_OPTIONS?.split(' ') ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await GatewayChild.next<{ url: string }>(child, 'ready');
    return new GatewayChild(child, ready.url);
  }

  private static next<T>(child: ChildProcess, type: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as T);
      };
      const onExit = (code: number | null) => reject(new Error(`the gateway process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }

  ask<T>(type: string, answer?: string): Promise<T | undefined> {
    const answered = answer ? GatewayChild.next<T>(this.child, answer) : Promise.resolve(undefined);
    this.child.send({ type });
    return answered;
  }

  /** Asks the gateway to stop and waits for its process to exit; kills it if that takes over 10 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** One open stream: resolves `opened` on its first event, `ended` when the response ends. */
interface OpenStream {
  text: string;
  opened: Promise<void>;
  ended: Promise<string[]>;
  request: ClientRequest;
}

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

function openStream(url: string, index: number): OpenStream {
  const text = `stream ${index}`;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: index,
    method: 'SendStreamingMessage',
    params: { message: { messageId: `bench-stream-${index}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
  let markOpened!: () => void;
  let failOpen!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => {
    markOpened = resolve;
    failOpen = reject;
  });
  let req!: ClientRequest;
  const ended = new Promise<string[]>((resolve, reject) => {
    req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'a2a-version': '1.0',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          const error = new FunctionalFailure(`stream ${index}: HTTP ${res.statusCode}`);
          failOpen(error);
          reject(error);
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        const events: string[] = [];
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame.split('\n').find((line) => line.startsWith('data: '));
            if (!data) continue;
            events.push(data.slice('data: '.length));
            if (events.length === 1) markOpened();
          }
        });
        res.on('end', () => resolve(events));
        res.on('error', reject);
      },
    );
    req.on('error', (error) => {
      failOpen(error);
      reject(error);
    });
    req.end(body);
  });
  ended.catch(() => undefined); // checked later; an early failure also rejects `opened`
  return { text, opened, ended, request: req };
}

/** Opens streams `from`..`to`-1 with at most `parallel` opens in flight; resolves once each has its first event. */
async function openMany(url: string, from: number, to: number, parallel: number, into: OpenStream[]): Promise<void> {
  let next = from;
  const lane = async () => {
    while (next < to) {
      const stream = openStream(url, next++);
      into.push(stream);
      await stream.opened;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, to - from) }, lane));
}

function checkStream(stream: OpenStream, events: string[]): void {
  const states = events.map((event) => {
    const result = (JSON.parse(event) as { result?: Record<string, { status?: { state?: string } }> }).result ?? {};
    return (result.task ?? result.statusUpdate)?.status?.state;
  });
  const echoed = events.some((event) => event.includes(`"text":"${stream.text}"`));
  if (states[0] !== 'TASK_STATE_SUBMITTED' || states.at(-1) !== 'TASK_STATE_COMPLETED' || !echoed)
    throw new FunctionalFailure(
      `"${stream.text}": events ${JSON.stringify(states)} do not carry its echo and end completed`,
    );
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB (${(bytes / 1000).toFixed(1)} KB)`;

async function main(): Promise<void> {
  const agentWhere = process.env.BENCH_AGENT === 'in-process' ? "in the gateway's process" : 'in its own process';
  console.log(
    `streams: ${STREAMS} held open, the first ${BURST} opened at once; gateway in a child process, agent ${agentWhere}`,
  );
  const gateway = await GatewayChild.start();
  const streams: OpenStream[] = [];
  try {
    const before = (await gateway.ask<Memory>('measure', 'memory'))!;

    await gateway.ask('delay-start');
    await openMany(gateway.url, 0, BURST, BURST, streams);
    const delay = (await gateway.ask<Delay>('delay-stop', 'delay'))!;
    process.stdout.write(`${BURST} open… `);

    await openMany(gateway.url, BURST, STREAMS, PARALLEL, streams);
    const during = (await gateway.ask<Memory>('measure', 'memory'))!;
    console.log(`${STREAMS} open.`);
    if (during.held !== STREAMS)
      throw new FunctionalFailure(`the agent holds ${during.held} tasks, expected ${STREAMS}`);

    await gateway.ask('release');
    const outcomes = await Promise.all(streams.map((stream) => stream.ended));
    streams.forEach((stream, i) => checkStream(stream, outcomes[i]!));
    console.log(`all ${STREAMS} streams ended with their completed echo.\n`);

    const perStream = (key: 'rss' | 'heapUsed') => (during[key] - before[key]) / STREAMS;
    printRows(
      ['figure', 'value', 'goal', 'met'],
      [
        [
          'memory per open stream (RSS)',
          kib(perStream('rss')),
          `≤ ${kib(GOALS.bytesPerStream)}`,
          yes(perStream('rss') <= GOALS.bytesPerStream),
        ],
        ['  of which JS heap', kib(perStream('heapUsed')), '', ''],
        ...(during.agent && before.agent
          ? [
              [
                "the agent's process, per stream (RSS / heap)",
                `${kib((during.agent.rss - before.agent.rss) / STREAMS)} / ${kib((during.agent.heapUsed - before.agent.heapUsed) / STREAMS)}`,
                '',
                '',
              ],
            ]
          : []),
        [
          `event-loop delay p99, ${BURST} opening`,
          `${delay.p99.toFixed(1)} ms`,
          `≤ ${GOALS.delayP99Ms} ms`,
          yes(delay.p99 <= GOALS.delayP99Ms),
        ],
        ['  p50 / max', `${delay.p50.toFixed(1)} / ${delay.max.toFixed(1)} ms`, '', ''],
        [
          `gateway CPU time, ${BURST} opening`,
          `${delay.cpuMs.toFixed(0)} ms (${((delay.cpuMs / BURST) * 1000).toFixed(0)} µs each)`,
          '',
          '',
        ],
      ],
      1,
    );
  } finally {
    streams.forEach((stream) => stream.request.destroy());
    agent.destroy();
    await gateway.stop();
  }
}

const yes = (met: boolean) => (met ? 'yes' : 'NO');

await runMain(main);
