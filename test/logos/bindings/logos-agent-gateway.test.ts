/**
 * An outside agent of the logos-agent binding (test/support/peer-agents/logos-agent.ts, stock packages only) on its
 * own network, cluster 2 shard 4, served through one gateway configured with that network and called with the
 * official A2A clients, v1.0 and v0.3: its card found on the binding's discovery topic, verified and served under a
 * stable id naming its binding and network; send, stream, get; a cancel that reaches the agent in its request's batch
 * (the only cancel the binding has); a tampered card refused and counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { peerAgentId } from '../../../src/logos/bindings/common/peer-card.ts';
import { inboxTopic, NETWORK } from '../../../src/logos/bindings/logos-agent/wire.ts';
import { stopChild } from '../../support/child-process.ts';
import { clientFor, collect, eventually, rpc, textMessage } from '../../support/gateway.ts';
import {
  drainBatch,
  heardInInbox,
  holdBatch,
  startPeerAgent,
  type PeerAgentProcess,
} from '../../support/peer-agent-process.ts';
import { verifiedMark } from '../../support/peer-verified.ts';
import { v03Generation } from '../../support/sdk-generations.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

let dir: string;
let gateway: Gateway;
let agent: PeerAgentProcess;
let tampered: PeerAgentProcess;
let agentUrl: string;
let account: string;

const skill = (name: string) => ({ metadata: { skill: name } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-logos-agent-'));
  gateway = await startWakuGateway(dir, {
    overrides: {
      networks: [{ name: 'logos-agent', listen: ['/ip4/127.0.0.1/tcp/0'] }],
      // Longer than a held batch takes to drain: the agent's `canceled` comes only then.
      cancelTimeoutMs: 15_000,
    },
  });
  const peer = gateway.peerNetworks.nodeOf('logos-agent')!.joinAddresses()[0]!;
  // A free echo (the first skill, so a text-only message calls it) and a slow skill. A cancel lands in its request's
  // batch because the tests hold the agent's batch until both are there (holdBatch), not because of the batch's length.
  agent = await startPeerAgent('logos-agent', {
    peer,
    clusterId: NETWORK.clusterId,
    echoPriceLez: '0',
    slowMs: 4_000,
  });
  tampered = await startPeerAgent('logos-agent', { peer, clusterId: NETWORK.clusterId, tamperCard: true });
  account = agent.ready.account as string;
  const id = peerAgentId('greeter-agent', account);
  await eventually(() => gateway.directory.get(id), 60_000).catch((error: unknown) => {
    throw new Error(`not listed (${String(error)}); drops ${JSON.stringify(gateway.peerDiscovery.counters)}`);
  });
  agentUrl = `${gateway.url}/agents/${id}`;
}, 120_000);

afterAll(async () => {
  await stopChild(agent?.child);
  await stopChild(tampered?.child);
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('a logos-agent agent behind the gateway', () => {
  it('is served under an id from its name and account, its card naming its binding and network', async () => {
    const card = await (await fetch(`${agentUrl}/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('greeter-agent');
    expect(card.capabilities.streaming).toBe(true);
    const params = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params).toMatchObject({
      logosInterfaces: [
        { type: 'logos-messaging', version: 'logos-agent', address: inboxTopic(account), network: 'logos-agent' },
      ],
      payTo: account,
    });
    // The id does not depend on the network: it is the card's name and account.
    expect(card.url).toContain(`/agents/${peerAgentId('greeter-agent', account)}`);
  });

  it('says, in /agents and its served card, that its card was verified, by Ed25519', async () => {
    const mark = await verifiedMark(gateway.url, peerAgentId('greeter-agent', account));
    expect(mark.listed).toEqual({ verified: true, cardScheme: 'Ed25519' });
    expect(mark.signature).toMatchObject({
      binding: 'logos-agent',
      scheme: 'Ed25519',
      signingKey: agent.ready.signingPubkey,
    });
  });

  it('refuses the tampered card, counting it as a bad signature', async () => {
    await eventually(() => (gateway.peerDiscovery.counters.badSignature > 0 ? true : undefined), 30_000);
    const tamperedId = peerAgentId('greeter-agent', tampered.ready.account as string);
    expect(gateway.directory.get(tamperedId)).toBeUndefined();
    expect((await fetch(`${gateway.url}/agents/${tamperedId}/.well-known/agent-card.json`)).status).toBe(404);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/logos_a2a_discovery_drops_total\{reason="badSignature"\} [1-9]/);
  });

  it('v1.0: SendMessage completes with the skill’s output, GetTask reads it back', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('hello logos-agent'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({
      content: { $case: 'data', value: { echo: 'hello logos-agent' } },
    });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.artifacts).toEqual(task.artifacts);
    // What the agent got: the binding's request, the task's id, the skill and its params, and no `from`.
    expect(agent.events.find((e) => (e.message as { taskId?: string })?.taskId === task.id)?.message).toEqual({
      kind: 'task_request',
      taskId: task.id,
      skill: 'demo.echo',
      params: { text: 'hello logos-agent' },
    });
  });

  it('v1.0: SendStreamingMessage streams working, then the result', async () => {
    const client = await clientFor(agentUrl);
    const events = await collect(client.sendMessageStream(textMessage('slowly', skill('demo.slow'))));
    const states = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : [],
    );
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 30_000);

  it('v1.0: a cancel that reaches the agent in its request’s batch is honoured by the agent', async () => {
    const client = await clientFor(agentUrl);
    await holdBatch(agent);
    const task = (await client.sendMessage(
      textMessage('never mind', { ...skill('demo.slow'), configuration: { returnImmediately: true } }),
    )) as Task;
    await heardInInbox(agent, 'task_request', task.id);
    const cancelling = client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    await heardInInbox(agent, 'task_cancel', task.id);
    expect(await drainBatch(agent)).toEqual({ requests: [task.id], cancels: [task.id] });
    const cancelled = await cancelling;
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The agent's own `canceled`, not the gateway's note after the cancel timeout.
    expect(JSON.stringify(cancelled.status?.message ?? {})).not.toContain('did not confirm');
  }, 60_000);

  it('v0.3: message/send, message/stream, tasks/get and tasks/cancel', async () => {
    const session = await v03Generation.connect(`${agentUrl}/`, 'JSONRPC');
    const sent = await session.send('hello from v0.3');
    expect(sent.kind === 'task' && sent.task.state).toBe('completed');
    if (sent.kind !== 'task') return;
    expect((await session.getTask(sent.task.id)).state).toBe('completed');

    const events = await collect(session.stream('streamed'));
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });

    // The v0.3 session sends text only: the slow skill is named in the message's metadata, by hand. Its cancel
    // reaches the agent in the request's batch, held until both are there.
    await holdBatch(agent);
    const slow = await rpc(
      agentUrl,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: `v03-slow-${Date.now()}`,
          role: 'user',
          parts: [{ kind: 'text', text: 'never mind' }],
          metadata: { skill: 'demo.slow' },
        },
        configuration: { blocking: false },
      },
      {},
    );
    const taskId = (slow.body as { result: { id: string } }).result.id;
    await heardInInbox(agent, 'task_request', taskId);
    const cancelling = session.cancel(taskId);
    await heardInInbox(agent, 'task_cancel', taskId);
    expect(await drainBatch(agent)).toEqual({ requests: [taskId], cancels: [taskId] });
    expect((await cancelling).state).toBe('canceled');
  }, 60_000);
});
