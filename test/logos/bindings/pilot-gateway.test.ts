/**
 * An outside agent of the pilot binding (test/support/peer-agents/pilot.ts, stock packages only) on its network,
 * cluster 2 shard 7, served through one gateway configured with that network and called with the official A2A
 * clients, v1.0 and v0.3: its ES256K card verified and its key pinned in the gateway's data folder, beside the
 * gateway's own pilot identity; send and get (each request signed with that identity and encrypted to the agent,
 * each reply decrypted and checked against the pinned key), cancel while the agent works; no stream, as the agent
 * sends one reply per request (the official client sends instead); a tampered card refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { CancelTaskRequest, GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { peerAgentId } from '../../../src/logos/bindings/common/peer-card.ts';
import { inboxTopic, NETWORK } from '../../../src/logos/bindings/pilot/wire.ts';
import { stopChild } from '../../support/child-process.ts';
import { clientFor, collect, eventually, rpc, textMessage } from '../../support/gateway.ts';
import { startPeerAgent, type PeerAgentProcess } from '../../support/peer-agent-process.ts';
import { verifiedMark } from '../../support/peer-verified.ts';
import { v03Generation } from '../../support/sdk-generations.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

let dir: string;
let gateway: Gateway;
let agent: PeerAgentProcess;
let tampered: PeerAgentProcess;
let agentUrl: string;

const skill = (name: string) => ({ metadata: { skill: name } });
const idOf = (process: PeerAgentProcess) => peerAgentId('Pilot Agent', process.ready.npk as string);

const logs: string[] = [];
const startGateway = () =>
  startWakuGateway(dir, {
    overrides: { networks: [{ name: 'pilot', listen: ['/ip4/127.0.0.1/tcp/0'] }] },
    log: (message) => logs.push(message),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-pilot-'));
  gateway = await startGateway();
  const peer = gateway.peerNetworks.nodeOf('pilot')!.joinAddresses()[0]!;
  // Free skills: a text-only message calls the first one, `agent-ask`.
  agent = await startPeerAgent('pilot', { peer, clusterId: NETWORK.clusterId, pricing: {}, slowMs: 5_000 });
  tampered = await startPeerAgent('pilot', { peer, clusterId: NETWORK.clusterId, tamperCard: true });
  await eventually(() => gateway.directory.get(idOf(agent)), 60_000).catch((error: unknown) => {
    throw new Error(`not listed (${String(error)}); drops ${JSON.stringify(gateway.peerDiscovery.counters)}`);
  });
  agentUrl = `${gateway.url}/agents/${idOf(agent)}`;
}, 120_000);

afterAll(async () => {
  await stopChild(agent?.child);
  await stopChild(tampered?.child);
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('a pilot agent behind the gateway', () => {
  it('is served under an id from its identity, naming binding and network; its key is pinned in the data folder', async () => {
    const card = await (await fetch(`${agentUrl}/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('Pilot Agent');
    expect(card.capabilities.streaming).toBe(false);
    const params = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params.logosInterfaces).toEqual([
      {
        type: 'logos-messaging',
        version: 'pilot',
        address: inboxTopic(agent.ready.encKey as string),
        network: 'pilot',
      },
    ]);
    const pins = JSON.parse(readFileSync(join(dir, 'pilot-pins.json'), 'utf8'));
    expect(pins[agent.ready.npk as string]).toEqual({
      signingKey: (agent.ready.signingKey as string).toLowerCase(),
      inbox: inboxTopic(agent.ready.encKey as string),
    });
    // The gateway's own pilot identity, which the agent pins at first contact, outlives a restart.
    for (const file of ['pilot-signing.key', 'pilot-ecies.key', 'pilot-sender-npk'])
      expect(existsSync(join(dir, file))).toBe(true);
  });

  it('says, in /agents and its served card, that its card was verified, by ES256K against its pinned key', async () => {
    const mark = await verifiedMark(gateway.url, idOf(agent));
    expect(mark.listed).toEqual({ verified: true, cardScheme: 'ES256K pinned' });
    expect(mark.signature).toMatchObject({
      binding: 'pilot',
      scheme: 'ES256K pinned',
      signingKey: (agent.ready.signingKey as string).toLowerCase(),
    });
  });

  it('cuts off an address announced more than 10 times a minute as a flood (the test agent announces every second), and keeps serving it', async () => {
    await eventually(() => (gateway.peerDiscovery.counters.flood > 0 ? true : undefined), 30_000);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/logos_a2a_discovery_drops_total\{reason="flood"\} [1-9]/);
    expect(logs.join('\n')).toMatch(/not served \(flood\): more than 10 announcements in 60 s/);
    expect(gateway.directory.get(idOf(agent))).toBeDefined();
  }, 40_000);

  it('refuses the tampered card, counting it as a bad signature', async () => {
    await eventually(() => (gateway.peerDiscovery.counters.badSignature > 0 ? true : undefined), 30_000);
    expect(gateway.directory.get(idOf(tampered))).toBeUndefined();
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/logos_a2a_discovery_drops_total\{reason="badSignature"\} [1-9]/);
  });

  it('v1.0: SendMessage completes with the agent’s signed reply, GetTask reads it back', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('ping?', skill('ping')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ content: { $case: 'data', value: { pong: true } } });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.artifacts).toEqual(task.artifacts);
    expect(agent.events.filter((e) => e.event === 'dropped')).toEqual([]);
  }, 30_000);

  it('v1.0: a text message to agent-ask asks it that text, as its prompt', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(textMessage('What is Logos?', skill('agent-ask')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]).toMatchObject({
      content: { $case: 'data', value: { answer: 'What is Logos?' } },
    });
  }, 30_000);

  it('v1.0: CancelTask while the agent works: the agent confirms', async () => {
    const client = await clientFor(agentUrl);
    const task = (await client.sendMessage(
      textMessage('never mind', { ...skill('slow'), configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(
      () => (agent.events.some((e) => e.event === 'request' && e.id === task.id) ? true : undefined),
      15_000,
    );
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(JSON.stringify(cancelled.status?.message ?? {})).not.toContain('did not confirm');
  }, 30_000);

  it('v1.0: the official client, told by the card that there is no stream, streams by one send', async () => {
    const client = await clientFor(agentUrl);
    const events = await collect(client.sendMessageStream(textMessage('ping?', skill('ping'))));
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      $case: 'task',
      value: { status: { state: TaskState.TASK_STATE_COMPLETED } },
    });
  }, 30_000);

  it('v0.3: message/send, tasks/get and tasks/cancel', async () => {
    const session = await v03Generation.connect(`${agentUrl}/`, 'JSONRPC');
    const sent = await session.send('hello from v0.3');
    expect(sent.kind === 'task' && sent.task.state).toBe('completed');
    if (sent.kind !== 'task') return;
    expect((await session.getTask(sent.task.id)).state).toBe('completed');

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
          metadata: { skill: 'slow' },
        },
        configuration: { blocking: false },
      },
      {},
    );
    const taskId = (slow.body as { result: { id: string } }).result.id;
    await eventually(
      () => (agent.events.some((e) => e.event === 'request' && e.id === taskId) ? true : undefined),
      15_000,
    );
    expect((await session.cancel(taskId)).state).toBe('canceled');
  }, 60_000);

  it('after a restart, serves the agent from the directory before it announces again, its card verified again, naming binding and network', async () => {
    await stopChild(agent.child);
    await stopChild(tampered.child);
    await gateway.stop();
    gateway = await startGateway();
    const card = await (await fetch(`${gateway.url}/agents/${idOf(agent)}/.well-known/agent-card.json`)).json();
    const params = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params.logosInterfaces).toEqual([
      {
        type: 'logos-messaging',
        version: 'pilot',
        address: inboxTopic(agent.ready.encKey as string),
        network: 'pilot',
      },
    ]);
    expect(await verifiedMark(gateway.url, idOf(agent))).toMatchObject({
      listed: { verified: true, cardScheme: 'ES256K pinned' },
      signature: { scheme: 'ES256K pinned' },
    });
  }, 60_000);

  it('after a restart with another key pinned for its identity, leaves the stored card out and says why', async () => {
    await gateway.stop();
    const file = join(dir, 'pilot-pins.json');
    const pins = JSON.parse(readFileSync(file, 'utf8'));
    const other = bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
    pins[agent.ready.npk as string].signingKey = other;
    writeFileSync(file, JSON.stringify(pins));
    logs.length = 0;
    gateway = await startGateway();
    expect(gateway.directory.get(idOf(agent))).toBeUndefined();
    expect((await fetch(`${gateway.url}/agents/${idOf(agent)}/.well-known/agent-card.json`)).status).toBe(404);
    expect(logs.join('\n')).toMatch(/pilot agent on "pilot" left out.*badSignature.*pin-mismatch/);
  }, 60_000);
});
