/**
 * A paid agent on this project's runtime takes a shielded payment into its private account on the devnet
 * (docs/payments.md §10): the gateway side of the binding is driven by hand, as a payer that sends with the official
 * wallet would. Accepted when a new note for the agent's keys holds the price; refused for another amount, for a
 * transaction that already paid for a task (also after a restart: the agent's payment store is on disk), and for a
 * note to someone else's keys. A cancelled task is refunded publicly, to the account that paid.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../../src/devnet/devnet.ts';
import { agentPayments, lezRail } from '../../../src/gateway/payment-wiring.ts';
import { derivePrivateKeys } from '../../../src/lez/private-keys.ts';
import { paymentKeys, privatePayee, receiveKeys, type PrivateReceiveKeys } from '../../../src/lez/private/receive.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';
import { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import {
  decodeAgentEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelope,
  type GatewayEnvelopeInput,
} from '../../../src/logos/envelope.ts';
import { newStatusKey, statusKeyBytes } from '../../../src/logos/status-key.ts';
import { MemoryNetwork, type MemoryTransport } from '../../../src/logos/transports/memory.ts';
import { SqliteAgentPaymentStore } from '../../../src/store/sqlite/agent-payment-store.ts';
import { AGENT, WALLET } from '../../support/devnet-wallet.ts';
import { eventually } from '../../support/eventually.ts';
import { shieldedTransfer } from '../../support/shielded-transfer.ts';

const PRICE = 10n;
const keysFrom = (fill: number): PrivateReceiveKeys => {
  const node = derivePrivateKeys(new Uint8Array(64).fill(fill), [0]);
  return receiveKeys(node.nullifierSecretKey, node.viewingSecretKey);
};
const AGENT_KEYS = keysFrom(1);
const SOMEONE_ELSE = keysFrom(2);
const PAYEE = privatePayee(paymentKeys(AGENT_KEYS));

let devnet: Devnet;
let network: MemoryNetwork;
let gateway: MemoryTransport;
let dir: string;

function shop(store: SqliteAgentPaymentStore, advertised = paymentKeys(AGENT_KEYS)): LogosAgent {
  const receiving = { keys: AGENT_KEYS, sequencer: new SequencerClient({ url: devnet.url }) };
  return new LogosAgent({
    transport: network.node('agent:shop'),
    announce: false,
    payments: agentPayments(lezRail(devnet.url, AGENT, 'prehash-v0.3'), store, receiving),
    card: {
      id: 'shop',
      name: 'Shop',
      description: 'Takes private payments.',
      version: '1',
      'x-lez-identity': { account_id: AGENT.account, private: advertised },
      'x-lez-price': `${PRICE}`,
      skills: [
        { id: 'quick', name: 'Quick', description: '' },
        { id: 'slow', name: 'Slow', description: '' },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:shop' }],
    },
    skills: {
      quick: (ctx) => `done: ${ctx.text}`,
      slow: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    },
  });
}

/** Pays `amount` from WALLET into a new private account of `keys`, and waits for the block. */
async function payPrivately(keys: PrivateReceiveKeys, amount: bigint): Promise<string> {
  const shielded = shieldedTransfer({
    senderKey: WALLET.secretKey,
    sender: devnet.account(WALLET.account),
    npk: keys.nullifierPublicKey,
    vpk: keys.viewingPublicKey,
    amount,
    transferProgram: devnet.programIds.authenticated_transfer,
  });
  const sent = await new SequencerClient({ url: devnet.url }).sendTransaction(base64.encode(shielded.bytes));
  expect(sent).toEqual({ kind: 'result', value: shielded.hash });
  devnet.produceBlock();
  return shielded.hash;
}

let n = 0;
/** Sends a paid task_request naming `txHash` as a private payment, and collects the replies. */
async function request(
  txHash: string,
  skill = 'quick',
): Promise<{ taskId: string; statusKey: string; replies: AgentEnvelope[] }> {
  const taskId = `private-${++n}`;
  const statusKey = newStatusKey();
  const replies: AgentEnvelope[] = [];
  gateway.subscribe(
    taskStatusTopic(taskId),
    (payload) => {
      const decoded = decodeAgentEnvelope(payload);
      if (decoded.ok) replies.push(decoded.envelope);
    },
    { key: statusKeyBytes(statusKey) },
  );
  await gateway.send(
    'agent:shop',
    encodeEnvelope({
      v: 1,
      id: `${taskId}-request`,
      from: 'gateway',
      to: 'agent:shop',
      status_key: statusKey,
      type: 'task_request',
      task_id: taskId,
      context_id: 'c',
      skill,
      params: { text: 'hello' },
      lez_price: `${PRICE}`,
      payment: { rail: 'lez', tx_hash: txHash, from: WALLET.account, to: PAYEE, amount: `${PRICE}` },
    } as GatewayEnvelopeInput),
  );
  return { taskId, statusKey, replies };
}

