/**
 * Benchmark: what the store costs. Blocking JSON-RPC SendMessage (A2A v1.0) to the built-in echo agent, in-process
 * (memory transport), with the load generator of bench/gateway-vs-sdk.ts (autocannon, same request, every body
 * checked), against
 *   (a) one gateway on SQLite (the embedded default, the baseline),
 *   (b) one gateway on PostgreSQL,
 *   (c) two replicas on the same PostgreSQL, the connections spread over both round-robin.
 * Each gateway is its own process (`logos-a2a serve`), as an operator runs it. Two cores cannot show replicas
 * scaling: the table shows what PostgreSQL costs, and what a second replica on the same cores costs. For PostgreSQL
 * it also shows what one task costs the database during the measured seconds: statements sent (the gateways'
 * `logos_a2a_database_statements_total`, begin and commit left out) and transactions committed (the server's own
 * count for the database, which includes the replicas' lease renewals).
 *
 * Run:   npm run bench:store
 *
 * Settings (environment):
 *   BENCH_SECONDS       measured seconds per setup (default 8), after BENCH_WARMUP_SECONDS (default 2) of warm-up
 *   BENCH_CONNECTIONS   concurrent connections (default 32)
 *   BENCH_POSTGRES      an administrative URL of the server to use (default postgres://postgres@127.0.0.1:5432/test,
 *                       then the same as root); the benchmark creates its own database there and drops it after
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { createTestDatabase, postgresAdminUrl } from '../test/support/postgres.ts';
import {
  A2A_JSON_HEADERS,
  checkCompletedEcho,
  ECHO_TEXT,
  isCompletedEchoBody,
  loadSettings,
  FunctionalFailure,
  postJson,
  printRows,
  runMain,
  sendMessageBody,
} from './support.ts';

const { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS } = loadSettings();
const CLI = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

const REQUEST_BODY = sendMessageBody(1, {
  messageId: 'bench-message-1',
  role: 'ROLE_USER',
  parts: [{ text: ECHO_TEXT }],
});

interface Setup {
  label: string;
  /** The `database` setting of each replica. */
  databases: (folder: string, postgres: string) => string[];
}

const SETUPS: Setup[] = [
  { label: '(a) one gateway, SQLite', databases: (folder) => [join(folder, 'tasks.db')] },
  { label: '(b) one gateway, PostgreSQL', databases: (_, postgres) => [postgres] },
  { label: '(c) two replicas, PostgreSQL', databases: (_, postgres) => [postgres, postgres] },
];

interface Measurement {
  label: string;
  /** Per completed task, PostgreSQL only. */
  statements?: number;
  transactions?: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  failures: number;
}

