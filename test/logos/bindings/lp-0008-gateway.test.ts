/**
 * Outside agents of the lp-0008 binding (test/support/peer-agents/lp-0008.ts, stock packages only) on their own
 * network, cluster 3 shard 6, reached through the agents' node as the network's bootstrap peer, served through one
 * gateway and called with the official A2A clients, v1.0 and v0.3: the card verified with the key configured for
 * its kid (`networks[].cardKeys`), served under a stable id naming its binding and network; send, stream, get,
 * cancel while running, a continuation answering input-required; a tampered card refused, and a card whose key is
 * not configured never served; after a restart, the stored card verified again with the keys configured then.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { peerAgentId } from '../../../src/logos/bindings/common/peer-card.ts';
import { discoveryTopic, NETWORK } from '../../../src/logos/bindings/lp-0008/wire.ts';
import type { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { stopChild } from '../../support/child-process.ts';
import { clientFor, collect, eventually, rpc, textMessage } from '../../support/gateway.ts';
import { startGatewayNode, startPeerAgent, type PeerAgentProcess } from '../../support/peer-agent-process.ts';
import { verifiedMark } from '../../support/peer-verified.ts';
import { v03Generation } from '../../support/sdk-generations.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

const NAMESPACE = 'agents';
let dir: string;
let hub: WakuTransport;
let gateway: Gateway;
const agents: PeerAgentProcess[] = [];
let agent: PeerAgentProcess;
let tampered: PeerAgentProcess;
let keyless: PeerAgentProcess;
let agentUrl: string;

const skill = (name: string) => ({ metadata: { skill: name } });
const idOf = (process: PeerAgentProcess, name = 'logos-text-agent') =>
  peerAgentId(name, process.ready.account as string);
const keyOf = (process: PeerAgentProcess) => ({
  [process.ready.paymentAccount as string]: process.ready.xOnlyKey as string,
});

const logs: string[] = [];
/** A gateway on the agents' network, verifying cards with `cardKeys`. */
const startGateway = (cardKeys: Record<string, string>) =>
  startWakuGateway(dir, {
    overrides: {
      networks: [
        {
          name: 'lp-0008',
          // Loopback only: the agents' node, not the logos.dev fleet.
          entryNodes: [],
          bootstrap: hub.multiaddrs(),
          discoveryTopic: discoveryTopic(NAMESPACE),
          cardKeys,
        },
      ],
    },
    log: (message) => logs.push(message),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-lp-0008-'));
  // The agents' node, on the binding's shard: the network's bootstrap peer.
  hub = await startGatewayNode(NETWORK.clusterId);
  hub.subscribe(discoveryTopic(NAMESPACE), () => undefined);
  const start = async (args: Record<string, unknown> = {}) => {
    const started = await startPeerAgent('lp-0008', {
      peer: hub.multiaddrs()[0],
      clusterId: NETWORK.clusterId,
      namespace: NAMESPACE,
      pricePerTask: 0,
      slowMs: 4_000,
      ...args,
    });
    agents.push(started);
    return started;
  };
  agent = await start();
  tampered = await start({ tamperCard: true });
  keyless = await start();
  gateway = await startGateway({ ...keyOf(agent), ...keyOf(tampered) });
  await eventually(() => gateway.directory.get(idOf(agent)), 60_000).catch((error: unknown) => {
    throw new Error(`not listed (${String(error)}); drops ${JSON.stringify(gateway.peerDiscovery.counters)}`);
  });
  agentUrl = `${gateway.url}/agents/${idOf(agent)}`;
}, 120_000);

