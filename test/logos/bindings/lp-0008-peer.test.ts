/**
 * The lp-0008 binding's modules against an outside agent of that binding (test/support/peer-agents/lp-0008.ts, stock
 * packages only) over a real Waku network on loopback, on the binding's cluster (3) and shard: its card verifies
 * with the key configured for its kid (and not without it, nor when tampered), a request on the task's topic gets
 * its status updates (our own request, heard back on the same topic, is passed by), and a slow task is cancelled.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyLp0008Card } from '../../../src/logos/bindings/lp-0008/card.ts';
import {
  CAPABILITIES,
  NETWORK,
  decodeStatusUpdate,
  discoveryTopic,
  encodeMessageSend,
  encodeTaskCancel,
  taskTopic,
} from '../../../src/logos/bindings/lp-0008/wire.ts';
import type { PeerCardVerification } from '../../../src/logos/bindings/common/peer-card.ts';
import type { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/eventually.ts';
import { collectDecoded, startPeerBed, stopPeerBeds } from '../../support/peer-agent-process.ts';

afterEach(stopPeerBeds, 30_000);

const hex32 = () => randomBytes(16).toString('hex');
const NAMESPACE = 'agents';

async function setUp(args: Record<string, unknown> = {}) {
  const { node, agent, heard } = await startPeerBed(
    'lp-0008',
    NETWORK.clusterId,
    (node) => {
      const heard: unknown[] = [];
      node.subscribe(discoveryTopic(NAMESPACE), (payload) => heard.push(JSON.parse(new TextDecoder().decode(payload))));
      return heard;
    },
    { namespace: NAMESPACE, ...args },
  );
  const keys = { [agent.ready.paymentAccount as string]: agent.ready.xOnlyKey as string };
  const cards = (): PeerCardVerification[] => heard.map((card) => verifyLp0008Card(card, keys));
  return { node, agent, cards, heard };
}

function sendTask(node: WakuTransport, account: string, skill: string, text: string) {
  const task = { agentAccount: account, taskId: hex32(), contextId: hex32() };
  const topic = taskTopic(account, task.taskId);
  const replies = collectDecoded(node, topic, (bytes) => decodeStatusUpdate(bytes, 64 * 1024, task));
  const sent = node.publish(
    topic,
    encodeMessageSend({
      rpcId: hex32(),
      messageId: hex32(),
      taskId: task.taskId,
      contextId: task.contextId,
      skill,
      params: { text },
    }),
  );
  return { task, topic, replies, sent };
}

describe('lp-0008, against an outside agent over Waku (cluster 3, shard 6)', () => {
  it('verifies its card with the configured key, and maps the status updates of a task', async () => {
    const { node, agent, cards, heard } = await setUp();
    const account = agent.ready.account as string;
    const verified = await eventually(() => cards().find((c) => c.ok), 30_000);
    expect(verified.ok && verified.card.agentInterfaces[0]!.address).toBe(account);
    // Without the key published apart, the card cannot be verified.
    expect(verifyLp0008Card(heard[0], {})).toMatchObject({ ok: false, reason: 'unknown-key' });

    const { replies, sent } = sendTask(node, account, 'text.echo', 'hello lp-0008');
    await sent;
    const reply = await eventually(() => replies.values[0], 30_000);
    expect(reply.body).toEqual({ type: 'task_result', state: 'completed', result: 'hello lp-0008' });

    const unknown = sendTask(node, account, 'text.nope', '');
    await unknown.sent;
    expect((await eventually(() => unknown.replies.values[0], 30_000)).body).toMatchObject({
      type: 'task_result',
      state: 'rejected',
    });
  }, 120_000);

  it('reports a slow task working, then cancels it', async () => {
    const { node, agent, cards } = await setUp({ slowMs: 30_000 });
    const account = agent.ready.account as string;
    await eventually(() => cards().find((c) => c.ok), 30_000);
    const { task, topic, replies, sent } = sendTask(node, account, 'text.slow', 'slowly');
    await sent;
    await eventually(
      () => replies.values.filter((r) => r.body.type === 'task_status').length >= 2 || undefined,
      30_000,
    );
    await node.publish(topic, encodeTaskCancel(hex32(), task.taskId));
    const end = await eventually(() => replies.values.find((r) => r.body.type !== 'task_status'), 30_000);
    expect(end.body).toEqual({ type: 'cancelled', message: 'cancelled on request' });
    expect(replies.values[0]!.body).toEqual({ type: 'task_status', state: 'working', message: 'started' });
    expect(CAPABILITIES).toMatchObject({ cancel: 'while-running', progress: true });
  }, 120_000);

  it('refuses the card of an agent that changed it after signing', async () => {
    const { cards, heard } = await setUp({ tamperCard: true });
    await eventually(() => heard[0], 30_000);
    expect(cards()[0]).toMatchObject({ ok: false, reason: 'bad-signature' });
  }, 120_000);
});
