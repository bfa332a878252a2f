/**
 * The servers the benchmark compares. Each starts on 127.0.0.1 with an OS-chosen port and answers a blocking
 * JSON-RPC SendMessage at POST {url}:
 *
 *   hono    — the ceiling: a bare Hono app that parses the body and returns a static completed task;
 *   sdk     — @a2a-js/sdk's own Express server (DefaultRequestHandler + InMemoryTaskStore + an echo executor);
 *   proxy   — the plain-HTTP deployment: a reverse proxy (undici pool, keep-alive) in front of that server running
 *             as its own process, the baseline of gateway-waku;
 *   gateway — this project's gateway with the built-in echo agent and the durable SQLite store;
 *   gateway-memory — the same with SQLite in memory;
 *   gateway-waku — the gateway on its Waku relay node, the echo agent as its own process on another node.
 *
 * Used by bench/gateway-vs-sdk.ts, either inside a worker thread (bench/target-worker.ts) or on the main thread.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchGatewayConfig, closeServer, portOf } from './support.ts';

export const TARGETS = ['hono', 'sdk', 'proxy', 'gateway', 'gateway-memory', 'gateway-waku'] as const;
export type TargetName = (typeof TARGETS)[number];

export const TARGET_LABELS: Record<TargetName, string> = {
  hono: '(a) ceiling: bare Hono',
  sdk: '(b) @a2a-js/sdk 1.3.0 Express',
  proxy: '(p) HTTP proxy + SDK agent process',
  gateway: '(c) this gateway (SQLite)',
  'gateway-memory': '(d) this gateway, no durability',
  'gateway-waku': '(e) this gateway over Waku, echo agent process',
};

export interface RunningTarget {
  /** Where to POST the JSON-RPC request (always on 127.0.0.1). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startTarget(name: TargetName): Promise<RunningTarget> {
  switch (name) {
    case 'hono':
      return startHonoCeiling();
    case 'sdk':
      return startSdkExpress();
    case 'proxy':
      return startProxyToSdkProcess();
    case 'gateway':
      return startThisGateway('file');
    case 'gateway-memory':
      return startThisGateway('memory');
    case 'gateway-waku':
      return startGatewayOverWaku();
    default:
      throw new Error(`Unknown target "${String(name)}"; expected one of ${TARGETS.join(', ')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (a) The ceiling: what any Node HTTP server on Hono costs for this request/response size, with no A2A work at all.

/** A completed task shaped like a real v1.0 JSON-RPC SendMessage answer (same fields the gateway returns). */
const STATIC_TASK = {
  id: '6f1c2d9e-5b7a-4c1e-9a53-0d2f8e4b7c11',
  contextId: '0b8e7f4a-2c3d-4e5f-8a9b-1c2d3e4f5a6b',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'result', name: 'result', parts: [{ text: 'hello' }] }],
  history: [
    {
      messageId: 'bench-message-1',
      contextId: '0b8e7f4a-2c3d-4e5f-8a9b-1c2d3e4f5a6b',
      taskId: '6f1c2d9e-5b7a-4c1e-9a53-0d2f8e4b7c11',
      role: 'ROLE_USER',
      parts: [{ text: 'hello' }],
    },
  ],
  metadata: { logos: { agentId: 'echo', skill: 'echo', lezPrice: '0' } },
};

