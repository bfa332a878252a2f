/** Regressions found by an independent review; each test failed before its fix. */
/** Money lost, double payments and hangs around priced tasks. */
import { afterEach, expect, it } from 'vitest';
import type { Payer } from '../../src/bridge/task-payments.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { AGENT_ACCOUNT, GATEWAY_ACCOUNT, pricedWorld, type PricedWorld } from '../support/priced-agent.ts';

const ADMIN = 'admin-token-for-tests-0123456789';
let bed: TestBed;
let world: PricedWorld;
afterEach(() => bed?.close());

async function start(options: { payer?: (world: PricedWorld) => Payer; config?: Record<string, unknown> } = {}) {
  world = pricedWorld(10_000n);
  bed = await startTestBed({
    config: {
      adminToken: ADMIN,
      payments: { rail: 'none', perTransactionLimit: '100', perPeriodLimit: '1000' },
      ...options.config,
    } as never,
    agents: (network) => [world.agent(network)],
    payer: options.payer?.(world) ?? world.payer,
  });
}

/** The world's payer, but each payment waits `delayMs` (a real LEZ payment waits for its block). */
function slowPayer(inner: Payer, delayMs: number): Payer {
  return {
    rail: inner.rail,
    account: inner.account,
    async pay(id, to, amount, record) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return inner.pay(id, to, amount, record);
    },
    resume: (state) => inner.resume(state),
    findTransfers: (query) => inner.findTransfers(query),
    verify: (hash, expect) => inner.verify(hash, expect),
  };
}

const shop = () => `${bed.gateway.url}/agents/shop`;
const balances = () => ({
  gateway: world.ledger.balanceOf(GATEWAY_ACCOUNT),
  agent: world.ledger.balanceOf(AGENT_ACCOUNT),
});
const message = (skill: string, messageId = `m-${Math.random()}`) => ({
  messageId,
  role: 'ROLE_USER',
  parts: [{ text: 'hi' }],
  metadata: { skill },
});

it('CancelTask while the payment is in flight loses no money', async () => {
  await start({ payer: (w) => slowPayer(w.payer, 1_500) });
  const sending = rpc(shop(), 'SendMessage', { message: message('quick') });
  // The task is listed (recorded) while it is being paid.
  const taskId = await eventually(
    async () => (await rpc(shop(), 'ListTasks', {})).body.result?.tasks?.[0]?.id as string | undefined,
  );
  const cancelled = await rpc(shop(), 'CancelTask', { id: taskId });
  await sending;
  const final = await eventually(async () => {
    const task = (await rpc(shop(), 'GetTask', { id: taskId })).body.result;
    return ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state) ? undefined : task;
  });
  // No money is lost whichever way the race goes: cancelled and refunded, or completed and paid for.
  const outcome = { final: final.status.state, lez: final.metadata.lez.status, ...balances() };
  expect([
    { final: 'TASK_STATE_CANCELED', lez: 'refunded', gateway: 10_000n, agent: 0n },
    { final: 'TASK_STATE_COMPLETED', lez: 'paid', gateway: 9_990n, agent: 10n },
  ]).toContainEqual(outcome);
  expect(cancelled.body.result?.status?.state).toBe(final.status.state);
});

it('a payment slower than the agent timeout does not fail the task once it is forwarded', async () => {
  await start({ payer: (w) => slowPayer(w.payer, 800), config: { agentTimeoutMs: 400 } });
  const { body } = await rpc(shop(), 'SendMessage', { message: message('quick') });
  // The agent answers at once once paid; the gateway should report the completed, paid task.
  expect({ state: body.result.task.status.state, lez: body.result.task.metadata.lez.status }).toEqual({
    state: 'TASK_STATE_COMPLETED',
    lez: 'paid',
  });
});

it('a retry of a priced message held for approval returns the task at once', async () => {
  await start();
  const dear = message('dear', 'same-dear');
  const first = await rpc(shop(), 'SendMessage', { message: dear });
  expect(first.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const response = await fetch(shop(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: dear } }),
    signal: AbortSignal.timeout(3_000),
  }).catch((error: unknown) => error as Error);
  // The same message, sent again, should answer like the first one did: the task, input-required.
  expect(response).toBeInstanceOf(Response);
});

it('a client retrying the same paid message after a gateway restart pays once', async () => {
  await start();
  const same = message('quick', 'retry-after-restart');
  const first = await rpc(shop(), 'SendMessage', { message: same });
  expect(first.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(balances()).toEqual({ gateway: 9_990n, agent: 10n });
  await bed.restartGateway();
  const again = await rpc(shop(), 'SendMessage', { message: same });
  expect({ sameTask: again.body.result.task.id === first.body.result.task.id, ...balances() }).toEqual({
    sameTask: true,
    gateway: 9_990n,
    agent: 10n,
  });
});

it('SendMessage with a bad historyLength is refused before anything is created or paid', async () => {
  await start();
  const { body } = await rpc(shop(), 'SendMessage', {
    message: message('quick'),
    configuration: { historyLength: -1 },
  });
  expect(body.error?.code).toBe(-32602);
  // An invalid request must not create, forward or pay for anything.
  const listed = (await rpc(shop(), 'ListTasks', {})).body.result.tasks;
  expect({ tasks: listed.length, ...balances() }).toEqual({ tasks: 0, gateway: 10_000n, agent: 0n });
});
