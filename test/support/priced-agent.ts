/** A Logos agent that charges for a skill, paid and refunded on an in-process ledger. */
import { LogosAgent, type AgentPayments } from '../../src/logos/agent-runtime.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import type { TestNetwork } from './gateway.ts';
import { agentPayments, gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import type { Payer } from '../../src/bridge/task-payments.ts';

export const GATEWAY_ACCOUNT = 'gateway-wallet';
/** Card account ids are 32 to 64 characters (base58 on LEZ); memory-ledger labels follow suit. */
export const AGENT_ACCOUNT = 'shop-account-on-the-memory-ledger';

export interface PricedWorld {
  ledger: MemoryLedger;
  payer: Payer;
  /** The agent; `payments` replaces its side of the ledger (to make it fail, say). */
  agent(network: TestNetwork, payments?: AgentPayments): LogosAgent;
  /** Releases tasks of the `slow` skill. */
  release(): void;
}

/** `quick` costs 10 and answers at once; `slow` costs 10 and waits for release(); `dear` costs 5000. */
export function pricedWorld(funds = 1_000n): PricedWorld {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY_ACCOUNT, funds);
  ledger.initialise(AGENT_ACCOUNT);
  const waiting: (() => void)[] = [];
  return {
    ledger,
    payer: gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY_ACCOUNT })),
    release: () => waiting.splice(0).forEach((go) => go()),
    agent: (network, payments = agentPayments(new MemoryRail({ ledger, payer: AGENT_ACCOUNT }))) => {
      const transport = network.node('agent:shop');
      return new LogosAgent({
        transport,
        announce: false, // registered with the gateway directly
        payments,
        card: {
          id: 'shop',
          name: 'Shop',
          description: 'Charges per task.',
          version: '1',
          'x-lez-identity': { account_id: AGENT_ACCOUNT },
          skills: [
            { id: 'quick', name: 'Quick', description: '', 'x-lez-price': '10' },
            { id: 'slow', name: 'Slow', description: '', 'x-lez-price': '10' },
            { id: 'dear', name: 'Dear', description: '', 'x-lez-price': '5000' },
          ],
          agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
        },
        skills: {
          quick: (ctx) => `done: ${ctx.text}`,
          dear: (ctx) => `dear: ${ctx.text}`,
          slow: (ctx) =>
            new Promise((resolve, reject) => {
              waiting.push(() => resolve('slow done'));
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
            }),
        },
      });
    },
  };
}
