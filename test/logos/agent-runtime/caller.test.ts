/**
 * A runtime agent hires other runtime agents (caller.ts) on the in-process network: found by their announced, signed
 * cards, each outcome of docs/binding.md §5 as a value: completed, a conversation over input-required, failed,
 * cancelled, an agent gone silent; a priced skill refused without a wallet, and paid, then refunded when it fails,
 * from one on the memory ledger. The same over real Waku, with a published HTTP agent: hire-over-waku.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogosAgent, SkillRejected, type AgentPayments } from '../../../src/logos/agent-runtime.ts';
import { HirePayments, LogosCaller, type HireOutcome } from '../../../src/logos/agent-runtime/caller.ts';
import { MemoryNetwork } from '../../../src/logos/transports/memory.ts';
import { MemoryLedger } from '../../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../../src/lez/rail/memory-rail.ts';
import { agentPayments } from '../../../src/gateway/payment-wiring.ts';
import { formatAccountId, publicAccountId } from '../../../src/lez/account-id.ts';
import { xOnlyPublicKey } from '../../../src/lez/public-key.ts';
import { eventually } from '../../support/gateway.ts';

const CALLER_ACCOUNT = 'the-hiring-agents-own-wallet-account';
let network: MemoryNetwork;
let ledger: MemoryLedger;
let worker: LogosAgent;
let manager: LogosAgent;
let caller: LogosCaller;
let managerCaller: LogosCaller;
const cardKey = new Uint8Array(randomBytes(32));
/** The worker's account: its card key's, where its card says it is paid. */
const workerAccount = formatAccountId(publicAccountId(xOnlyPublicKey(cardKey)));

