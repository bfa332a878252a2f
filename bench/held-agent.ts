/**
 * The agent of bench/streams.ts: `held` keeps every task working until released, so that each SendStreamingMessage
 * stays an open stream, then echoes the task's text. It runs in the gateway's process (BENCH_AGENT=in-process) or,
 * as a real agent does, in a process of its own (bench/stream-agent.ts).
 */
import { LogosAgent } from '../src/logos/agent-runtime.ts';
import type { LogosTransport } from '../src/logos/transport.ts';

export const HELD_AGENT_ADDRESS = 'agent:held';

export interface HeldAgent {
  agent: LogosAgent;
  /** How many tasks wait to be released. */
  held(): number;
  /** Every task waiting completes. */
  release(): void;
}

export async function startHeldAgent(transport: LogosTransport): Promise<HeldAgent> {
  const waiting: (() => void)[] = [];
  const agent = new LogosAgent({
    transport,
    announce: false,
    ackAfterMs: 0,
    card: {
      id: 'held',
      name: 'Held',
      description: 'Keeps each task working until the benchmark releases it.',
      version: '1',
      skills: [{ id: 'hold', name: 'Hold', description: 'waits, then echoes' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: HELD_AGENT_ADDRESS }],
    },
    skills: {
      hold: async (ctx) => {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return ctx.text;
      },
    },
  });
  await agent.start();
  return { agent, held: () => waiting.length, release: () => waiting.splice(0).forEach((resolve) => resolve()) };
}
