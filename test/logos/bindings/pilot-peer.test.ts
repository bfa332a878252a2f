/**
 * The pilot binding's modules against an outside agent of that binding (test/support/peer-agents/pilot.ts, stock
 * packages only) over a real Waku network on loopback, on the binding's cluster and shard: its card verifies (with
 * a high-S signature, as OpenSSL may write one) and is pinned, a signed and encrypted request gets its signed reply,
 * a slow task is cancelled, a forged reply and a tampered card are refused, and the agent drops a request signed
 * by a key other than the one first seen for our identity.
 */
import { randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyPilotCard, type PilotCardVerification } from '../../../src/logos/bindings/pilot/card.ts';
import {
  CAPABILITIES,
  DISCOVERY_TOPIC,
  NETWORK,
  decodeReply,
  encodeTaskCancel,
  encodeTaskSend,
  inboxTopic,
  replyTopic,
  type PilotAgent,
  type PilotIdentity,
} from '../../../src/logos/bindings/pilot/wire.ts';
import type { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/eventually.ts';
import { collectDecoded, startPeerBed, stopPeerBeds } from '../../support/peer-agent-process.ts';
import { eciesEncrypt, pilotSign, secp256k1PublicHex } from '../../support/peer-agents/peer-crypto.ts';

afterEach(stopPeerBeds, 30_000);

const identity: PilotIdentity = {
  senderNpk: 'logos-a2a-gateway-test',
  signingKey: secp256k1.utils.randomSecretKey(),
  eciesKey: secp256k1.utils.randomSecretKey(),
};
const now = () => Math.floor(Date.now() / 1000);

async function setUp(args: Record<string, unknown> = {}) {
  const pins = new Map<string, string>();
  const {
    node,
    agent,
    heard: cards,
  } = await startPeerBed(
    'pilot',
    NETWORK.clusterId,
    (node) => {
      const cards: PilotCardVerification[] = [];
      node.subscribe(DISCOVERY_TOPIC, (payload) => {
        const verification = verifyPilotCard(JSON.parse(new TextDecoder().decode(payload)), (npk) => pins.get(npk));
        if (verification.ok && verification.pin) pins.set(verification.pin.npk, verification.pin.signingKey);
        cards.push(verification);
      });
      return cards;
    },
    args,
  );
  return { node, agent, cards, pins };
}

async function verifiedAgent(cards: PilotCardVerification[]): Promise<PilotAgent> {
  const verified = await eventually(() => cards.find((c) => c.ok), 30_000);
  const card = verified.agent!;
  return { encryptionKey: card._logos.enc_key, signingKey: card._logos.signing_key };
}

const repliesTo = (node: WakuTransport, agent: PilotAgent, taskId: string) =>
  collectDecoded(node, replyTopic(taskId), (bytes) => decodeReply(bytes, 64 * 1024, identity, agent, taskId));

describe('pilot, against an outside agent over Waku (cluster 2, shard 7)', () => {
  it('verifies and pins its card, and gets the signed reply to a signed, encrypted tasks/send', async () => {
    const { node, agent: process, cards, pins } = await setUp();
    const agent = await verifiedAgent(cards);
    expect(pins.get(process.ready.npk as string)).toBe(process.ready.signingKey);

    const taskId = randomUUID();
    const replies = repliesTo(node, agent, taskId);
    await node.publish(
      inboxTopic(agent.encryptionKey),
      encodeTaskSend(identity, agent, { taskId, skill: 'agent-ask', input: { prompt: 'What is Logos?' }, now: now() }),
    );
    const reply = await eventually(() => replies.values[0], 30_000);
    expect(reply.body).toEqual({ type: 'task_result', state: 'completed', result: { answer: 'What is Logos?' } });

    const unknown = randomUUID();
    const refused = repliesTo(node, agent, unknown);
    await node.publish(
      inboxTopic(agent.encryptionKey),
      encodeTaskSend(identity, agent, { taskId: unknown, skill: 'wallet-drain', input: {}, now: now() }),
    );
    expect((await eventually(() => refused.values[0], 30_000)).body).toMatchObject({
      state: 'failed',
      error: { code: 'pilot_-32004' },
    });
  }, 120_000);

  it('cancels a slow task: the one reply is canceled, and no completion follows', async () => {
    const { node, agent: process, cards } = await setUp({ slowMs: 4_000 });
    const agent = await verifiedAgent(cards);
    const taskId = randomUUID();
    const replies = repliesTo(node, agent, taskId);
    await node.publish(
      inboxTopic(agent.encryptionKey),
      encodeTaskSend(identity, agent, { taskId, skill: 'slow', input: {}, now: now() }),
    );
    await eventually(() => process.events.find((e) => e.event === 'request' && e.id === taskId), 30_000);
    await node.publish(inboxTopic(agent.encryptionKey), encodeTaskCancel(identity, agent, taskId, now()));
    expect((await eventually(() => replies.values[0], 30_000)).body).toEqual({ type: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    // One reply, no progress before it: what the binding's capabilities say.
    expect(replies.values).toHaveLength(1);
    expect(CAPABILITIES).toMatchObject({ cancel: 'while-running', progress: false });
  }, 120_000);

  it('drops a forged reply on the task’s reply topic, and the agent drops a request from our identity under another key', async () => {
    const { node, agent: process, cards } = await setUp({ slowMs: 2_000 });
    const agent = await verifiedAgent(cards);
    const taskId = randomUUID();
    const replies = repliesTo(node, agent, taskId);
    await node.publish(
      inboxTopic(agent.encryptionKey),
      encodeTaskSend(identity, agent, { taskId, skill: 'slow', input: {}, now: now() }),
    );
    const forged = pilotSign(
      {
        jsonrpc: '2.0',
        id: taskId,
        result: { id: taskId, result: { done: 'forged' }, status: { state: 'completed' } },
      },
      secp256k1.utils.randomSecretKey(),
    );
    await node.publish(
      replyTopic(taskId),
      utf8ToBytes(eciesEncrypt(secp256k1PublicHex(identity.eciesKey), JSON.stringify(forged))),
    );
    const reply = await eventually(() => replies.values[0], 30_000);
    expect(reply.body).toEqual({ type: 'task_result', state: 'completed', result: { done: true } });
    expect(replies.dropped).toContain('bad-signature');

    const impostor: PilotIdentity = { ...identity, signingKey: secp256k1.utils.randomSecretKey() };
    await node.publish(
      inboxTopic(agent.encryptionKey),
      encodeTaskSend(impostor, agent, { taskId: randomUUID(), skill: 'ping', input: {}, now: now() }),
    );
    await eventually(() => process.events.find((e) => e.event === 'dropped'), 30_000);
  }, 120_000);

  it('refuses the card of an agent that changed it after signing', async () => {
    const { cards } = await setUp({ tamperCard: true });
    expect(await eventually(() => cards[0], 30_000)).toMatchObject({ ok: false, reason: 'bad-signature' });
  }, 120_000);
});
