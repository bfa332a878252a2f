/**
 * An agent on a light node under load: the gateway on its relay node (which serves LightPush and Filter) hands
 * hundreds of tasks at once to an echo agent on a `waku-light` transport. Every task must complete, and afterwards the
 * streams of the light protocols must be closed at both ends: each Filter push and each LightPush request used to
 * leave one open (or be refused past libp2p's stream limits), so a light agent stopped answering after a few dozen.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Libp2p } from '@libp2p/interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/gateway.ts';
import type { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { echoAgent } from '../../../src/logos/agents/echo.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../../src/logos/discovery.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { WakuLightTransport } from '../../../src/logos/transports/waku-light.ts';
import { FILTER_PUSH_CODEC } from '../../../src/logos/transports/waku/filter-service.ts';
import { LIGHT_PUSH_V2_CODEC, LIGHT_PUSH_V3_CODEC } from '../../../src/logos/transports/waku/light-push-service.ts';
import { eventually, rpc } from '../../support/gateway.ts';

const TASKS = 240;
const LIGHT_CODECS = [FILTER_PUSH_CODEC, LIGHT_PUSH_V3_CODEC, LIGHT_PUSH_V2_CODEC];

let dir: string;
let gateway: Gateway;
let lightTransport: WakuLightTransport;
let agent: LogosAgent;

/** Open streams of the light protocols on a node, by protocol. */
function lightStreams(node: Libp2p): Record<string, number> {
  const counts = Object.fromEntries(LIGHT_CODECS.map((codec) => [codec, 0]));
  for (const connection of node.getConnections()) {
    for (const stream of connection.streams) {
      if (stream.protocol !== undefined && stream.protocol in counts) counts[stream.protocol]! += 1;
    }
  }
  return counts;
}

function gatewayNode(): Libp2p {
  const transport = gateway.network.gateway;
  if (!(transport instanceof WakuTransport) || !transport.node) throw new Error('the gateway has no Waku node');
  return transport.node;
}

async function echo(text: string): Promise<string | undefined> {
  const { body } = await rpc(`${gateway.url}/agents/echo`, 'SendMessage', {
    message: { messageId: text, role: 'ROLE_USER', parts: [{ text }] },
  });
  const task = body.result?.task;
  return task?.status.state === 'TASK_STATE_COMPLETED' ? task.artifacts[0].parts[0].text : undefined;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-light-load-'));
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      agentTimeoutMs: 60_000,
      transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/0'], keyFile: join(dir, 'gateway.key') },
    },
  });
  gateway = await startGateway(config, { log: () => undefined });
  lightTransport = new WakuLightTransport({
    servicePeers: [gateway.network.joinAddresses()[0]!],
    clusterId: 2,
    numShardsInCluster: 8,
  });
  agent = echoAgent(lightTransport, {
    discoveryTopic: DEFAULT_DISCOVERY_TOPIC,
    cardKey: randomBytes(32),
    announceEveryMs: 500,
  });
  await agent.start();
  await eventually(() => (gateway.directory.get('echo') ? true : undefined), 30_000);
  // One task end to end first: the Filter subscription of the agent's inbox is in place.
  await eventually(async () => ((await echo('warm-up')) === 'warm-up' ? true : undefined), 30_000);
}, 90_000);

afterAll(async () => {
  await agent?.stop();
  await gateway?.stop();
  rmSync(dir ?? '', { recursive: true, force: true });
}, 30_000);

describe('an agent on a light node under load', { timeout: 180_000 }, () => {
  it(`completes ${TASKS} tasks sent at once, and closes every light-protocol stream afterwards`, async () => {
    const texts = Array.from({ length: TASKS }, (_, i) => `load-${i}`);
    const answers = await Promise.all(texts.map((text) => echo(text)));
    expect(answers.filter((answer, i) => answer !== texts[i])).toEqual([]);

    // The streams of each push and request are closed at both ends; the stock light node keeps at most one
    // LightPush stream per version open ahead of its next request.
    const settled = (node: Libp2p) => {
      const counts = lightStreams(node);
      return counts[FILTER_PUSH_CODEC] === 0 && counts[LIGHT_PUSH_V3_CODEC]! <= 1 && counts[LIGHT_PUSH_V2_CODEC]! <= 1
        ? counts
        : undefined;
    };
    await eventually(() => settled(gatewayNode()), 20_000);
    await eventually(() => settled(lightTransport.node!), 20_000);
    expect(lightTransport.unsent).toBe(0);

    // And the agent still answers one task at a time.
    expect(await echo('after the load')).toBe('after the load');
  });
});
