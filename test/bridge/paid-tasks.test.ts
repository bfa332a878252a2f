/**
 * The money flow of the binding through the whole path (HTTP → gateway → binding → agent), on an in-process
 * ledger: pay on acceptance, exactly once; refund on cancel; the spending gate and the operator's approval; clear
 * failures that charge nothing; a crash between recording and submitting a payment.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Payer } from '../../src/bridge/task-payments.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import type { PayOutcome } from '../../src/lez/rail/payment-rail.ts';
import type { RailPaymentRecord } from '../../src/lez/rail/payment-record.ts';
import { agentPayments, gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import type { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { eventually, inProcess, rpc, startTestBed, type TestBed, type TestNetwork } from '../support/gateway.ts';
import { AGENT_ACCOUNT, GATEWAY_ACCOUNT, pricedWorld, type PricedWorld } from '../support/priced-agent.ts';

const ADMIN = 'admin-token-for-tests-0123456789';
let bed: TestBed;
let world: PricedWorld;
afterEach(() => bed?.close());

async function start(
  options: {
    funds?: bigint;
    payer?: (world: PricedWorld) => Payer;
    limits?: Record<string, unknown>;
    agent?: (network: TestNetwork) => LogosAgent;
  } = {},
) {
  world = pricedWorld(options.funds);
  bed = await startTestBed({
    config: {
      adminToken: ADMIN,
      payments: { rail: 'none', perTransactionLimit: '100', perPeriodLimit: '1000', ...options.limits },
    },
    agents: (network) => [options.agent?.(network) ?? world.agent(network)],
    payer: options.payer?.(world) ?? world.payer,
  });
}

const shop = () => `${bed.gateway.url}/agents/shop`;
const send = (skill: string, text = 'hi', extra: Record<string, unknown> = {}) =>
  rpc(shop(), 'SendMessage', {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], metadata: { skill }, ...extra },
  });
/** SendMessage with returnImmediately: answered with the task as recorded. */
const sendAtOnce = (skill: string, messageId: string) =>
  rpc(shop(), 'SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill } },
    configuration: { returnImmediately: true },
  });
/** The task, once `ready` says so of it. */
const taskOnce = (taskId: string, ready: (task: any) => boolean, timeoutMs?: number) =>
  eventually(async () => {
    const task = (await rpc(shop(), 'GetTask', { id: taskId })).body.result;
    return ready(task) ? task : undefined;
  }, timeoutMs);