/** The worker: `echo` answers, `ask` asks for a name, `fail` throws, `decline` rejects, `slow` waits for a cancel, `paid` costs 10. */
function workerAgent(
  payments: AgentPayments = agentPayments(new MemoryRail({ ledger, payer: workerAccount })),
): LogosAgent {
  return new LogosAgent({
    transport: network.node('agent:worker'),
    cardKey,
    announceEveryMs: 200,
    payments,
    card: {
      id: 'worker',
      name: 'Worker',
      description: 'Works for hire.',
      version: '1',
      'x-lez-identity': { account_id: workerAccount },
      skills: [
        ...['echo', 'ask', 'fail', 'decline', 'slow'].map((id) => ({ id, name: id, description: '' })),
        ...['paid', 'paid-fail'].map((id) => ({ id, name: id, description: '', 'x-lez-price': '10' })),
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:worker' }],
    },
    skills: {
      echo: (ctx) => `echo: ${ctx.text}`,
      ask: async (ctx) => {
        const answer = await ctx.requestInput('What is your name?');
        return `hello, ${answer.text}`;
      },
      fail: () => {
        throw new Error('it broke');
      },
      decline: () => {
        throw new SkillRejected('not today');
      },
      slow: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      paid: (ctx) => `paid echo: ${ctx.text}`,
      'paid-fail': () => {
        throw new Error('broke after payment');
      },
    },
  });
}

beforeEach(async () => {
  network = new MemoryNetwork();
  ledger = new MemoryLedger();
  ledger.fund(CALLER_ACCOUNT, 1_000n);
  ledger.initialise(workerAccount);
  worker = workerAgent();
  await worker.start();
  const transport = network.node('agent:boss');
  await transport.start();
  caller = new LogosCaller({ transport, timers: { agentTimeoutMs: 1_000, cancelTimeoutMs: 500 }, log: () => {} });
  caller.start();
  await eventually(() => caller.cardOf('worker'), 5_000);
});

afterEach(async () => {
  caller.stop();
  managerCaller?.stop();
  await manager?.stop();
  await worker.stop();
});

describe('hiring a runtime agent', () => {
  it('by id, address or card: completed with its result', async () => {
    const outcome = await caller.hire('worker', 'echo', 'hello');
    expect(outcome).toMatchObject({ kind: 'completed', result: 'echo: hello', asMessage: false });
    expect(await caller.hire('agent:worker', 'echo', { text: 'again' })).toMatchObject({ result: 'echo: again' });
    expect(await caller.hire({ card: worker.signedCard }, 'echo', 'by card')).toMatchObject({
      result: 'echo: by card',
    });
  });

  it('a conversation: the question comes back with reply(), the answer completes it', async () => {
    const asked = await caller.hire('worker', 'ask', 'hi');
    if (asked.kind !== 'input-required') throw new Error(`not asked: ${asked.kind}`);
    expect(asked.prompt).toBe('What is your name?');
    expect(await asked.reply('Ada')).toMatchObject({ kind: 'completed', result: 'hello, Ada' });
  });

  it('failed and rejected tasks are values with the agent’s error', async () => {
    expect(await caller.hire('worker', 'fail', '')).toMatchObject({
      kind: 'failed',
      error: { code: 'skill_failed', message: 'it broke' },
    });
    expect(await caller.hire('worker', 'decline', '')).toMatchObject({
      kind: 'rejected',
      error: { code: 'rejected', message: 'not today' },
    });
  });

  it('aborting the signal cancels the task, and the agent confirms', async () => {
    const abort = new AbortController();
    const pending = caller.hire('worker', 'slow', 'x', { signal: abort.signal });
    setTimeout(() => abort.abort(), 300);
    expect(await pending).toMatchObject({ kind: 'cancelled', confirmed: true });
  });

  it('refuses what it cannot send, sending nothing', async () => {
    expect(await caller.hire('nobody', 'echo', '')).toMatchObject({ kind: 'refused', reason: 'unknown-agent' });
    expect(await caller.hire('worker', 'nope', '')).toMatchObject({ kind: 'refused', reason: 'unknown-skill' });
    const tampered = { ...worker.signedCard, description: 'changed after signing' };
    expect(await caller.hire({ card: tampered }, 'echo', '')).toMatchObject({ kind: 'refused', reason: 'bad-card' });
    const priced = await caller.hire('worker', 'paid', 'x');
    expect(priced).toMatchObject({ kind: 'refused', reason: 'priced' });
    expect((priced as { message: string }).message).toMatch(/costs 10 LEZ base units, and this caller has no wallet/);
  });

  it('an agent that stops answering: the hire times out', async () => {
    const pending = caller.hire('worker', 'slow', 'x');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await worker.stop();
    expect(await pending).toMatchObject({ kind: 'timeout', message: 'The agent did not answer within 1 s.' });
    worker = workerAgent();
  });

  it('an agent that restarts mid-task is asked at once, and its answer ends the hire (no wait for the timeout)', async () => {
    const transport = network.node('agent:patient');
    await transport.start();
    const patient = new LogosCaller({ transport, timers: { agentTimeoutMs: 60_000 }, log: () => {} });
    patient.start();
    try {
      await eventually(() => patient.cardOf('worker'), 5_000);
      const pending = patient.hire('worker', 'slow', 'x');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await worker.stop();
      worker = workerAgent();
      await worker.start(); // announces a new instance
      expect(await pending).toMatchObject({ kind: 'failed', error: { code: 'unknown_task' } });
    } finally {
      patient.stop();
    }
  });

  it('a runtime agent whose skill hires another, passing its question on to its own caller', async () => {
    const transport = network.node('agent:manager');
    managerCaller = new LogosCaller({ transport, log: () => {} });
    manager = new LogosAgent({
      transport,
      announce: false,
      cardKey: new Uint8Array(randomBytes(32)),
      card: {
        id: 'manager',
        name: 'Manager',
        description: 'Delegates.',
        version: '1',
        skills: [{ id: 'delegate', name: 'delegate', description: '' }],
        agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:manager' }],
      },
      skills: {
        delegate: async (ctx) => {
          let outcome: HireOutcome = await managerCaller.hire(
            { card: worker.signedCard },
            String(ctx.params.skill),
            ctx.text,
            { signal: ctx.signal, contextId: ctx.contextId },
          );
          while (outcome.kind === 'input-required') {
            const answer = await ctx.requestInput(outcome.prompt ?? 'More input?');
            outcome = await outcome.reply(answer.text);
          }
          if (outcome.kind !== 'completed') throw new Error(`the worker said ${outcome.kind}`);
          return `manager: ${String(outcome.result)}`;
        },
      },
    });
    await manager.start();
    const asked = await caller.hire({ card: manager.signedCard }, 'delegate', { text: 'hi', skill: 'ask' });
    if (asked.kind !== 'input-required') throw new Error(`not asked: ${asked.kind}`);
    expect(asked.prompt).toBe('What is your name?');
    expect(await asked.reply('Ada')).toMatchObject({ kind: 'completed', result: 'manager: hello, Ada' });
    expect(await caller.hire({ card: manager.signedCard }, 'delegate', { text: 'x', skill: 'fail' })).toMatchObject({
      kind: 'failed',
      error: { message: 'the worker said failed' },
    });
  });
});

describe('paying a priced agent', () => {
  it('pays before sending; a task that fails is paid back, and the refund is checked on the ledger', async () => {
    const transport = network.node('agent:payer');
    await transport.start();
    const paying = new LogosCaller({
      transport,
      payments: new HirePayments({
        rail: new MemoryRail({ ledger, payer: CALLER_ACCOUNT }),
        limits: { perTransaction: 50n, perPeriod: 25n, periodMs: 3_600_000 },
      }),
      log: () => {},
    });
    const card = { card: worker.signedCard };
    const done = await paying.hire(card, 'paid', 'coin');
    expect(done, JSON.stringify(done)).toMatchObject({ kind: 'completed', result: 'paid echo: coin' });
    expect(ledger.balanceOf(CALLER_ACCOUNT)).toBe(990n);
    const failed = await paying.hire(card, 'paid-fail', 'coin');
    expect(failed).toMatchObject({ kind: 'failed', payment: { refund: { check: 'verified' } } });
    await eventually(() => ledger.balanceOf(CALLER_ACCOUNT) === 990n || undefined, 5_000);
    // Spent 20 of the period's 25: a third payment of 10 would go over, and is not made.
    const over = await paying.hire(card, 'paid', 'coin');
    expect(over).toMatchObject({ kind: 'refused', reason: 'spending-limit' });
    expect(ledger.balanceOf(CALLER_ACCOUNT)).toBe(990n);
  });
});