afterAll(async () => {
  for (const started of agents) await stopChild(started.child);
  await gateway?.stop();
  await hub?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('an lp-0008 agent behind the gateway', () => {
  it('is served under an id from its name and account, on its own node of cluster 3, naming binding and network', async () => {
    const card = await (await fetch(`${agentUrl}/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('logos-text-agent');
    const params = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params.logosInterfaces).toEqual([
      { type: 'logos-messaging', version: 'lp-0008', address: agent.ready.account, network: 'lp-0008' },
    ]);
    const node = gateway.peerNetworks.nodeOf('lp-0008')!;
    expect(node).toMatchObject({ clusterId: 3, own: true });
  });

  it('says, in /agents and its served card, that its card was verified, by BIP-340 JWS', async () => {
    const mark = await verifiedMark(gateway.url, idOf(agent));
    expect(mark.listed).toEqual({ verified: true, cardScheme: 'BIP-340 JWS' });
    expect(mark.signature).toMatchObject({
      binding: 'lp-0008',
      scheme: 'BIP-340 JWS',
      signingKey: agent.ready.xOnlyKey,
    });
  });

  it('refuses a tampered card and one whose key is not configured, counting each', async () => {
    await eventually(
      () =>
        gateway.peerDiscovery.counters.badSignature > 0 && gateway.peerDiscovery.counters.unverified > 0
          ? true
          : undefined,
      30_000,
    );
    expect(gateway.directory.get(idOf(tampered, 'logos-text-agent2'))).toBeUndefined();
    expect(gateway.directory.get(idOf(keyless))).toBeUndefined();
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/logos_a2a_discovery_drops_total\{reason="badSignature"\} [1-9]/);
    expect(metrics).toMatch(/logos_a2a_discovery_drops_total\{reason="unverified"\} [1-9]/);
  });

  it('v1.0: SendMessage completes with the text the agent answers, GetTask reads it back', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('hello lp-0008'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'text', value: 'hello lp-0008' } });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.artifacts).toEqual(task.artifacts);
  }, 30_000);

  it('v1.0: SendStreamingMessage streams working, then the result', async () => {
    const client = await clientFor(agentUrl);
    const events = await collect(client.sendMessageStream(textMessage('slowly', skill('text.slow'))));
    const states = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : [],
    );
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 30_000);

  it('v1.0: CancelTask while the agent works: the agent confirms', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(
      textMessage('never mind', { ...skill('text.slow'), configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 15_000);
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify(cancelled.status?.message ?? {})).toContain('cancelled on request');
  }, 30_000);

  it('v1.0: input-required, answered on the same task, completes it', async () => {
    const client = await clientFor(agentUrl);
    const asked = (await client.sendMessage(textMessage('hi', skill('text.ask')))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(JSON.stringify(asked.status?.message?.parts)).toContain('what is your name?');
    const answered = (await client.sendMessage(
      textMessage('Ada', { taskId: asked.id, contextId: asked.contextId }),
    )) as Task;
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answered.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'text', value: 'hello, Ada' } });
  }, 30_000);

  it('v0.3: message/send, message/stream, tasks/get and tasks/cancel', async () => {
    const session = await v03Generation.connect(`${agentUrl}/`, 'JSONRPC');
    const sent = await session.send('hello from v0.3');
    expect(sent.kind === 'task' && sent.task.state).toBe('completed');
    if (sent.kind !== 'task') return;
    expect((await session.getTask(sent.task.id)).state).toBe('completed');

    const events = await collect(session.stream('streamed'));
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });

    // The v0.3 session sends text only: the slow skill is named in the message's metadata, by hand.
    const slow = await rpc(
      agentUrl,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: `v03-slow-${Date.now()}`,
          role: 'user',
          parts: [{ kind: 'text', text: 'never mind' }],
          metadata: { skill: 'text.slow' },
        },
        configuration: { blocking: false },
      },
      {},
    );
    const taskId = (slow.body as { result: { id: string } }).result.id;
    await eventually(async () => ((await session.getTask(taskId)).state === 'working' ? true : undefined), 15_000);
    expect((await session.cancel(taskId)).state).toBe('canceled');
  }, 60_000);

  it('after a restart, verifies the stored card again with the keys configured then: served verified with its key, left out without it', async () => {
    for (const started of agents) await stopChild(started.child);
    await gateway.stop();
    gateway = await startGateway(keyOf(agent));
    expect(await verifiedMark(gateway.url, idOf(agent))).toMatchObject({
      listed: { verified: true, cardScheme: 'BIP-340 JWS' },
      signature: { scheme: 'BIP-340 JWS', signingKey: agent.ready.xOnlyKey },
    });

    await gateway.stop();
    logs.length = 0;
    gateway = await startGateway({});
    expect(gateway.directory.get(idOf(agent))).toBeUndefined();
    expect(logs.join('\n')).toMatch(/lp-0008 agent on "lp-0008" left out.*unverified.*unknown-key/);
  }, 60_000);
});