const balances = () => ({
  gateway: world.ledger.balanceOf(GATEWAY_ACCOUNT),
  agent: world.ledger.balanceOf(AGENT_ACCOUNT),
});
const admin = (path: string) =>
  fetch(`${bed.gateway.url}/admin/approvals${path}`, { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}` } });

describe('paying agents', () => {
  it('pays the price once on acceptance; the receipt is on the task', async () => {
    await start();
    const { body } = await send('quick');
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.metadata.lez).toMatchObject({ rail: 'memory', amount: '10', payee: AGENT_ACCOUNT, status: 'paid' });
    expect(task.metadata.lez.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
  });

  it('a client that retries the same message pays once', async () => {
    await start();
    const message = { messageId: 'same', role: 'ROLE_USER', parts: [{ text: 'once' }], metadata: { skill: 'quick' } };
    const [a, b] = await Promise.all([
      rpc(shop(), 'SendMessage', { message }),
      rpc(shop(), 'SendMessage', { message }),
    ]);
    const c = await rpc(shop(), 'SendMessage', { message });
    expect(new Set([a.body.result.task.id, b.body.result.task.id, c.body.result.task.id]).size).toBe(1);
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
  });

  it('a cancelled paid task is refunded by the agent, and the gateway checks the refund', async () => {
    await start();
    const { body } = await sendAtOnce('slow', 'c1');
    const taskId = body.result.task.id;
    await eventually(async () =>
      (await rpc(shop(), 'GetTask', { id: taskId })).body.result.status.state === 'TASK_STATE_WORKING'
        ? true
        : undefined,
    );
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
    const cancelled = (await rpc(shop(), 'CancelTask', { id: taskId })).body.result;
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    expect(cancelled.metadata.lez).toMatchObject({ status: 'refunded' });
    expect(cancelled.metadata.lez.refundTxHash).toMatch(/^[0-9a-f]{64}$/);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  });

  it('above the per-transaction limit the task waits for an operator; approval pays and runs it', async () => {
    await start({ funds: 10_000n });
    const waiting = (await send('dear')).body.result.task;
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(waiting.status.message.parts[0].text).toMatch(/5000.*per-transaction limit of 100.*operator/);
    expect(balances()).toEqual({ gateway: 10_000n, agent: 0n });
    // The client cannot talk its way past the gate.
    const followUp = await rpc(shop(), 'SendMessage', {
      message: { messageId: 'f', role: 'ROLE_USER', taskId: waiting.id, parts: [{ text: 'please' }] },
    });
    expect(followUp.body.error?.code).toBe(-32004);
    const list = await (
      await fetch(`${bed.gateway.url}/admin/approvals?status=pending`, {
        headers: { Authorization: `Bearer ${ADMIN}` },
      })
    ).json();
    expect(list.approvals.map((a: { taskId: string }) => a.taskId)).toEqual([waiting.id]);
    expect((await admin(`/${waiting.id}/approve`)).status).toBe(200);
    const done = await taskOnce(waiting.id, (now) => now.status.state === 'TASK_STATE_COMPLETED');
    expect(done.metadata.lez.status).toBe('paid');
    expect(balances()).toEqual({ gateway: 5_000n, agent: 5_000n });
    expect((await admin(`/${waiting.id}/approve`)).status).toBe(409);
  });

  it('an operator who rejects ends the task, charging nothing; the admin API wants its token', async () => {
    await start({ funds: 10_000n });
    const waiting = (await send('dear')).body.result.task;
    expect((await fetch(`${bed.gateway.url}/admin/approvals/${waiting.id}/reject`, { method: 'POST' })).status).toBe(
      401,
    );
    expect((await admin(`/${waiting.id}/reject`)).status).toBe(200);
    const task = (await rpc(shop(), 'GetTask', { id: waiting.id })).body.result;
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(balances()).toEqual({ gateway: 10_000n, agent: 0n });
  });

  it('the per-period limit counts what was already spent', async () => {
    await start({ limits: { perPeriodLimit: '25' } });
    expect((await send('quick')).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await send('quick')).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const third = (await send('quick')).body.result.task;
    expect(third.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(third.status.message.parts[0].text).toMatch(/30, above the limit of 25/);
  });

  it('insufficient funds: the task fails with a clear message and nothing is charged', async () => {
    await start({ funds: 5n });
    const task = (await send('quick')).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message.parts[0].text).toMatch(/payment of 10 .* failed: .*Nothing was charged/s);
    expect(balances()).toEqual({ gateway: 5n, agent: 0n });
  });

  it('an uninitialised agent account: a clear failure, nothing charged', async () => {
    await start();
    bed.gateway.directory.register({
      ...world.agent(bed.network).card,
      id: 'ghostshop',
      'x-lez-identity': { account_id: 'an-account-nobody-has-initialised-yet' },
    });
    const { body } = await rpc(`${bed.gateway.url}/agents/ghostshop`, 'SendMessage', {
      message: { messageId: 'g', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'quick' } },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(body.result.task.status.message.parts[0].text).toMatch(/not initialised|uninitialised/);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  });

  it('a gateway that dies between recording and submitting a payment pays exactly once after restart', async () => {
    // The first gateway records the signed transfer, then "dies" before submitting it.
    await start({
      payer: (w) => ({
        ...w.payer,
        pay: (paymentId, to, amount, record) =>
          new Promise(() => {
            void w.payer.pay(paymentId, to, amount, (state) => {
              record(state);
              throw new Error('killed before submitting');
            });
          }),
      }),
    });
    const pending = sendAtOnce('quick', 'crash');
    void pending.catch(() => undefined);
    await eventually(async () => ((await rpc(shop(), 'ListTasks', {})).body.result.totalSize === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
    // A new gateway on the same database, with a working wallet, finishes the recorded payment once.
    // (A fresh rail, as in a new process: the old one remembers its failed attempt.)
    await bed.restartGateway({ payer: gatewayPayer(new MemoryRail({ ledger: world.ledger, payer: GATEWAY_ACCOUNT })) });
    const taskId = (await rpc(shop(), 'ListTasks', {})).body.result.tasks[0].id;
    const done = await taskOnce(taskId, (now) => now.status.state === 'TASK_STATE_COMPLETED');
    expect(done.metadata.lez.status).toBe('paid');
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
  });

  it('returnImmediately answers with the submitted task while its payment still waits on the rail', async () => {
    let release!: () => void;
    const railAnswers = new Promise<void>((resolve) => (release = resolve));
    await start({
      payer: (w) => ({
        ...w.payer,
        // A sequencer that takes its time: the transfer is submitted only once the test lets it.
        pay: async (paymentId, to, amount, record) => {
          await railAnswers;
          return w.payer.pay(paymentId, to, amount, record);
        },
      }),
    });
    const answer = await Promise.race([
      sendAtOnce('quick', 'at-once'),
      new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 2_000)),
    ]);
    if (answer === 'still waiting') throw new Error('SendMessage waited for the payment');
    const submitted = answer.body.result.task;
    expect(submitted.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(submitted.metadata.lez).toMatchObject({ amount: '10', status: 'pending' });
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
    release();
    const done = await taskOnce(submitted.id, (now) => now.status.state === 'TASK_STATE_COMPLETED');
    expect(done.metadata.lez.status).toBe('paid');
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
  });
});

describe('returnImmediately with a payment that throws', () => {
  it('fails the task instead of leaving it submitted', async () => {
    await start({
      payer: (w) => ({
        ...w.payer,
        pay: async () => {
          throw new Error('the payment store is unreachable');
        },
      }),
    });
    const { body } = await sendAtOnce('quick', 'throws');
    expect(body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const ended = await eventually(async () => {
      const now = (await rpc(shop(), 'GetTask', { id: body.result.task.id })).body.result;
      return now.status.state === 'TASK_STATE_SUBMITTED' ? undefined : now;
    });
    expect(ended.status.state).toBe('TASK_STATE_FAILED');
    expect(ended.status.message.parts[0].text).toMatch(/could not pay the agent/);
    expect(JSON.stringify(ended)).not.toMatch(/unreachable/);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  });
});

describe('API keys', () => {
  it('when keys are configured every call needs one, cards say so, and each key is held to its budget', async () => {
    world = pricedWorld(10_000n);
    bed = await startTestBed({
      config: {
        apiKeys: [
          { name: 'alice', key: 'alice-key-0123456789', budget: '15' },
          { name: 'bob', key: 'bob-key-0123456789abc' },
        ],
      },
      agents: (network) => [world.agent(network)],
      payer: world.payer,
    });
    const call = (key: string | undefined, skill = 'quick') =>
      rpc(
        shop(),
        'SendMessage',
        {
          message: { messageId: `k-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill } },
        },
        {
          'A2A-Version': '1.0',
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
        },
      );
    const anonymous = await call(undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error?.message).toMatch(/API key/);
    expect((await call('not-a-key-at-all-here')).status).toBe(401);
    const rest = await fetch(`${shop()}/tasks`, { headers: { 'X-API-Key': 'wrong-key-0000000000' } });
    expect(rest.status).toBe(401);
    const card = await (await fetch(`${shop()}/.well-known/agent-card.json`)).json();
    expect(card.securityRequirements).toEqual([{ schemes: { apiKey: {} } }]);

    expect((await call('alice-key-0123456789')).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const over = (await call('alice-key-0123456789')).body.result.task;
    expect(over.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(over.status.message.parts[0].text).toMatch(/API key "alice" has spent 10 of its budget of 15/);
    const viaHeader = await rpc(
      shop(),
      'SendMessage',
      { message: { messageId: 'b1', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'quick' } } },
      {
        'A2A-Version': '1.0',
        'X-API-Key': 'bob-key-0123456789abc',
      },
    );
    expect(viaHeader.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(balances()).toEqual({ gateway: 9_980n, agent: 20n });

    // Each key sees its own tasks only.
    const as = (key: string) => ({ 'A2A-Version': '1.0', Authorization: `Bearer ${key}` });
    const aliceTask = over.id as string;
    expect((await rpc(shop(), 'GetTask', { id: aliceTask }, as('alice-key-0123456789'))).body.result.id).toBe(
      aliceTask,
    );
    expect((await rpc(shop(), 'GetTask', { id: aliceTask }, as('bob-key-0123456789abc'))).body.error?.code).toBe(
      -32001,
    );
    expect((await rpc(shop(), 'CancelTask', { id: aliceTask }, as('bob-key-0123456789abc'))).body.error?.code).toBe(
      -32001,
    );
    const bobs = (await rpc(shop(), 'ListTasks', {}, as('bob-key-0123456789abc'))).body.result;
    expect(bobs.tasks.map((t: { id: string }) => t.id)).toEqual([viaHeader.body.result.task.id]);
    expect((await rpc(shop(), 'ListTasks', {}, as('alice-key-0123456789'))).body.result.totalSize).toBe(2);
  });
});

