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
import type { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { echoAgent } from '../../../src/logos/agents/echo.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../../src/logos/discovery.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { WakuLightTransport } from '../../../src/logos/transports/waku-light.ts';
import { eventually, rpc } from '../../support/gateway.ts';
import {
  expectLargeTextInChunks,
  expectOversizedRequestRefused,
  largeResultAgent,
} from '../../support/large-result-agent.ts';

let dir: string;
let service: WakuTransport;
let agentNode: WakuTransport;
let agent: LogosAgent;
let bigAgent: LogosAgent;
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
  bigAgent = largeResultAgent(new WakuTransport({ staticPeers: service.multiaddrs() }));
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
    await expectOversizedRequestRefused(
      `${gateway.url}/agents/echo`,
      'light-2',
      gateway.network.gateway.maxPayloadBytes,
    );
  });

  it('receives a result larger than one message as artifact chunks, reassembled in order into the task’s artifact', async () => {
    await expectLargeTextInChunks(`${gateway.url}/agents/big`, 'big-1');
  });

  it('fails a task whose result has a data part larger than one message, saying why', async () => {
    const { body } = await rpc(`${gateway.url}/agents/big`, 'SendMessage', {
      message: { messageId: 'big-2', role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'data' } },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(body.result.task.status.message.parts[0].text).toMatch(/only text can be split/);
  });
});
