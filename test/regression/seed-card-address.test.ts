/**
 * A seed card names its agent's address as the seed writes it, a bare public key in hex. On Waku the gateway took
 * it as it was: listed online, then every call failed with -32603 after the agent timeout ("did not answer"), and a
 * later announcement spelling the address `waku:…` could not replace it (another address held the id). Now the
 * address is read as the `waku:` address of that key at discovery; a card whose address the transport cannot send
 * to in any spelling is refused there, counted as `badAddress` in /metrics and logged once per agent.
 *
 * A real Waku gateway, a seed agent on its own Waku node in this process, the official client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement } from '../../src/logos/discovery.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { sample } from '../support/prometheus.ts';
import { runSeedAgent, seedCard, type SeedAgent } from '../support/seed-agent.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

let dir: string;
let gateway: Gateway;
let node: WakuTransport;
let seed: SeedAgent;
const logged: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-seed-address-'));
  gateway = await startWakuGateway(dir, {
    env: { LOGOS_A2A_ALLOW_UNVERIFIED_AGENTS: 'true' },
    overrides: { agentTimeoutMs: 20_000 },
    log: (message) => logged.push(message),
  });
  node = new WakuTransport({ listen: ['/ip4/127.0.0.1/tcp/0'], staticPeers: gateway.network.joinAddresses() });
  await node.start();
  seed = runSeedAgent(node, { discoveryTopic: DEFAULT_DISCOVERY_TOPIC, announceEveryMs: 3_600_000 });
}, 60_000);

afterAll(async () => {
  seed?.stop();
  await node?.stop();
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const announce = (card: Record<string, unknown>) => node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card));
const withAddress = (card: Record<string, unknown>, address: string) => ({
  ...card,
  agentInterfaces: [{ type: 'a2a', transport: 'logos-messaging', address }],
});
const servedId = (card: Record<string, unknown>) => `logos-agent-${String(card.id).slice('logos-agent:'.length, 44)}`;

describe('a seed card’s address', () => {
  it('as a bare key is the waku address of that key: listed there, and called', async () => {
    const bare = node.address.slice('waku:'.length);
    const card = withAddress(seedCard(bare), bare);
    await announce(card);
    const entry = await eventually(() => gateway.directory.get(servedId(card)), 30_000);
    expect(entry.address).toBe(node.address);

    const client = await clientFor(`${gateway.url}/agents/${servedId(card)}`);
    const task = (await client.sendMessage(textMessage('hello bare key', { metadata: { skill: 'echo' } }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seed.requests.at(-1)).toMatchObject({ type: 'task_request', skill: 'echo' });

    // The right spelling, later, replaces the card (before, another address held the id: idTaken).
    const idTaken = gateway.discovery.counters.idTaken;
    await announce({ ...withAddress(card, node.address), name: 'Seed Agent, spelt right' });
    await eventually(() => gateway.directory.get(servedId(card))?.card.name === 'Seed Agent, spelt right' || undefined);
    expect(gateway.discovery.counters.idTaken).toBe(idTaken);
  }, 60_000);

  it('that the transport cannot send to is refused at discovery, counted in /metrics and logged once per agent', async () => {
    const metric = async () =>
      sample(await (await fetch(`${gateway.url}/metrics`)).text(), 'logos_a2a_discovery_drops_total', {
        reason: 'badAddress',
      });
    const before = { count: gateway.discovery.counters.badAddress, metric: await metric() };
    // A name of the in-process network, and a bare "key" that is no point of the curve.
    const elsewhere = withAddress(seedCard('agent:elsewhere'), 'agent:elsewhere');
    const offCurve = withAddress(seedCard('off-curve'), `04${'ab'.repeat(64)}`);
    // Each announcement differs (the receiver drops a payload it has just seen), as a card being fixed would.
    for (let i = 0; i < 3; i++) {
      await announce({ ...elsewhere, description: `try ${i}` });
      await announce({ ...offCurve, description: `try ${i}` });
    }
    await eventually(() => gateway.discovery.counters.badAddress === before.count + 6 || undefined, 30_000).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}; counters ${JSON.stringify(gateway.discovery.counters)}`);
      },
    );
    expect(await metric()).toBe(before.metric + 6);
    expect(gateway.directory.get(servedId(elsewhere))).toBeUndefined();
    expect(gateway.directory.get(servedId(offCurve))).toBeUndefined();
    expect((await fetch(`${gateway.url}/agents/${servedId(elsewhere)}/.well-known/agent-card.json`)).status).toBe(404);
    const lines = logged.filter((line) => line.includes('(badAddress)'));
    expect(lines).toHaveLength(2);
    expect(lines.find((line) => line.includes('agent:elsewhere'))).toMatch(/cannot send to "agent:elsewhere"/);
  }, 60_000);
});
