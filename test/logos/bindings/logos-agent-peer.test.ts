/**
 * The logos-agent binding's modules against an outside agent of that binding (test/support/peer-agents/logos-agent.ts,
 * stock packages only) over a real Waku network on loopback, on the binding's cluster and shard: the card heard on
 * the discovery topic verifies (and a tampered one does not), a request gets its updates, a cancel counts only in
 * its request's batch.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyLogosAgentCard } from '../../../src/logos/bindings/logos-agent/card.ts';
import {
  CAPABILITIES,
  DISCOVERY_TOPIC,
  NETWORK,
  decodeTaskUpdate,
  encodeTaskCancel,
  encodeTaskRequest,
  inboxTopic,
  updatesTopic,
} from '../../../src/logos/bindings/logos-agent/wire.ts';
import type { PeerCardVerification } from '../../../src/logos/bindings/common/peer-card.ts';
import type { PeerReply } from '../../../src/logos/bindings/common/peer-reply.ts';
import { eventually } from '../../support/eventually.ts';
import {
  collectDecoded,
  drainBatch,
  heardInInbox,
  holdBatch,
  startPeerBed,
  stopPeerBeds,
} from '../../support/peer-agent-process.ts';

afterEach(stopPeerBeds, 30_000);

async function setUp(args: Record<string, unknown> = {}) {
  const {
    node,
    agent,
    heard: cards,
  } = await startPeerBed(
    'logos-agent',
    NETWORK.clusterId,
    (node) => {
      const cards: PeerCardVerification[] = [];
      node.subscribe(DISCOVERY_TOPIC, (payload) =>
        cards.push(verifyLogosAgentCard(JSON.parse(new TextDecoder().decode(payload)))),
      );
      return cards;
    },
    args,
  );
  return { node, agent, cards };
}

describe('logos-agent, against an outside agent over Waku (cluster 2, shard 4)', () => {
  it('verifies the card it announces, sends a request, and maps working then completed', async () => {
    const { node, agent, cards } = await setUp();
    const account = agent.ready.account as string;
    const card = await eventually(() => cards.find((c) => c.ok), 30_000);
    expect(card.ok && card.card.agentInterfaces[0]!.address).toBe(inboxTopic(account));

    const taskId = randomUUID();
    const replies = collectDecoded(node, updatesTopic(account), (bytes) =>
      decodeTaskUpdate(bytes, 64 * 1024, (id) => id === taskId),
    );
    await node.publish(
      inboxTopic(account),
      encodeTaskRequest({ taskId, skill: 'demo.echo', params: { text: 'hello' } }),
    );
    await eventually(() => replies.values.find((r) => r.body.type === 'task_result'), 30_000);
    expect(replies.values.map((r: PeerReply) => r.body)).toEqual([
      { type: 'task_status', state: 'working' },
      { type: 'task_result', state: 'completed', result: { echo: 'hello' } },
    ]);

    // An unknown skill fails with the agent's words.
    const failing = randomUUID();
    const failed = collectDecoded(node, updatesTopic(account), (bytes) =>
      decodeTaskUpdate(bytes, 64 * 1024, (id) => id === failing),
    );
    await node.publish(inboxTopic(account), encodeTaskRequest({ taskId: failing, skill: 'nope', params: {} }));
    const failure = await eventually(() => failed.values.find((r) => r.body.type === 'task_result'), 30_000);
    expect(failure.body).toEqual({
      type: 'task_result',
      state: 'failed',
      error: { code: 'agent_error', message: 'unknown skill: nope' },
    });
  }, 120_000);

  it('cancels a slow task when the cancel follows in the same batch, and not later', async () => {
    const { node, agent, cards } = await setUp({ slowMs: 1_500 });
    const account = agent.ready.account as string;
    await eventually(() => cards.find((c) => c.ok), 30_000);

    // The request and its cancel in one batch: the test holds the agent's inbox until both are there.
    const early = randomUUID();
    const earlyReplies = collectDecoded(node, updatesTopic(account), (b) =>
      decodeTaskUpdate(b, 64 * 1024, (id) => id === early),
    );
    await holdBatch(agent);
    await node.publish(inboxTopic(account), encodeTaskRequest({ taskId: early, skill: 'demo.slow', params: {} }));
    await node.publish(inboxTopic(account), encodeTaskCancel(early));
    await heardInInbox(agent, 'task_request', early);
    await heardInInbox(agent, 'task_cancel', early);
    expect(await drainBatch(agent)).toEqual({ requests: [early], cancels: [early] });
    await eventually(() => earlyReplies.values.find((r) => r.body.type === 'cancelled'), 30_000);
    expect(earlyReplies.values.map((r) => r.body.type)).toEqual(['cancelled']);

    // The cancel after its request's batch was drained: the agent works on and completes the task.
    const late = randomUUID();
    const lateReplies = collectDecoded(node, updatesTopic(account), (b) =>
      decodeTaskUpdate(b, 64 * 1024, (id) => id === late),
    );
    await holdBatch(agent);
    await node.publish(inboxTopic(account), encodeTaskRequest({ taskId: late, skill: 'demo.slow', params: {} }));
    await heardInInbox(agent, 'task_request', late);
    expect(await drainBatch(agent)).toEqual({ requests: [late], cancels: [] });
    await node.publish(inboxTopic(account), encodeTaskCancel(late));
    await heardInInbox(agent, 'task_cancel', late);
    const end = await eventually(() => lateReplies.values.find((r) => r.body.type !== 'task_status'), 30_000);
    expect(end.body).toEqual({ type: 'task_result', state: 'completed', result: { done: true } });
    // What the binding's capabilities say of it.
    expect(CAPABILITIES.cancel).toBe('same-batch');
    expect(agent.events.filter((e) => e.event === 'request')).toHaveLength(4);
  }, 120_000);

  it('refuses the card of an agent that changed it after signing', async () => {
    const { cards } = await setUp({ tamperCard: true });
    const refused = await eventually(() => cards[0], 30_000);
    expect(refused).toMatchObject({ ok: false, reason: 'bad-signature' });
  }, 120_000);
});