/** The shop on a bed where a 1:1 message to it is lost when `lost` says so (given the message's text). */
async function startLosing(lost: (text: string) => boolean): Promise<void> {
  world = pricedWorld();
  bed = await startTestBed({
    config: {
      cancelTimeoutMs: 300,
      payments: { rail: 'none', perTransactionLimit: '100', perPeriodLimit: '1000' },
    },
    agents: (testNetwork) => {
      const network = inProcess(testNetwork);
      const deliver = network.deliver.bind(network);
      network.deliver = (table, name, payload, sender, key) => {
        if (table === 'direct' && name === 'agent:shop' && lost(new TextDecoder().decode(payload))) return;
        deliver(table, name, payload, sender, key);
      };
      return [world.agent(network)];
    },
    payer: world.payer,
  });
}

describe('a paid task whose agent does not confirm its cancel', () => {
  it('stays live, and the cancel is sent again until the agent answers with its refund', async () => {
    let droppedCancels = 0;
    // The agent never hears the first cancel (lost on the way): only the gateway's repeat reaches it.
    await startLosing((text) => text.includes('"type":"cancel"') && droppedCancels++ === 0);
    const { body } = await sendAtOnce('slow', 'deaf');
    const taskId = body.result.task.id;
    await taskOnce(
      taskId,
      (task) => task.metadata?.lez?.status === 'paid' && task.status.state === 'TASK_STATE_WORKING',
    );
    await rpc(shop(), 'CancelTask', { id: taskId });
    // Cancelled only on the gateway's side, its money would be unheard of: the task waits for the agent.
    expect((await rpc(shop(), 'GetTask', { id: taskId })).body.result.status.state).toBe('TASK_STATE_WORKING');
    const ended = await taskOnce(taskId, (task) => task.status.state === 'TASK_STATE_CANCELED', 10_000);
    expect(ended.metadata.lez.status).toBe('refunded');
    expect(droppedCancels).toBeGreaterThanOrEqual(2);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  });
});

