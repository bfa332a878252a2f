/** Regressions found by an independent review; each test failed before its fix. */
/** Concurrent requests on one task. */
import { afterEach, expect, it } from 'vitest';
import type { Payer } from '../../src/bridge/task-payments.ts';
import { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { agentPayments, gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { AGENT_ACCOUNT, GATEWAY_ACCOUNT } from '../support/priced-agent.ts';

let bed: TestBed;
afterEach(() => bed?.close());

it('a follow-up racing CancelTask gets -32004 and the task stays cancelled', async () => {
  const ledger = new MemoryLedger();
  ledger.fund(GATEWAY_ACCOUNT, 1_000n);
  ledger.initialise(AGENT_ACCOUNT);
  const inner = gatewayPayer(new MemoryRail({ ledger, payer: GATEWAY_ACCOUNT }));
  // Checking the agent's refund takes a moment, as a sequencer lookup does.
  const payer: Payer = {
    ...inner,
    pay: inner.pay,
    resume: inner.resume,
    verify: async (hash, expect) => (await new Promise((r) => setTimeout(r, 500)), inner.verify(hash, expect)),
  };
  bed = await startTestBed({
    config: { payments: { rail: 'none', perTransactionLimit: '100', perPeriodLimit: '1000' } } as never,
    payer,
    agents: (network) => [
      new LogosAgent({
        transport: network.node('agent:ask'),
        announce: false, // registered with the gateway directly
        payments: agentPayments(new MemoryRail({ ledger, payer: AGENT_ACCOUNT })),
        card: {
          id: 'ask',
          name: 'Ask',
          description: 'Paid, then asks for input.',
          version: '1',
          'x-lez-identity': { account_id: AGENT_ACCOUNT },
          skills: [{ id: 'ask', name: 'Ask', description: '', 'x-lez-price': '10' }],
          agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:ask' }],
        },
        skills: { ask: async (ctx) => `got ${(await ctx.requestInput({ parts: [{ text: 'more?' }] } as never)).text}` },
      }),
    ],
  });
  const url = `${bed.gateway.url}/agents/ask`;
  const first = await rpc(url, 'SendMessage', {
    message: { messageId: 'a1', role: 'ROLE_USER', parts: [{ text: 'go' }] },
  });
  const taskId = first.body.result.task.id as string;
  expect(first.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

  const cancel = rpc(url, 'CancelTask', { id: taskId });
  await new Promise((resolve) => setTimeout(resolve, 150)); // the agent has cancelled; the gateway checks the refund
  const followUp = fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'SendMessage',
      params: { message: { messageId: 'a2', taskId, role: 'ROLE_USER', parts: [{ text: 'more' }] } },
    }),
    signal: AbortSignal.timeout(3_000),
  })
    .then(async (r) => (await r.json()) as { result?: any; error?: { code: number } })
    .catch(() => 'HUNG' as const);
  const cancelled = (await cancel).body.result;
  expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
  const answer = await followUp;
  await new Promise((resolve) => setTimeout(resolve, 100));
  const stored = (await rpc(url, 'GetTask', { id: taskId })).body.result;
  // Correct: the follow-up is refused (-32004, task finished) or answered, and the task stays CANCELED.
  expect({ followUp: answer === 'HUNG' ? 'HUNG' : 'answered', stored: stored.status.state }).toEqual({
    followUp: 'answered',
    stored: 'TASK_STATE_CANCELED',
  });
});
