/**
 * Child-process entry of bench/streams.ts: a gateway on the in-process Logos network whose one agent (`held`) keeps
 * every task working until the parent says `release`, so each SendStreamingMessage stays an open stream.
 *
 * Runs with --expose-gc so that memory is read after a full collection. Protocol over IPC (parent ⇄ child):
 *   → { type: 'ready', url }
 *   ← { type: 'measure' }    → { type: 'memory', rss, heapUsed, external, arrayBuffers, held }
 *   ← { type: 'delay-start' } / { type: 'delay-stop' } → { type: 'delay', p50, p99, max, cpuMs } (ms: event-loop
 *                            delay, and the CPU time this process used in between, user and system)
 *   ← { type: 'release' }    every held task completes
 *   ← { type: 'stop' }       → { type: 'stopped' }, then the process exits (so that --cpu-prof writes its profile)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { LogosAgent } from '../src/logos/agent-runtime.ts';
import { MemoryNetwork } from '../src/logos/transports/memory.ts';
import { benchGatewayConfig } from './support.ts';

const { startGateway } = await import('../src/gateway/gateway.ts');

type ParentMessage = { type: 'measure' | 'delay-start' | 'delay-stop' | 'release' | 'stop' };

if (!process.send) throw new Error('bench/stream-gateway.ts must run as a child process with IPC.');
const send = (message: object, then: () => void = () => undefined) => process.send!(message, then);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('bench/stream-gateway.ts needs --expose-gc.');

const waiting: (() => void)[] = [];
const network = new MemoryNetwork();
const agent = new LogosAgent({
  transport: network.node('agent:held'),
  announce: false,
  ackAfterMs: 0,
  card: {
    id: 'held',
    name: 'Held',
    description: 'Keeps each task working until the benchmark releases it.',
    version: '1',
    skills: [{ id: 'hold', name: 'Hold', description: 'waits, then echoes' }],
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:held' }],
  },
  skills: {
    hold: async (ctx) => {
      await new Promise<void>((resolve) => waiting.push(resolve));
      return ctx.text;
    },
  },
});
await agent.start();

const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-streams-'));
const config = await benchGatewayConfig(folder, { agents: [], transport: { kind: 'memory' } });
const gateway = await startGateway(config, { network, agents: [agent] });

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
      send({ type: 'memory', ...usage, held: waiting.length });
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
      waiting.splice(0).forEach((resolve) => resolve());
      break;
    case 'stop':
      void Promise.allSettled([gateway.stop(), agent.stop()]).then(() => {
        rmSync(folder, { recursive: true, force: true });
        send({ type: 'stopped' }, () => process.exit(0));
      });
      break;
  }
});
send({ type: 'ready', url: `http://127.0.0.1:${gateway.port}/agents/held/` });
