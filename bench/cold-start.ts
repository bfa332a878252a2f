/**
 * Benchmark: cold start. How long `npm start` (the demo: a LEZ devnet process, the gateway, three agents on their
 * own Waku nodes) takes from the command to the first agent card served, against a bare Hono server started with
 * `node` in the same run (what any Node HTTP server costs to come up on this machine).
 *
 * Each run starts the command in a process group of its own, asks GET /.well-known/agent-card.json every 10 ms on a
 * fresh connection until it answers 200 with the echo agent's card (the functional check: anything else at the end
 * makes the exit code 1), then stops the whole group. The demo's runs share one data folder, as restarts of one
 * install do; its first run also creates the keys. The compile cache (node:module) is whatever the machine has.
 *
 * Run:   node bench/cold-start.ts      (also the last part of npm run bench)
 * Settings (environment):
 *   BENCH_COLD_RUNS   runs of each command (default 3); the median is what counts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ascending, delay, FunctionalFailure, percentile, positiveInteger, printRows, runMain } from './support.ts';

const RUNS = positiveInteger('BENCH_COLD_RUNS', 3);
const GOAL_MS = 2_000;
/** A start that takes this long has failed. */
const GIVE_UP_MS = 60_000;
const PROJECT = fileURLToPath(new URL('..', import.meta.url));

/** The baseline: a Hono app on @hono/node-server answering the same path, as small as a server gets. */
const BARE_HONO = `
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
const app = new Hono().get('/.well-known/agent-card.json', (c) => c.json({ name: 'Echo' }));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
`;

interface Command {
  label: string;
  /** argv, and the environment besides PORT. */
  start: (folder: string) => { argv: string[]; env: Record<string, string> };
}

const COMMANDS: Command[] = [
  {
    label: 'bare Hono server (node --input-type=module -e …)',
    start: () => ({ argv: [process.execPath, '--input-type=module', '-e', BARE_HONO], env: {} }),
  },
  {
    label: 'npm start (the demo)',
    start: (folder) => ({
      argv: npm(['start']),
      env: {
        LOGOS_A2A_DATABASE: join(folder, 'logos-a2a.db'),
        LOGOS_A2A_WAKU_KEY_FILE: join(folder, 'gateway.key'),
        LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
        LOGOS_A2A_DEVNET_PORT: '0',
      },
    }),
  },
];

/** npm as this run has it: the npm that runs `npm run bench`, else the one on the PATH. */
function npm(args: string[]): string[] {
  const cli = process.env.npm_execpath;
  return cli ? [process.execPath, cli, ...args] : ['npm', ...args];
}

async function main(): Promise<void> {
  console.log(`cold start: ${RUNS} run(s) each, to the first 200 on /.well-known/agent-card.json`);
  const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-cold-start-'));
  const rows: string[][] = [];
  const medians: number[] = [];
  try {
    for (const command of COMMANDS) {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) times.push(await timeToFirstCard(command, folder));
      const sorted = ascending(times);
      const median = percentile(sorted, 0.5);
      medians.push(median);
      rows.push([command.label, ms(median), ms(sorted[0]!), ms(sorted.at(-1)!), times.map(ms).join(', ')]);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  console.log();
  printRows(['command', 'median', 'min', 'max', 'runs'], rows, 1);
  const [baseline, demo] = medians as [number, number];
  console.log(
    `\nnpm start vs the bare server: ${(demo / baseline).toFixed(1)}×; ` +
      `npm start ${ms(demo)}, goal ≤ ${ms(GOAL_MS)}  ${demo <= GOAL_MS ? 'PASS' : 'MISS'}`,
  );
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

/** Starts `command`, times it to the first 200 with the echo card, then stops its process group. */
async function timeToFirstCard(command: Command, folder: string): Promise<number> {
  const port = await freePort();
  const { argv, env } = command.start(folder);
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: PROJECT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new FunctionalFailure(`${command.label} exited before serving a card:\n${errors.trim()}`);
      if (performance.now() - started > GIVE_UP_MS)
        throw new FunctionalFailure(`${command.label} served no card within ${GIVE_UP_MS / 1000} s`);
      const card = await getCard(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      if (card !== undefined) {
        const elapsed = performance.now() - started;
        if (!card.includes('"Echo"'))
          throw new FunctionalFailure(`${command.label}: the card served is not the echo agent's: ${card}`);
        return elapsed;
      }
      await delay(10);
    }
  } finally {
    // The demo is npm, a shell and node: the signal goes to the whole group, and its stop is waited for.
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

/** The body of a 200 answer, or undefined while nothing (good) answers yet. */
function getCard(url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(response.statusCode === 200 ? body : undefined));
      response.on('error', () => resolve(undefined));
    });
    request.on('error', () => resolve(undefined));
  });
}

/** A port free a moment ago (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

await runMain(main);
