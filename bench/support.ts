/**
 * What the benchmarks in bench/ share: the failure that makes the exit code 1, settings from the environment, one
 * JSON-RPC POST over node:http and the check of its answer, percentiles, table printing, and the tail every script
 * ends with (run main, report, then a watchdog for a process that does not exit by itself).
 */
import { rmSync } from 'node:fs';
import { request, type Agent, type Server } from 'node:http';
import { join } from 'node:path';
import type { GatewayConfig, GatewayConfigInput } from '../src/gateway/config.ts';

/** A functional check failed (the numbers are not valid): runMain prints only its message, and the exit code is 1. */
export class FunctionalFailure extends Error {
  override readonly name = 'FunctionalFailure';
}

// ---------------------------------------------------------------------------------------------------------------
// Settings (environment)

/** The environment variable `name` as a positive number; `fallback` when unset or empty; anything else throws. */
export function positiveNumber(name: string, fallback: number): number {
  return positiveSetting(name, fallback, 'number', Number.isFinite);
}

/** The environment variable `name` as a positive integer; `fallback` when unset or empty; anything else throws. */
export function positiveInteger(name: string, fallback: number): number {
  return positiveSetting(name, fallback, 'integer', Number.isInteger);
}

function positiveSetting(name: string, fallback: number, kind: string, valid: (value: number) => boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!valid(value) || value <= 0) throw new Error(`${name} must be a positive ${kind}, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * The environment variable `name` as a comma-separated subset of `all`, in the order of `all`; all of them when
 * unset or empty; an unknown or empty list throws (`noun` names one item in the message, e.g. "target").
 */
export function subsetFromEnv<T extends string>(name: string, all: readonly T[], noun: string): T[] {
  const raw = process.env[name];
  if (!raw) return [...all];
  const names = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = names.filter((item) => !(all as readonly string[]).includes(item));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`${name}: unknown ${noun}(s) ${unknown.join(', ')}; use ${all.join(',')}`);
  return all.filter((item) => names.includes(item));
}

// ---------------------------------------------------------------------------------------------------------------
// Gateway

/**
 * A gateway's config for a benchmark: on 127.0.0.1 with an OS-chosen port, its database `tasks.db` in `folder`, log
 * level `warn`, then `overrides`. No environment: the shell's PORT, LOGOS_A2A_* etc. must not change what is
 * measured. The log level spares the terminal a JSON line per request, which the servers compared with do not write
 * either. (config.ts is loaded here, not on import, so a script that starts no gateway on this thread does not load
 * it.)
 */
export async function benchGatewayConfig(folder: string, overrides: GatewayConfigInput): Promise<GatewayConfig> {
  const { loadConfig } = await import('../src/gateway/config.ts');
  return loadConfig({
    env: {},
    overrides: { port: 0, host: '127.0.0.1', database: join(folder, 'tasks.db'), logLevel: 'warn', ...overrides },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Time

/** Resolves after `ms`; with `unref`, the timer alone does not keep the process alive. */
export function delay(ms: number, { unref = false }: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// JSON-RPC over HTTP

/** The text every benchmark's echo request carries, and its answers must echo. */
export const ECHO_TEXT = 'hello';

/** Whether a load-test response body is a completed task echoing ECHO_TEXT (a 200 carrying an error does not count). */
export function isCompletedEchoBody(body: string): boolean {
  return body.includes('"TASK_STATE_COMPLETED"') && body.includes(`"${ECHO_TEXT}"`) && !body.includes('"error":');
}

/** The load generator's settings shared by the throughput benchmarks (environment). */
export function loadSettings(): { seconds: number; warmupSeconds: number; connections: number } {
  return {
    seconds: positiveNumber('BENCH_SECONDS', 8),
    warmupSeconds: positiveNumber('BENCH_WARMUP_SECONDS', 2),
    connections: positiveNumber('BENCH_CONNECTIONS', 32),
  };
}

/** The headers of an A2A v1.0 JSON-RPC request (content-length is added per request). */
export const A2A_JSON_HEADERS: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** The body of a JSON-RPC SendMessage request `id` carrying `message` (an A2A v1.0 Message as JSON). */
export function sendMessageBody(id: number, message: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message } });
}

export interface HttpResponse {
  status: number;
  body: string;
}

/**
 * One POST of the JSON `body` to `url` with the A2A v1.0 headers; resolves with the status and the whole body as
 * text. `agent: false` uses a fresh connection. After `timeoutMs` the request is destroyed with `timeoutError()`,
 * by default a FunctionalFailure "SendMessage timed out after … ms".
 */
export function postJson(
  url: string,
  body: string,
  {
    agent,
    timeoutMs,
    timeoutError = () => new FunctionalFailure(`SendMessage timed out after ${timeoutMs} ms`),
  }: { agent: Agent | false; timeoutMs: number; timeoutError?: () => Error },
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...A2A_JSON_HEADERS, 'content-length': Buffer.byteLength(body) };
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(timeoutError()));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The task in a blocking SendMessage answer: HTTP 200 carrying a JSON-RPC 2.0 result for request `id` with a task
 * object in it. Returns the task and `fail`, which throws a FunctionalFailure "`what`: why" quoting the response;
 * `fail` is what rejects a response that is not such an answer.
 */
export function sendMessageTask<T extends object>(
  { status, body }: HttpResponse,
  id: number,
  what: string,
): { task: T; fail: (why: string) => never } {
  const fail = (why: string): never => {
    throw new FunctionalFailure(`${what}: ${why}\n  HTTP ${status}, body: ${body.slice(0, 2000)}`);
  };
  if (status !== 200) fail(`expected HTTP 200, got ${status}`);
  let response: { jsonrpc?: unknown; id?: unknown; result?: { task?: T }; error?: unknown };
  try {
    response = JSON.parse(body) as typeof response;
  } catch {
    return fail('the body is not JSON');
  }
  if (response.jsonrpc !== '2.0') fail('not a JSON-RPC 2.0 response');
  if (response.error !== undefined) fail('JSON-RPC error instead of a result');
  if (response.id !== id) fail(`response id ${JSON.stringify(response.id)} does not match the request id ${id}`);
  const task = response.result?.task;
  if (!task || typeof task !== 'object') return fail('result.task is missing');
  return { task, fail };
}

/** The fields of a task that checkCompletedEcho reads. */
interface EchoTask {
  id?: unknown;
  status?: { state?: unknown };
  artifacts?: { parts?: { text?: unknown }[] }[];
}

/** The answer to SendMessage `id` must be a completed task with an id whose artifacts echo `text` (see sendMessageTask). */
export function checkCompletedEcho(response: HttpResponse, id: number, what: string, text: string): void {
  const { task, fail } = sendMessageTask<EchoTask>(response, id, what);
  if (typeof task.id !== 'string' || task.id === '') fail('task.id is missing');
  if (task.status?.state !== 'TASK_STATE_COMPLETED')
    fail(`task state is ${JSON.stringify(task.status?.state)}, not TASK_STATE_COMPLETED`);
  const texts = (task.artifacts ?? []).flatMap((artifact) => (artifact.parts ?? []).map((part) => part.text));
  if (!texts.includes(text))
    fail(`no artifact part echoes ${JSON.stringify(text)} (artifact texts: ${JSON.stringify(texts)})`);
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics

/** `values` sorted ascending, as a copy. */
export function ascending(values: readonly number[]): number[] {
  return [...values].sort((x, y) => x - y);
}

/** The nearest-rank `q`-quantile (0 < q ≤ 1) of ascending `sorted`; undefined at run time when it is empty. */
export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export interface Summary {
  samples: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Count, percentiles, mean, min and max of `values` (which must not be empty). */
export function summarize(values: readonly number[]): Summary {
  const sorted = ascending(values);
  return {
    samples: sorted.length,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    min: sorted[0]!,
    max: sorted.at(-1)!,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Report

/** Prints a table: the header, a rule, then the rows; the first `leftAligned` columns padded right, the rest left. */
export function printRows(header: string[], rows: string[][], leftAligned: number): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < leftAligned ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

/**
 * The end of a run: prints "stopping…", waits for every stop that `stop()` starts (a failed one does not throw),
 * removes the temporary `folder`, then prints "done" or how many stops failed and why.
 */
export async function stopAll(folder: string, stop: () => unknown[]): Promise<void> {
  process.stdout.write('\nstopping… ');
  const outcomes = await Promise.allSettled(stop());
  rmSync(folder, { recursive: true, force: true });
  const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  console.log(
    failed.length === 0 ? 'done' : `${failed.length} stop(s) failed: ${failed.map((o) => String(o.reason)).join('; ')}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Run

/**
 * Runs a benchmark's `main`. If it throws, the exit code is 1 and FAILED is printed with a FunctionalFailure's
 * message (any other error's stack). The process must then end by itself once everything is stopped; if something
 * still holds it open 5 s later, a warning says what, and the process is ended.
 */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    process.exitCode = 1;
    console.error(
      `\nFAILED: ${error instanceof FunctionalFailure ? error.message : ((error as Error)?.stack ?? String(error))}`,
    );
  }
  setTimeout(() => {
    console.error(
      'warning: the process did not exit by itself 5 s after the run; open resources:',
      process.getActiveResourcesInfo(),
    );
    process.exit(process.exitCode ?? 0);
  }, 5_000).unref();
}

/** The TCP port a listening server was given. */
export function portOf(server: { address(): unknown }): number {
  const address = server.address();
  if (typeof address === 'object' && address !== null && 'port' in address) return (address as { port: number }).port;
  throw new Error(`Server is not listening on a TCP port: ${String(address)}`);
}

/** Closes a server and the connections it holds open (keep-alive), so the process can end. */
export function closeServer(
  server: Server | { close(cb?: (err?: Error) => void): unknown; closeAllConnections?: () => void },
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error?: Error) => (error ? reject(error) : resolve()));
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}