async function startHonoCeiling(): Promise<RunningTarget> {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  app.post('/', async (c) => {
    const body = (await c.req.json()) as { id?: string | number | null };
    c.header('A2A-Version', '1.0');
    return c.json({ jsonrpc: '2.0', id: body.id ?? null, result: { task: STATIC_TASK } });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${portOf(server)}/`, close: () => closeServer(server) };
}

// ---------------------------------------------------------------------------------------------------------------
// (b) The reference: the official SDK's own server stack, with an in-process echo agent (bench/sdk-echo.ts).

async function startSdkExpress(): Promise<RunningTarget> {
  const { startSdkEcho } = await import('./sdk-echo.ts');
  return startSdkEcho();
}

// ---------------------------------------------------------------------------------------------------------------
// (p) The plain-HTTP deployment of a remote agent, the baseline of the path over Waku: a reverse proxy (Hono on
// Node, an undici pool with keep-alive) in this thread, in front of the SDK's Express server and echo agent running
// as their own process (bench/sdk-echo-process.ts). Gateway process, agent process and a hop between them, as (e).

async function startProxyToSdkProcess(): Promise<RunningTarget> {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const { Pool } = await import('undici');
  const agent = spawn(
    process.execPath,
    ['--no-warnings', fileURLToPath(new URL('./sdk-echo-process.ts', import.meta.url))],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const agentUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    agent.stdout!.setEncoding('utf8');
    agent.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /^listening (\S+)$/m.exec(output);
      if (match) resolve(match[1]!);
    });
    agent.once('exit', (code) => reject(new Error(`the SDK echo process exited (code ${code}) before listening`)));
  });
  const origin = new URL(agentUrl);
  // As many sockets to the agent as the load has connections: the hop is never the queue.
  const pool = new Pool(origin.origin, { connections: 64, keepAliveTimeout: 30_000 });
  const app = new Hono();
  app.post('/', async (c) => {
    const answer = await pool.request({
      path: origin.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': c.req.header('a2a-version') ?? '1.0' },
      body: await c.req.arrayBuffer().then((bytes) => Buffer.from(bytes)),
    });
    const body = await answer.body.arrayBuffer();
    return c.body(body, answer.statusCode as 200, { 'content-type': String(answer.headers['content-type'] ?? '') });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${portOf(server)}/`,
    async close() {
      await closeServer(server);
      await pool.close();
      agent.kill('SIGTERM');
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// (c) This gateway, durable store on, in a fresh temporary folder that is removed on close.

/** `memory`: the same gateway with SQLite in memory, to show what durability costs (not a goal's figure). */
async function startThisGateway(store: 'file' | 'memory'): Promise<RunningTarget> {
  const { startGateway } = await import('../src/gateway/gateway.ts');
  const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-bench-'));
  const config = await benchGatewayConfig(folder, {
    ...(store === 'memory' ? { database: ':memory:' } : {}),
    agents: [{ builtin: 'echo' }],
    // The in-process Logos network, as the issue asks: this measures the gateway, not Waku's crypto
    // (bench/waku-overhead.ts measures the gateway over Waku).
    transport: { kind: 'memory' },
  });
  const gateway = await startGateway(config);
  // gateway.url is the public base URL (http://localhost:{port}); the benchmark only talks to 127.0.0.1.
  return {
    url: `http://127.0.0.1:${gateway.port}/`,
    async close() {
      try {
        await gateway.stop();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// (e) This gateway on its embedded Waku relay node, the echo agent as its own process (`logos-a2a agent echo`) on its
// own node dialled to the gateway's: every task is a real 1:1 message out and a keyed publication back, over TCP.

async function startGatewayOverWaku(): Promise<RunningTarget> {
  const { startGateway } = await import('../src/gateway/gateway.ts');
  const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-bench-'));
  const config = await benchGatewayConfig(folder, {
    agents: [],
    transport: {
      kind: 'waku',
      listen: ['/ip4/127.0.0.1/tcp/0'],
      keyFile: join(folder, 'gateway.key'),
    },
  });
  const gateway = await startGateway(config);
  const agent = spawn(
    process.execPath,
    [
      '--no-warnings',
      // Node's own flags for the agent's process, e.g. `--cpu-prof` (which NODE_OPTIONS does not take) to profile it.
      ...(process.env.BENCH_AGENT_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)),
      'agent',
      'echo',
      '--peer',
      gateway.network.joinAddresses()[0]!,
      '--key-file',
      join(folder, 'agent.key'),
      '--card-key-file',
      join(folder, 'agent.lez.key'),
      // waku (default): the agent's own relay node meshed with the gateway's; waku-light: a light node sending with
      // LightPush and receiving with Filter through the gateway's node.
      '--transport',
      process.env.BENCH_AGENT_TRANSPORT ?? 'waku',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const close = async () => {
    agent.kill('SIGTERM');
    try {
      await gateway.stop();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  };
  // The agent's card reaches the gateway over the discovery topic once the two nodes are meshed.
  const deadline = Date.now() + 30_000;
  while (!gateway.directory.get('echo')) {
    if (agent.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(
        `the echo agent process ${agent.exitCode === null ? 'did not announce itself in 30 s' : 'exited'}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${gateway.port}/agents/echo/`, close };
}
