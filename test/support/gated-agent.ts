/** A Logos agent whose skill waits at a gate the test opens, then streams a few updates and completes. */
import { LogosAgent } from '../../src/logos/agent-runtime.ts';
import type { MemoryNetwork } from '../../src/logos/transports/memory.ts';

export interface GatedAgent {
  agent: LogosAgent;
  /** Lets every waiting task go on. */
  open(): void;
  /** Tasks currently waiting at the gate. */
  readonly waiting: number;
}

export function gatedAgent(network: MemoryNetwork, id = 'gated'): GatedAgent {
  const waiters: (() => void)[] = [];
  const agent = new LogosAgent({
    transport: network.node(`agent:${id}`),
    announce: false, // registered with the gateway directly
    ackAfterMs: 0,
    card: {
      id,
      name: 'Gated',
      description: 'Waits for the test, then reports three steps.',
      version: '1',
      skills: [{ id: 'steps', name: 'Steps', description: 'three steps' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: `agent:${id}` }],
    },
    skills: {
      steps: async (ctx) => {
        await new Promise<void>((resolve, reject) => {
          waiters.push(resolve);
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        });
        for (const step of [1, 2, 3])
          await ctx.artifact({ artifact_id: `step-${step}`, parts: [{ text: `step ${step}` }] });
        return `done: ${ctx.text}`;
      },
    },
  });
  return {
    agent,
    open: () => waiters.splice(0).forEach((resolve) => resolve()),
    get waiting() {
      return waiters.length;
    },
  };
}