const finalReply = (replies: AgentEnvelope[]) =>
  eventually(() => replies.find((reply) => reply.type === 'task_result' || reply.type === 'cancelled'));

beforeAll(async () => {
  // Blocks keep coming: a refund waits for its own.
  devnet = await startDevnet({ blockIntervalMs: 200 });
  network = new MemoryNetwork();
  gateway = network.node('gateway');
  await gateway.start();
  dir = mkdtempSync(join(tmpdir(), 'private-pay-'));
});

afterAll(async () => {
  await devnet.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a paid agent receiving privately', () => {
  it('does not start when its card advertises other private keys than those it reads notes with', () => {
    const store = new SqliteAgentPaymentStore(join(dir, 'mismatch.db'));
    try {
      expect(() => shop(store, paymentKeys(SOMEONE_ELSE))).toThrow(/keys in x-lez-identity.private/);
    } finally {
      store.close();
    }
  });

  it('works for a shielded payment of its price, refuses what does not pay it, and one payment twice', async () => {
    const store = new SqliteAgentPaymentStore(join(dir, 'payments.db'));
    let agent = shop(store);
    await agent.start();
    const paid = await payPrivately(AGENT_KEYS, PRICE);
    try {
      const accepted = await request(paid);
      expect(await finalReply(accepted.replies)).toMatchObject({
        type: 'task_result',
        state: 'completed',
        result: 'done: hello',
      });

      const short = await request(await payPrivately(AGENT_KEYS, PRICE - 1n));
      expect(await finalReply(short.replies)).toMatchObject({
        state: 'rejected',
        error: { code: 'payment_invalid', message: expect.stringMatching(/pays 9 privately to this agent, not 10/) },
      });

      const elsewhere = await request(await payPrivately(SOMEONE_ELSE, PRICE));
      expect(await finalReply(elsewhere.replies)).toMatchObject({
        state: 'rejected',
        error: { code: 'payment_invalid', message: expect.stringMatching(/no note for this agent's private keys/) },
      });

      const reused = await request(paid);
      expect(await finalReply(reused.replies)).toMatchObject({
        state: 'rejected',
        error: { code: 'payment_invalid', message: expect.stringMatching(/already paid for another task/) },
      });
    } finally {
      await agent.stop();
    }

    // After a restart, the payment store still knows the transaction.
    agent = shop(store);
    await agent.start();
    try {
      const replayed = await request(paid);
      expect(await finalReply(replayed.replies)).toMatchObject({
        state: 'rejected',
        error: { code: 'payment_invalid', message: expect.stringMatching(/already paid for another task/) },
      });
    } finally {
      await agent.stop();
      store.close();
    }
  });

  it('refunds a cancelled task publicly, from its public account to the account that paid', async () => {
    const store = new SqliteAgentPaymentStore(join(dir, 'refunds.db'));
    const agent = shop(store);
    await agent.start();
    try {
      const paid = await payPrivately(AGENT_KEYS, PRICE);
      const task = await request(paid, 'slow');
      await eventually(() => task.replies.find((reply) => reply.type === 'task_status'));
      const agentBefore = devnet.balance(AGENT.account);
      await gateway.send(
        'agent:shop',
        encodeEnvelope({
          v: 1,
          id: `${task.taskId}-cancel`,
          from: 'gateway',
          to: 'agent:shop',
          type: 'cancel',
          task_id: task.taskId,
          status_key: task.statusKey,
        } as GatewayEnvelopeInput),
      );
      const cancelled = await finalReply(task.replies);
      expect(cancelled).toMatchObject({
        type: 'cancelled',
        refund: { rail: 'lez', from: AGENT.account, to: WALLET.account, amount: `${PRICE}` },
      });
      expect(devnet.balance(AGENT.account)).toBe(agentBefore - PRICE);
      expect(store.get(paid)?.status).toBe('refunded');
    } finally {
      await agent.stop();
      store.close();
    }
  });
});
