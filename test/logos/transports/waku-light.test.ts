/**
 * The `waku-light` transport: the gateway as a stock `@waku/sdk` light node of one of our relay nodes (which serves
 * LightPush and Filter), serving an agent that runs on a relay node of its own; and what a gateway refuses when a
 * request would not fit in one message of the network.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/gateway.ts';
import { LogosAgent, builtinOptions } from '../../../src/logos/agent-runtime.ts';
import { echoAgent } from '../../../src/logos/agents/echo.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../../src/logos/discovery.ts';
import { WakuTransport, verifyAddressProof } from '../../../src/logos/transports/waku.ts';
import { WakuLightTransport } from '../../../src/logos/transports/waku-light.ts';
import { eventually, rpc } from '../../support/gateway.ts';

let dir: string;
let service: WakuTransport;
let agentNode: WakuTransport;
let agent: LogosAgent;
let bigAgent: LogosAgent;
/** Larger than one message (150 KiB), with characters of 2 and 4 bytes that must not be cut in half. */
const LARGE_TEXT = 'é🙂abc'.repeat(40_000);
let gateway: Gateway;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-light-'));
  service = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
  agentNode = new WakuTransport({ staticPeers: service.multiaddrs() });
  agent = echoAgent(agentNode, {
    discoveryTopic: DEFAULT_DISCOVERY_TOPIC,
    cardKey: randomBytes(32),
    announceEveryMs: 500,
  });
  await agent.start();
  const bigNode = new WakuTransport({ staticPeers: service.multiaddrs() });
  bigAgent = new LogosAgent({
    transport: bigNode,
    ...builtinOptions({ discoveryTopic: DEFAULT_DISCOVERY_TOPIC, cardKey: randomBytes(32), announceEveryMs: 500 }),
    card: {
      id: 'big',
      name: 'Big',
      description: 'Answers with more than one message holds.',
      version: '1.0.0',
      skills: [
        { id: 'text', name: 'Text', description: 'A long text.', tags: ['test'] },
        { id: 'data', name: 'Data', description: 'A large data object.', tags: ['test'] },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: bigNode.address }],
    },
    skills: {
      text: () => LARGE_TEXT,
      data: () => ({ blob: 'z'.repeat(200_000) }),
    },
  });
  await bigAgent.start();
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      agentTimeoutMs: 20_000,
      transport: { kind: 'waku-light', peers: [service.multiaddrs()[0]!], keyFile: join(dir, 'gateway.key') },
    },
  });
  gateway = await startGateway(config, { log: () => undefined });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await agent?.stop();
  await bigAgent?.stop();
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('the gateway as a light node', { timeout: 60_000 }, () => {
  it('hears the relay agent’s card through Filter and serves it a task through LightPush', async () => {
    expect(gateway.network.gateway).toBeInstanceOf(WakuLightTransport);
    expect(gateway.network.description).toMatch(/^Waku light node of \/ip4\/127\.0\.0\.1\/tcp\/\d+\/ws\/p2p\//);
    await eventually(async () => {
      const response = await fetch(`${gateway.url}/agents/echo/.well-known/agent-card.json`);
      return response.status === 200 ? true : undefined;
    }, 20_000);
    const { body } = await rpc(`${gateway.url}/agents/echo`, 'SendMessage', {
      message: { messageId: 'light-1', role: 'ROLE_USER', parts: [{ text: 'through a service node' }] },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts[0].parts[0].text).toBe('through a service node');
  });

  it('refuses a request larger than one message of the network with -32602 naming the limit', async () => {
    const limit = gateway.network.gateway.maxPayloadBytes;
    const { body } = await rpc(`${gateway.url}/agents/echo`, 'SendMessage', {
      message: { messageId: 'light-2', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(limit + 1) }] },
    });
    expect(body.error).toMatchObject({ code: -32602 });
    expect(body.error!.message).toContain(`at most ${limit}`);
    const tasks = await rpc(`${gateway.url}/agents/echo`, 'ListTasks', {});
    expect(tasks.body.result.tasks.map((task: any) => task.history?.[0]?.messageId)).not.toContain('light-2');
  });

  it('receives a result larger than one message as artifact chunks, reassembled in order into the task’s artifact', async () => {
    await eventually(async () => {
      const response = await fetch(`${gateway.url}/agents/big/.well-known/agent-card.json`);
      return response.status === 200 ? true : undefined;
    }, 20_000);
    const events: any[] = [];
    const response = await fetch(`${gateway.url}/agents/big`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: {
          message: { messageId: 'big-1', role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'text' } },
        },
      }),
    });
    for (const line of (await response.text()).split('\n')) {
      if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)).result);
    }
    const chunks = events.filter((event) => event.artifactUpdate).map((event) => event.artifactUpdate);
    expect(chunks.length).toBeGreaterThan(1);
    // JSON leaves out false flags: the first chunk starts the artifact, the last closes it.
    expect(chunks[0]).toMatchObject({ artifact: { artifactId: 'result' } });
    expect([chunks[0].append, chunks[0].lastChunk]).toEqual([undefined, undefined]);
    expect(chunks.at(-1)).toMatchObject({ append: true, lastChunk: true });
    expect(chunks.map((chunk) => chunk.artifact.parts[0].text).join('')).toBe(LARGE_TEXT);
    const taskId = chunks[0].taskId;
    const { body } = await rpc(`${gateway.url}/agents/big`, 'GetTask', { id: taskId });
    expect(body.result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.artifacts).toHaveLength(1);
    // A2A's append adds the chunk's parts: the artifact holds the pieces, in order.
    const parts = body.result.artifacts[0].parts;
    expect(parts).toHaveLength(chunks.length);
    expect(parts.map((part: any) => part.text).join('')).toBe(LARGE_TEXT);
  });

  it('fails a task whose result has a data part larger than one message, saying why', async () => {
    const { body } = await rpc(`${gateway.url}/agents/big`, 'SendMessage', {
      message: { messageId: 'big-2', role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'data' } },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(body.result.task.status.message.parts[0].text).toMatch(/only text can be split/);
  });
});

describe('a light party’s address', () => {
  it('proves it speaks for an account, as a relay party’s does, so a light agent’s signed card is accepted', () => {
    const light = new WakuLightTransport({ servicePeers: [], clusterId: 2, numShardsInCluster: 8 });
    const account = 'BLgCcR4bNfGjMoJL9FkS1yeBHbyA6RQwGMnhcFBPjoS4';
    const proof = light.addressProof(account);
    expect(verifyAddressProof(light.address, account, proof)).toBe(true);
    expect(verifyAddressProof(light.address, account.replace('B', 'C'), proof)).toBe(false);
  });
});