describe('a paid task whose request was lost, then cancelled', () => {
  it('still reaches its agent, so the agent learns of the money, stops at the repeated cancel and pays it back', async () => {
    const requests: string[] = [];
    // The first task_request never arrives: the agent answers the cancel that follows with unknown_task.
    await startLosing((text) => text.includes('"type":"task_request"') && requests.push(text) === 1);
    const { body } = await sendAtOnce('slow', 'lost-then-cancelled');
    const taskId = body.result.task.id;
    await taskOnce(taskId, (task) => task.metadata?.lez?.status === 'paid');
    await rpc(shop(), 'CancelTask', { id: taskId });
    const ended = await taskOnce(taskId, (task) => task.status.state === 'TASK_STATE_CANCELED', 10_000);
    expect(ended.metadata.lez.status).toBe('refunded');
    expect(requests).toHaveLength(2);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  });
});

describe('a refund recorded missing', () => {
  it('that the agent makes later turns the task’s receipt to refunded, with no restart', async () => {
    let agentRail!: MemoryRail;
    await start({
      agent: (network) => {
        agentRail = new MemoryRail({ ledger: world.ledger, payer: AGENT_ACCOUNT });
        // The agent's refund fails when the task is cancelled (its sequencer is away): it names no refund.
        const refund = async () => ({ ok: false as const, message: 'the sequencer is away' });
        return world.agent(network, { ...agentPayments(agentRail), refund });
      },
    });
    const { body } = await sendAtOnce('slow', 'late');
    const taskId = body.result.task.id;
    await taskOnce(taskId, (task) => task.metadata?.lez?.status === 'paid');
    const cancelled = (await rpc(shop(), 'CancelTask', { id: taskId })).body.result;
    expect(cancelled.metadata.lez.status).toBe('refund-missing');
    // The agent pays it back once its sequencer is back; the gateway's next look at the chain finds it.
    const refund = await agentRail.pay({ paymentId: `refund:${taskId}`, to: GATEWAY_ACCOUNT, amount: 10n });
    if (refund.kind !== 'paid') throw new Error(refund.kind);
    const corrected = await taskOnce(taskId, (task) => task.metadata.lez.status === 'refunded', 20_000);
    expect(corrected.metadata.lez.refundTxHash).toBe(refund.receipt.txHash);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  }, 30_000);
});

