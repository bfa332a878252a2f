/** A Logos agent whose skill waits at a gate the test opens, then streams a few updates and completes. */
import { LogosAgent } from '../../src/logos/agent-runtime.ts';
import type { TestNetwork } from './gateway.ts';

export interface GatedAgent {
  agent: LogosAgent;
  /** Lets every waiting task go on. */
  open(): void;
  /** Tasks currently waiting at the gate. */
  readonly waiting: number;
}

export function gatedAgent(network: TestNetwork, id = 'gated'): GatedAgent {
  const waiters: (() => void)[] = [];
  const transport = network.node(`agent:${id}`);
  const agent = new LogosAgent({
    transport,
    announce: false, // registered with the gateway directly
    ackAfterMs: 0,
    card: {
      id,
      name: 'Gated',
      description: 'Waits for the test, then reports three steps.',
      version: '1',
      skills: [{ id: 'steps', name: 'Steps', description: 'three steps' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
    },
    skills: {
      steps: async (ctx) => {
        await new Promise<void>((resolve, reject) => {
          waiters.push(resolve);
          // A cancelled task leaves the gate: `waiting` counts only tasks that open() would release.
          ctx.signal.addEventListener('abort', () => {
            waiters.splice(waiters.indexOf(resolve), 1);
            reject(ctx.signal.reason);
          });
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
