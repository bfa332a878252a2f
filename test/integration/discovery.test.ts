/** Agents announce their cards on the discovery topic; the gateway serves every agent it hears, and only from its owner. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement } from '../../src/logos/discovery.ts';
import { LogosAgentCard } from '../../src/logos/card.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed.close());

const card = (id: string, address: string) =>
  LogosAgentCard.parse({
    id,
    name: `Agent ${id}`,
    description: 'announced',
    version: '1',
    skills: [{ id: 'echo', name: 'Echo', description: '' }],
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address }],
  });

describe('discovery', () => {
  it('an agent that announces its card is served at /agents/{id} and answers tasks', async () => {
    const agent = new LogosAgent({
      transport: bed.network.node('agent:newcomer'),
      card: card('newcomer', 'agent:newcomer'),
      skills: { echo: (ctx) => `newcomer says ${ctx.text}` },
      discoveryTopic: DEFAULT_DISCOVERY_TOPIC,
    });
    await agent.start();
    try {
      const response = await eventually(async () => {
        const r = await fetch(`${bed.gateway.url}/agents/newcomer/.well-known/agent-card.json`);
        return r.status === 200 ? r : undefined;
      });
      expect((await response.json()).name).toBe('Agent newcomer');
      const { body } = await rpc(`${bed.gateway.url}/agents/newcomer`, 'SendMessage', { message: { messageId: 'n1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
      expect(body.result.task.artifacts[0].parts[0].text).toBe('newcomer says hi');
    } finally {
      await agent.stop();
    }
  });

  it('refuses a card announced by anyone but the address it names, and malformed or oversized ones', async () => {
    const impostor = bed.network.node('agent:impostor');
    await impostor.start();
    const before = { ...bed.gateway.discovery.counters };
    // A card naming someone else's address: tasks would go to the victim, answers would come from nowhere.
    await impostor.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('hijack', 'agent:echo')));
    await impostor.publish(DEFAULT_DISCOVERY_TOPIC, new TextEncoder().encode('{"v":1,"type":"agent_card","card":{}}'));
    await impostor.publish(DEFAULT_DISCOVERY_TOPIC, new Uint8Array(100 * 1024));
    await eventually(() => {
      const c = bed.gateway.discovery.counters;
      return c.wrongSender === before.wrongSender + 1 && c.invalid === before.invalid + 1 && c.oversized === before.oversized + 1 ? true : undefined;
    });
    expect(bed.gateway.directory.get('hijack')).toBeUndefined();
  });

  it('the first agent to claim an id keeps it', async () => {
    const rival = bed.network.node('agent:rival');
    await rival.start();
    const before = bed.gateway.discovery.counters.idTaken;
    await rival.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('echo', 'agent:rival')));
    await eventually(() => (bed.gateway.discovery.counters.idTaken === before + 1 ? true : undefined));
    expect(bed.gateway.directory.get('echo')?.address).toBe('agent:echo');
  });

  it('an unchanged re-announcement keeps the card’s ETag and Last-Modified', async () => {
    const node = bed.network.node('agent:steady');
    await node.start();
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('steady', 'agent:steady')));
    const first = await eventually(async () => {
      const r = await fetch(`${bed.gateway.url}/agents/steady/.well-known/agent-card.json`);
      return r.status === 200 ? r : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('steady', 'agent:steady')));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await fetch(`${bed.gateway.url}/agents/steady/.well-known/agent-card.json`);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.headers.get('last-modified')).toBe(first.headers.get('last-modified'));
  });
});

describe('the directory', () => {
  it('survives a restart: agents heard before are served at once, offline until heard again', async () => {
    const local = await startTestBed({ config: { offlineAfterMs: 300 } });
    try {
      const node = local.network.node('agent:remembered');
      await node.start();
      await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('remembered', 'agent:remembered')));
      await eventually(() => (local.gateway.directory.get('remembered') ? true : undefined));
      expect(local.gateway.directory.isOnline('remembered')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(local.gateway.directory.isOnline('remembered')).toBe(false);
      const gateway = await local.restartGateway();
      const response = await fetch(`${gateway.url}/agents/remembered/.well-known/agent-card.json`);
      expect(response.status).toBe(200);
      expect(gateway.directory.isOnline('remembered')).toBe(false);
      await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('remembered', 'agent:remembered')));
      await eventually(() => (gateway.directory.isOnline('remembered') ? true : undefined));
    } finally {
      await local.close();
    }
  });
});
