/**
 * Child-process entry of bench/streams.ts: a gateway on the in-process Logos network whose one agent (`held`,
 * bench/held-agent.ts) keeps every task working until the parent says `release`, so each SendStreamingMessage stays
 * an open stream. The agent runs in a process of its own (bench/stream-agent.ts), as a real agent does, reached
 * through a node of this process's network that relays to it over IPC; with BENCH_AGENT=in-process it runs in this
 * process, as it did before (its side of each task then counts in this process's memory and CPU time).
 *
 * Runs with --expose-gc so that memory is read after a full collection. Protocol over IPC (parent ⇄ child):
 *   → { type: 'ready', url }
 *   ← { type: 'measure' }    → { type: 'memory', rss, heapUsed, external, arrayBuffers, held, agent? } (agent: the
 *                            agent process's { rss, heapUsed }, when it has one)
 *   ← { type: 'delay-start' } / { type: 'delay-stop' } → { type: 'delay', p50, p99, max, cpuMs } (ms: event-loop
 *                            delay, and the CPU time this process used in between, user and system)
 *   ← { type: 'release' }    every held task completes
 *   ← { type: 'stop' }       → { type: 'stopped' }, then the process exits (so that --cpu-prof writes its profile)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import type { LogosAgent } from '../src/logos/agent-runtime.ts';
import { MemoryNetwork } from '../src/logos/transports/memory.ts';
import { HELD_AGENT_ADDRESS, startHeldAgent } from './held-agent.ts';
import type { AgentProcessMessage, GatewaySideMessage } from './stream-agent.ts';
import { benchGatewayConfig } from './support.ts';

const { startGateway } = await import('../src/gateway/gateway.ts');

type ParentMessage = { type: 'measure' | 'delay-start' | 'delay-stop' | 'release' | 'stop' };
interface AgentMemory {
  rss: number;
  heapUsed: number;
}

if (!process.send) throw new Error('bench/stream-gateway.ts must run as a child process with IPC.');
const send = (message: object, then: () => void = () => undefined) => process.send!(message, then);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('bench/stream-gateway.ts needs --expose-gc.');

/** The held agent as the gateway's process sees it. */
interface AgentSide {
  /** What the gateway is told of it (it reads nothing else of an agent it is given). */
  agent: Pick<LogosAgent, 'card' | 'signedCard'>;
  /** Tasks held, and the agent's own process's memory when it has one. */
  measure(): Promise<{ held: number; agent?: AgentMemory }>;
  release(): void;
  stop(): Promise<void>;
}

const network = new MemoryNetwork();
const agentSide = process.env.BENCH_AGENT === 'in-process' ? await agentHere() : await agentProcess();

async function agentHere(): Promise<AgentSide> {
  const held = await startHeldAgent(network.node(HELD_AGENT_ADDRESS));
  return {
    agent: held.agent,
    measure: async () => ({ held: held.held() }),
    release: held.release,
    stop: () => held.agent.stop(),
  };
}

/** Starts the agent's process and relays between it and the network at the agent's address. */
async function agentProcess(): Promise<AgentSide> {
  const child = fork(new URL('./stream-agent.ts', import.meta.url), {
    execArgv: ['--expose-gc', '--no-warnings'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const tell = (message: AgentProcessMessage) => child.send(message);
  const relay = network.node(HELD_AGENT_ADDRESS);
  await relay.start();
  relay.onDirect((payload, { sender }) => tell({ type: 'direct', payload, sender }));
  let measured: ((memory: { held: number; agent: AgentMemory }) => void) | undefined;
  const card = await new Promise<unknown>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the agent process exited (${code})`)));
    child.on('message', (message: GatewaySideMessage) => {
      switch (message.type) {
        case 'ready':
          return resolve(message.card);
        case 'send':
          return void relay.send(message.address, message.payload);
        case 'publish':
          return void relay.publish(message.topic, message.payload, message.key ? { key: message.key } : {});
        case 'measured':
          return measured?.({ held: message.held, agent: { rss: message.rss, heapUsed: message.heapUsed } });
      }
    });
  });
  return {
    agent: { card: card as LogosAgent['card'], signedCard: undefined },
    measure: () =>
      new Promise((resolve) => {
        measured = resolve;
        tell({ type: 'measure' });
      }),
    release: () => tell({ type: 'release' }),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-streams-'));
const config = await benchGatewayConfig(folder, { agents: [], transport: { kind: 'memory' } });
// The gateway reads an agent's card (and signed card) only: that is all an agent of another process can give it.
const gateway = await startGateway(config, { network, agents: [agentSide.agent as LogosAgent] });

const histogram = monitorEventLoopDelay({ resolution: 1 });
let cpuAtStart = process.cpuUsage();
const ms = (ns: number) => ns / 1e6;

process.on('message', (message: ParentMessage) => {
  switch (message.type) {
    case 'measure': {
      gc();
      gc();
      const usage = process.memoryUsage();
      if (process.env.BENCH_HEAP_SNAPSHOTS)
        writeHeapSnapshot(join(process.env.BENCH_HEAP_SNAPSHOTS, `${Date.now()}.heapsnapshot`));
      void agentSide.measure().then((agent) => send({ type: 'memory', ...usage, ...agent }));
      break;
    }
    case 'delay-start':
      histogram.reset();
      histogram.enable();
      cpuAtStart = process.cpuUsage();
      break;
    case 'delay-stop': {
      histogram.disable();
      const cpu = process.cpuUsage(cpuAtStart);
      send({
        type: 'delay',
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
      break;
    }
    case 'release':
      agentSide.release();
      break;
    case 'stop':
      void Promise.allSettled([gateway.stop(), agentSide.stop()]).then(() => {
        rmSync(folder, { recursive: true, force: true });
        send({ type: 'stopped' }, () => process.exit(0));
      });
      break;
  }
});
send({ type: 'ready', url: `http://127.0.0.1:${gateway.port}/agents/held/` });