describe('cancelling while the agent checks the payment', () => {
  it('refunds everything: the skill never started', async () => {
    // The agent's check of the payment is slow, so that the cancel arrives during it.
    await start({
      agent: (network) => {
        const payments = agentPayments(new MemoryRail({ ledger: world.ledger, payer: AGENT_ACCOUNT }));
        const verify: typeof payments.verify = async (...args) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return payments.verify(...args);
        };
        return world.agent(network, { ...payments, verify });
      },
    });
    const task = (await sendAtOnce('quick', 'cv')).body.result.task;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancelled = (await rpc(shop(), 'CancelTask', { id: task.id })).body.result;
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    expect(cancelled.metadata.lez.status).toBe('refunded');
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
  });
});

describe('the client pays the agent itself (client-pays extension)', () => {
  const EXTENSION = 'urn:logos-a2a:ext:lez-client-pays:v1';
  const CLIENT = 'client-account-on-the-memory-ledger';

  it('a v0.3 client activates it with X-A2A-Extensions and hears it back under that name', async () => {
    await start();
    const asked = await rpc(
      shop(),
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: 'cp-v03',
          role: 'user',
          parts: [{ kind: 'text', text: 'mine' }],
          metadata: { skill: 'quick' },
        },
      },
      { 'X-A2A-Extensions': EXTENSION },
    );
    expect(asked.headers.get('x-a2a-extensions')).toContain(EXTENSION);
    expect(asked.body.result.status.state).toBe('input-required');
  });

  it('the task waits for the client’s transfer, checks it on chain, then runs; a cancel refunds the client', async () => {
    await start();
    world.ledger.fund(CLIENT, 100n);
    const card = await (await fetch(`${shop()}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.extensions.map((e: { uri: string }) => e.uri)).toContain(EXTENSION);
    const client = new MemoryRail({ ledger: world.ledger, payer: CLIENT });
    const ask = (skill: string, id: string) =>
      rpc(
        shop(),
        'SendMessage',
        { message: { messageId: id, role: 'ROLE_USER', parts: [{ text: 'mine' }], metadata: { skill } } },
        {
          'A2A-Version': '1.0',
          'A2A-Extensions': EXTENSION,
        },
      );

    const asked = await ask('quick', 'cp1');
    expect(asked.headers.get('a2a-extensions')).toContain(EXTENSION);
    const waiting = asked.body.result.task;
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const required = waiting.status.message.metadata['lez.payment.required'];
    expect(required).toMatchObject({ payTo: AGENT_ACCOUNT, amount: '10' });
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });

    // An answer without a payment, and one with a transfer that does not pay this task, are refused.
    const bare = await rpc(shop(), 'SendMessage', {
      message: { messageId: 'cp1b', role: 'ROLE_USER', taskId: waiting.id, parts: [{ text: 'here' }] },
    });
    expect(bare.body.error?.code).toBe(-32602);
    const tooLittle = await client.pay({ paymentId: 'little', to: AGENT_ACCOUNT, amount: 3n });
    if (tooLittle.kind !== 'paid') throw new Error('setup');
    const wrong = (
      await rpc(shop(), 'SendMessage', {
        message: {
          messageId: 'cp1c',
          role: 'ROLE_USER',
          taskId: waiting.id,
          parts: [{ text: 'paid' }],
          metadata: { 'lez.payment.payload': { txHash: tooLittle.receipt.txHash, from: CLIENT } },
        },
      })
    ).body.result.task;
    expect(wrong.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(wrong.status.message.metadata['lez.payment.status']).toBe('payment-rejected');

    const paid = await client.pay({ paymentId: 'right', to: AGENT_ACCOUNT, amount: 10n });
    if (paid.kind !== 'paid') throw new Error('setup');
    const done = (
      await rpc(shop(), 'SendMessage', {
        message: {
          messageId: 'cp1d',
          role: 'ROLE_USER',
          taskId: waiting.id,
          parts: [{ text: 'paid' }],
          metadata: { 'lez.payment.payload': { txHash: paid.receipt.txHash, from: CLIENT } },
        },
      })
    ).body.result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.metadata.lez).toMatchObject({ status: 'paid', payer: CLIENT, txHash: paid.receipt.txHash });
    // The gateway's wallet paid nothing; the client paid the agent 3 + 10.
    expect(balances()).toEqual({ gateway: 1000n, agent: 13n });
    expect(world.ledger.balanceOf(CLIENT)).toBe(87n);

    // The same transfer cannot pay a second task.
    const again = (await ask('quick', 'cp2')).body.result.task;
    const reused = (
      await rpc(shop(), 'SendMessage', {
        message: {
          messageId: 'cp2b',
          role: 'ROLE_USER',
          taskId: again.id,
          parts: [{ text: 'paid' }],
          metadata: { 'lez.payment.payload': { txHash: paid.receipt.txHash, from: CLIENT } },
        },
      })
    ).body.result.task;
    expect(reused.status.message.metadata['lez.payment.status']).toBe('payment-rejected');

    // A slow task paid by the client and then cancelled: the agent refunds the client, not the gateway.
    const slow = (await ask('slow', 'cp3')).body.result.task;
    const forSlow = await client.pay({ paymentId: 'slow', to: AGENT_ACCOUNT, amount: 10n });
    if (forSlow.kind !== 'paid') throw new Error('setup');
    await rpc(shop(), 'SendMessage', {
      message: {
        messageId: 'cp3b',
        role: 'ROLE_USER',
        taskId: slow.id,
        parts: [{ text: 'paid' }],
        metadata: { 'lez.payment.payload': { txHash: forSlow.receipt.txHash, from: CLIENT } },
      },
      configuration: { returnImmediately: true },
    });
    await eventually(async () =>
      (await rpc(shop(), 'GetTask', { id: slow.id })).body.result.status.state === 'TASK_STATE_WORKING'
        ? true
        : undefined,
    );
    const cancelled = (await rpc(shop(), 'CancelTask', { id: slow.id })).body.result;
    expect(cancelled.metadata.lez.status).toBe('refunded');
    expect(world.ledger.balanceOf(CLIENT)).toBe(87n);
    expect(balances()).toEqual({ gateway: 1000n, agent: 13n });
  });
});

/** What a rail answers for a recorded transfer it cannot confirm: the sequencer did not answer. */
function unconfirmed(record: RailPaymentRecord): PayOutcome {
  const { paymentId, rail, network, txHash, from, to, amount, nonce } = record;
  const receipt = { rail, network, txHash, from, to, amount, nonce, status: 'submitted' as const };
  const message = 'the sequencer did not answer';
  return { kind: 'in-doubt', paymentId, reason: 'sequencer-unavailable', message, receipt };
}

describe('a payment in doubt for a moment', () => {
  it('is resumed while its task waits, and the task goes on paid once', async () => {
    // The transfer is signed and recorded, then the sequencer stops answering before it is sent; it is back when
    // the gateway asks again.
    await start({
      payer: (w) => ({
        ...w.payer,
        pay: async (paymentId, to, amount, record) => {
          const recorded = new Promise<RailPaymentRecord>(
            (resolve) =>
              void w.payer.pay(paymentId, to, amount, async (state) => {
                await record(state);
                resolve(state as RailPaymentRecord);
                throw new Error('connection lost before submitting');
              }),
          );
          return unconfirmed(await recorded);
        },
      }),
    });
    const task = (await send('quick')).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.metadata.lez).toMatchObject({ status: 'paid' });
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
  });
});

describe('a payment in doubt when its task ended', () => {
  it('is settled once at the next start, so the books say whether the money moved', async () => {
    // The first gateway signs and records the transfer, then cannot confirm it while it waits: the task fails, "not
    // confirmed".
    await start({
      limits: { inDoubtWaitMs: 300 },
      payer: (w) => ({
        ...w.payer,
        resume: async (state) => unconfirmed(state as RailPaymentRecord),
        pay: async (paymentId, to, amount, record) => {
          let signed: RailPaymentRecord | undefined;
          void w.payer.pay(paymentId, to, amount, (state) => {
            signed = state as RailPaymentRecord;
            record(state);
            throw new Error('connection lost before submitting');
          });
          await new Promise((resolve) => setTimeout(resolve, 50));
          return unconfirmed(signed!);
        },
      }),
    });
    const task = (
      await rpc(shop(), 'SendMessage', {
        message: { messageId: 'doubt', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'quick' } },
      })
    ).body.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message.parts[0].text).toMatch(/not confirmed/);
    expect(balances()).toEqual({ gateway: 1000n, agent: 0n });
    // The next start finishes the recorded transfer exactly once (a fresh rail, as in a new process).
    await bed.restartGateway({ payer: gatewayPayer(new MemoryRail({ ledger: world.ledger, payer: GATEWAY_ACCOUNT })) });
    await eventually(() => (world.ledger.balanceOf(AGENT_ACCOUNT) === 10n ? true : undefined));
    await bed.restartGateway({ payer: gatewayPayer(new MemoryRail({ ledger: world.ledger, payer: GATEWAY_ACCOUNT })) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(balances()).toEqual({ gateway: 990n, agent: 10n });
  });
});
