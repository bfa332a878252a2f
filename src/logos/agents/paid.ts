/**
 * `paid`: the demo of paid tasks. `echo` costs 5 and answers at once; `slow` costs 5 and works for a minute (time
 * to cancel it and see the refund); `premium` costs 500, above the gateway's default per-transaction limit, so it
 * waits for an operator's approval.
 */
import { LogosAgent, builtinOptions, type AgentPayments, type BuiltinAgentOptions } from '../agent-runtime.ts';
import type { LogosTransport } from '../transport.ts';

export function paidAgent(
  transport: LogosTransport,
  payments: AgentPayments,
  options: BuiltinAgentOptions = {},
): LogosAgent {
  return new LogosAgent({
    transport,
    payments,
    ...builtinOptions(options),
    card: {
      id: options.id ?? 'paid',
      name: 'Paid echo',
      description: 'Echoes for a fee in LEZ, paid by the gateway on acceptance and refunded when a task is cancelled.',
      version: '1.0.0',
      // Its private account's keys too, when it takes shielded payments (docs/payments.md §10).
      'x-lez-identity': {
        account_id: payments.account,
        ...(payments.privateKeys ? { private: payments.privateKeys } : {}),
      },
      skills: [
        {
          id: 'echo',
          name: 'Echo',
          description: 'Echoes the text; costs 5.',
          tags: ['demo', 'paid'],
          'x-lez-price': '5',
        },
        {
          id: 'slow',
          name: 'Slow echo',
          description: 'Echoes after a minute; costs 5. Cancel it to see a refund.',
          tags: ['demo', 'paid'],
          'x-lez-price': '5',
        },
        {
          id: 'premium',
          name: 'Premium echo',
          description: 'Echoes; costs 500, which needs an operator’s approval.',
          tags: ['demo', 'paid'],
          'x-lez-price': '500',
        },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
    },
    skills: {
      echo: (ctx) => ctx.text,
      premium: (ctx) => `premium: ${ctx.text}`,
      slow: (ctx) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve(ctx.text), 60_000);
          ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason)), { once: true });
        }),
    },
  });
}
