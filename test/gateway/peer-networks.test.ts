/**
 * One gateway on several Waku networks at once: its own relay node on cluster 2, which the cluster-2 peer networks
 * (logos-agent, pilot) share, and a node of its own for lp-0008's cluster 3. An outside agent on each cluster is
 * reached through the node the gateway gives its network.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import * as logosAgent from '../../src/logos/bindings/logos-agent/wire.ts';
import * as lp0008 from '../../src/logos/bindings/lp-0008/wire.ts';
import { stopChild } from '../support/child-process.ts';
import { eventually } from '../support/eventually.ts';
import { collectDecoded, startPeerAgent, type PeerAgentProcess } from '../support/peer-agent-process.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

const state: { dir?: string; gateway?: Gateway; agents: PeerAgentProcess[] } = { agents: [] };
afterEach(async () => {
  for (const agent of state.agents.splice(0)) await stopChild(agent.child);
  await state.gateway?.stop();
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
}, 30_000);

describe('a gateway on clusters 2 and 3', () => {
  it('runs one node per cluster and reaches an agent on each', async () => {
    state.dir = mkdtempSync(join(tmpdir(), 'logos-a2a-networks-'));
    const gateway = (state.gateway = await startWakuGateway(state.dir, {
      overrides: { networks: [{ name: 'logos-agent' }, { name: 'pilot' }, { name: 'lp-0008', entryNodes: [] }] },
    }));
    const nodes = gateway.peerNetworks.nodes;
    expect(nodes.map((node) => [node.clusterId, node.networks, node.own])).toEqual([
      [2, ['logos-agent', 'pilot'], false],
      [3, ['lp-0008'], true],
    ]);
    expect(gateway.peerNetworks.nodeOf('logos-agent')!.transport).toBe(gateway.network.gateway);
    const cluster2 = gateway.peerNetworks.nodeOf('logos-agent')!;
    const cluster3 = gateway.peerNetworks.nodeOf('lp-0008')!;

    // A request published before the gateway's node knows the agent relays its shard reaches no one; an agent's
    // card heard on each node says it does (gossipsub sends a peer's subscriptions before its messages).
    const heard = (transport: typeof cluster2.transport, topic: string) => {
      const cards: Uint8Array[] = [];
      transport.subscribe(topic, (payload) => cards.push(payload));
      return cards;
    };
    const cards2 = heard(cluster2.transport, logosAgent.DISCOVERY_TOPIC);
    const cards3 = heard(cluster3.transport, lp0008.discoveryTopic('agents'));
    const [onTwo, onThree] = await Promise.all([
      startPeerAgent('logos-agent', { peer: cluster2.joinAddresses()[0], clusterId: 2 }),
      startPeerAgent('lp-0008', { peer: cluster3.joinAddresses()[0], clusterId: 3, namespace: 'agents' }),
    ]);
    state.agents.push(onTwo, onThree);
    await eventually(() => cards2[0], 30_000);
    await eventually(() => cards3[0], 30_000);

    // Cluster 2, through the gateway's own node.
    const account2 = onTwo.ready.account as string;
    const taskId = randomUUID();
    const updates = collectDecoded(cluster2.transport, logosAgent.updatesTopic(account2), (bytes) =>
      logosAgent.decodeTaskUpdate(bytes, 64 * 1024, (id) => id === taskId),
    );
    await cluster2.transport.publish(
      logosAgent.inboxTopic(account2),
      logosAgent.encodeTaskRequest({ taskId, skill: 'demo.echo', params: { text: 'on cluster 2' } }),
    );
    const done2 = await eventually(() => updates.values.find((r) => r.body.type === 'task_result'), 30_000);
    expect(done2.body).toMatchObject({ state: 'completed', result: { echo: 'on cluster 2' } });

    // Cluster 3, through the node started for it.
    const account3 = onThree.ready.account as string;
    const task = {
      agentAccount: account3,
      taskId: randomBytes(16).toString('hex'),
      contextId: randomBytes(16).toString('hex'),
    };
    const topic = lp0008.taskTopic(account3, task.taskId);
    const replies = collectDecoded(cluster3.transport, topic, (bytes) =>
      lp0008.decodeStatusUpdate(bytes, 64 * 1024, task),
    );
    await cluster3.transport.publish(
      topic,
      lp0008.encodeMessageSend({
        rpcId: 'r',
        messageId: 'm',
        taskId: task.taskId,
        contextId: task.contextId,
        skill: 'text.echo',
        params: { text: 'on cluster 3' },
      }),
    );
    const done3 = await eventually(() => replies.values[0], 30_000);
    expect(done3.body).toEqual({ type: 'task_result', state: 'completed', result: 'on cluster 3' });
  }, 120_000);
});
