/**
 * The Worker as `wrangler dev` runs it (the local workerd from npm), on 127.0.0.1 and a free port, with its D1 and
 * Durable Objects kept in a directory of the test's own. Wrangler is kept off the internet: no telemetry, no update
 * check (it hides behind the banner), no download of the `Request.cf` object, local bindings only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const wrangler = fileURLToPath(new URL('../../node_modules/wrangler/bin/wrangler.js', import.meta.url));

export const OFFLINE_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
};

function run(args: string[], logDir: string): ChildProcess {
  return spawn(process.execPath, [wrangler, ...args], {
    cwd: root,
    env: { ...process.env, ...OFFLINE_ENV, WRANGLER_LOG_PATH: logDir, CLOUDFLARE_API_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: wrangler starts workerd, and both go when the group is stopped.
    detached: true,
  });
}

/** Runs wrangler to its end; rejects with what it printed when it fails. */
function runToEnd(args: string[], logDir: string, what: string): Promise<void> {
  const child = run(args, logDir);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (${code}):\n${output}`)))),
  );
}

/**
 * `wrangler d1 migrations apply --local`: the schema of migrations/ in the test's D1. Tried up to three times: on a
 * loaded machine, miniflare's synchronous fetch to its worker thread now and then reads no answer and fails its own
 * assertion (`message?.id === id`) before anything is applied. Only that failure is tried again; applying is
 * idempotent (wrangler records what it applied).
 */
export async function applyMigrations(stateDir: string): Promise<void> {
  const args = ['d1', 'migrations', 'apply', 'logos-a2a', '--local', '--persist-to', stateDir];
  for (let attempt = 1; ; attempt++) {
    try {
      return await runToEnd(args, stateDir, 'migrations');
    } catch (error) {
      if (attempt === 3 || !String(error).includes('(message?.id === id)')) throw error;
    }
  }
}

/** `wrangler deploy --dry-run`: the Worker bundled into `outDir`, with esbuild's metafile at `outDir`/meta.json. */
export function bundleWorker(outDir: string): Promise<void> {
  const args = ['deploy', '--dry-run', '--outdir', outDir, '--metafile', `${outDir}/meta.json`];
  return runToEnd(args, outDir, 'the bundle');
}

export interface WranglerDev {
  url: string;
  /** Everything wrangler printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `wrangler dev` with `vars` over wrangler.toml's [vars]; resolves once it serves. */
export function startWranglerDev(stateDir: string, vars: Record<string, string>): Promise<WranglerDev> {
  const child = run(
    [
      'dev',
      '--local',
      '--ip',
      '127.0.0.1',
      '--port',
      '0',
      '--inspector-port',
      '0',
      '--persist-to',
      stateDir,
      ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
    ],
    stateDir,
  );
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await closed;
  };
  return new Promise((resolve, reject) => {
    const ready = (chunk: Buffer) => {
      output += chunk;
      const url = /Ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) resolve({ url, output: () => output, stop });
    };
    child.stdout!.on('data', ready);
    child.stderr!.on('data', ready);
    child.on('close', (code) => reject(new Error(`wrangler dev exited (${code}):\n${output}`)));
  });
}
