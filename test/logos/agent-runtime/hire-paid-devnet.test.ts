/**
 * A runtime agent hires a priced agent and pays it from a wallet of its own, on the devnet (caller.ts with
 * HirePayments over the LEZ rail): paid before the request leaves, the task completed; a task the agent fails paid
 * back, the refund checked on chain; a payment the spending limits do not allow never made. What moved is read from
 * the chain, block by block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../../src/devnet/devnet.ts';
import { agentPayments, lezRail } from '../../../src/gateway/payment-wiring.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';
import { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { HirePayments, LogosCaller } from '../../../src/logos/agent-runtime/caller.ts';
import { MemoryNetwork } from '../../../src/logos/transports/memory.ts';
import { transfersBetween } from '../../support/chain-transfers.ts';
import { AGENT, WALLET } from '../../support/devnet-wallet.ts';

let devnet: Devnet;
let shop: LogosAgent;
let caller: LogosCaller;

beforeAll(async () => {
  devnet = await startDevnet({ blockIntervalMs: 200 });
  const network = new MemoryNetwork();
  shop = new LogosAgent({
    transport: network.node('agent:shop'),
    announce: false,
    // Signed with the key of the account it is paid to: a devnet genesis account, one that can receive there.
    cardKey: AGENT.secretKey,
    payments: agentPayments(lezRail(devnet.url, AGENT, 'prehash-v0.3')),
    card: {
      id: 'shop',
      name: 'Shop',
      description: 'Charges per task.',
      version: '1',
      skills: [
        { id: 'quick', name: 'Quick', description: '', 'x-lez-price': '5' },
        { id: 'broken', name: 'Broken', description: '', 'x-lez-price': '5' },
        { id: 'dear', name: 'Dear', description: '', 'x-lez-price': '500' },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:shop' }],
    },
    skills: {
      quick: (ctx) => `done: ${ctx.text}`,
      broken: () => {
        throw new Error('out of stock');
      },
      dear: () => 'never',
    },
  });
  await shop.start();
  const transport = network.node('agent:buyer');
  await transport.start();
  caller = new LogosCaller({
    transport,
    payments: new HirePayments({
      rail: lezRail(devnet.url, WALLET, 'prehash-v0.3'),
      limits: { perTransaction: 100n, perPeriod: 1_000n, periodMs: 3_600_000 },
    }),
    log: () => {},
  });
}, 60_000);

afterAll(async () => {
  await shop?.stop();
  await devnet?.stop();
});

describe('a paid hire on the devnet', () => {
  it('pays, completes; pays back a failed task and checks the refund; makes no payment above the limits', async () => {
    const card = { card: shop.signedCard };
    const done = await caller.hire(card, 'quick', 'coffee');
    expect(done).toMatchObject({
      kind: 'completed',
      result: 'done: coffee',
      payment: { paid: { rail: 'lez', from: WALLET.account, to: AGENT.account, amount: '5' } },
    });

    const failed = await caller.hire(card, 'broken', 'tea');
    expect(failed).toMatchObject({
      kind: 'failed',
      error: { code: 'skill_failed', message: 'out of stock' },
      payment: { refund: { check: 'verified', reference: { from: AGENT.account, to: WALLET.account, amount: '5' } } },
    });

    const dear = await caller.hire(card, 'dear', 'caviar');
    expect(dear).toMatchObject({ kind: 'refused', reason: 'spending-limit' });
    expect((dear as { message: string }).message).toMatch(/above the per-transaction limit of 100/);

    const transfers = await transfersBetween(
      new SequencerClient({ url: devnet.url, timeoutMs: 5_000 }),
      WALLET.account,
      AGENT.account,
    );
    expect(transfers.map((t) => [t.from === WALLET.account ? 'paid' : 'refunded', t.amount])).toEqual([
      ['paid', 5n],
      ['paid', 5n],
      ['refunded', 5n],
    ]);
  }, 120_000);
});