async function main(): Promise<void> {
  if (!postgresAdminUrl) throw new FunctionalFailure('no PostgreSQL server answers (see BENCH_POSTGRES)');
  console.log(
    `Store backends, A2A v1.0 blocking SendMessage — ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ` +
      `${SECONDS} s measured per setup, each gateway its own process; Node ${process.version}, ` +
      `${availableParallelism()} CPU(s)`,
  );
  const results: Measurement[] = [];
  for (const setup of SETUPS) {
    const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-bench-store-'));
    const database = await createTestDatabase();
    const gateways: GatewayProcess[] = [];
    try {
      process.stdout.write(`\n${setup.label}: starting… `);
      // One after another: the first creates the schema, as an operator's first replica would.
      for (const [index, db] of setup.databases(folder, database.url).entries()) {
        gateways.push(await startGatewayProcess(db, join(folder, `replica-${index}`)));
      }
      const urls = gateways.map((gateway) => gateway.url);
      process.stdout.write(`${urls.join(' ')} — check… `);
      for (const url of urls) await checkSendMessage(url);
      process.stdout.write('ok — warm-up… ');
      await load(urls, WARMUP_SECONDS);
      process.stdout.write('measuring… ');
      const onPostgres = setup.databases(folder, database.url).includes(database.url);
      const before = onPostgres ? await databaseWork(urls, database.url) : undefined;
      const result = await load(urls, SECONDS);
      const after = onPostgres ? await databaseWork(urls, database.url) : undefined;
      for (const url of urls) await checkSendMessage(url);
      const tasks = result.requests.total;
      results.push({
        label: setup.label,
        ...(before && after
          ? {
              statements: (after.statements - before.statements) / tasks,
              transactions: (after.transactions - before.transactions) / tasks,
            }
          : {}),
        requestsPerSecond: result.requests.total / result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        total: result.requests.total,
        failures: result.errors + result.non2xx + result.mismatches,
      });
      console.log('done');
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.stop()));
      await database.drop();
      rmSync(folder, { recursive: true, force: true });
    }
  }

  console.log();
  const baseline = results[0]!.requestsPerSecond;
  printRows(
    ['setup', 'req/s', 'vs (a)', 'p50 ms', 'p99 ms', 'requests', 'failures', 'statements/task', 'commits/task'],
    results.map((r) => [
      r.label,
      r.requestsPerSecond.toFixed(0),
      (r.requestsPerSecond / baseline).toFixed(2),
      r.p50.toFixed(1),
      r.p99.toFixed(1),
      String(r.total),
      String(r.failures),
      r.statements === undefined ? '–' : r.statements.toFixed(2),
      r.transactions === undefined ? '–' : r.transactions.toFixed(2),
    ]),
    1,
  );
  const failed = results.filter((r) => r.failures > 0);
  if (failed.length > 0) {
    throw new FunctionalFailure(`Failures under load: ${failed.map((r) => `${r.label}: ${r.failures}`).join('; ')}`);
  }
}

/**
 * What the gateways have asked of the database so far: statements they sent (begin and commit left out), from their
 * metrics, and transactions the server committed in the database, from its statistics.
 */
async function databaseWork(urls: string[], database: string): Promise<{ statements: number; transactions: number }> {
  let statements = 0;
  for (const url of urls) {
    const text = await (await fetch(new URL('/metrics', url))).text();
    for (const [, word, count] of text.matchAll(/^logos_a2a_database_statements_total\{statement="(\w+)"\} (\S+)$/gm)) {
      if (word !== 'begin' && word !== 'commit') statements += Number(count);
    }
  }
  const sql = postgres(database, { max: 1, onnotice: () => {} });
  try {
    // The statistics collector reports at most every half second or so: read them once they include the run.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await sql`SELECT pg_stat_clear_snapshot()`;
    const [row] = await sql<{ commits: string }[]>`
      SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()`;
    return { statements, transactions: Number(row!.commits) };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** autocannon spreads its connections over the URLs round-robin: the replicas share the load evenly. */
function load(urls: string[], seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: urls,
    method: 'POST',
    headers: A2A_JSON_HEADERS,
    body: REQUEST_BODY,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    verifyBody: isCompletedEchoBody,
  });
}

async function checkSendMessage(url: string): Promise<void> {
  const response = await postJson(url, REQUEST_BODY, {
    agent: false,
    timeoutMs: 10_000,
    timeoutError: () => new Error(`POST ${url} timed out after 10 s`),
  });
  checkCompletedEcho(response, 1, url, ECHO_TEXT);
}

interface GatewayProcess {
  url: string;
  stop(): Promise<void>;
}

/** `logos-a2a serve` on 127.0.0.1 with any free port, the echo agent in process, and no setting from the shell. */
async function startGatewayProcess(database: string, folder: string): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOGOS_A2A_DATABASE: database,
      LOGOS_A2A_CARD_KEY_FILE: join(folder, 'card-signing.key'),
      LOGOS_A2A_TRANSPORT: 'memory',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening at http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new FunctionalFailure(`logos-a2a serve exited (${code}): ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => stopProcess(child) };
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

await runMain(main);
