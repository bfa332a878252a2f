/**
 * The network's message limit on the embedded relay transport, which `npm start` runs: a request that would not fit
 * in one message is refused before anything is sent, one whose text fits only when carried once gets through, and a
 * larger result arrives as artifact chunks. The same is
 * tested for the light transport (waku-light.test.ts) and a node's REST API (nwaku-rest.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import type { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { echoAgent } from '../../../src/logos/agents/echo.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../../src/logos/discovery.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/gateway.ts';
import {
  expectLargeRequestAnswered,
  expectLargeTextInChunks,
  expectOversizedRequestRefused,
  largeResultAgent,
} from '../../support/large-result-agent.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

let dir: string;
let gateway: Gateway;
const agents: LogosAgent[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-size-'));
  gateway = await startWakuGateway(dir, { overrides: { agentTimeoutMs: 20_000 } });
  const peers = gateway.network.joinAddresses();
  agents.push(
    echoAgent(new WakuTransport({ staticPeers: peers }), {
      discoveryTopic: DEFAULT_DISCOVERY_TOPIC,
      cardKey: randomBytes(32),
      announceEveryMs: 500,
    }),
    largeResultAgent(new WakuTransport({ staticPeers: peers })),
  );
  await Promise.all(agents.map((agent) => agent.start()));
  await eventually(
    async () => (gateway.directory.get('echo') && gateway.directory.get('big') ? true : undefined),
    20_000,
  );
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all(agents.map((agent) => agent.stop()));
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

it('refuses a request larger than one relay message with -32602 naming the limit, and records no task', async () => {
  await expectOversizedRequestRefused(
    `${gateway.url}/agents/echo`,
    'relay-big-request',
    gateway.network.gateway.maxPayloadBytes,
  );
});

it('carries a 100 KB text once: it reaches the agent whole, as params.text and in the message', async () => {
  await expectLargeRequestAnswered(gateway.url, gateway.network.gateway.maxPayloadBytes);
}, 30_000);

it('receives a result larger than one relay message as artifact chunks, in order', { timeout: 60_000 }, async () => {
  await expectLargeTextInChunks(`${gateway.url}/agents/big`, 'relay-big-result');
});
