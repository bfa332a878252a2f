/** Agents announce their cards on the discovery topic; the gateway serves every agent it hears, bound to its owner. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { DEFAULT_DISCOVERY_TOPIC, DiscoveryListener, encodeAnnouncement } from '../../src/logos/discovery.ts';
import { AgentDirectory } from '../../src/logos/directory.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { readAnnouncedCard } from '../../src/logos/card-reading.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressFromPublicKey, proveAddress } from '../../src/logos/transports/waku/identity.ts';
import { formatAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { randomBytes } from 'node:crypto';
import { LogosAgentCard } from '../../src/logos/card.ts';
import { signLogosCard, verifyLogosCard } from '../../src/logos/card-signature.ts';
import { verifyProjectedCard } from '../../src/a2a/card-jws.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed.close());

/** A card for `address`, signed by a fresh LEZ key (its account goes into x-lez-identity). */
const card = (id: string, address: string, key: Uint8Array = randomBytes(32), issuedAt?: string) =>
  signLogosCard(
    LogosAgentCard.parse({
      ...(issuedAt ? { 'x-issued-at': issuedAt } : {}),
      id,
      name: `Agent ${id}`,
      description: 'announced',
      version: '1',
      skills: [{ id: 'echo', name: 'Echo', description: '' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address }],
    }),
    key,
    { auxRand: new Uint8Array(32) },
  );

describe('discovery', () => {
  it('an agent that announces its card is served at /agents/{id} and answers tasks', async () => {
    const agent = new LogosAgent({
      transport: bed.network.node('agent:newcomer'),
      card: {
        id: 'newcomer',
        name: 'Agent newcomer',
        description: 'announced',
        version: '1',
        skills: [{ id: 'echo', name: 'Echo', description: '' }],
        agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:newcomer' }],
      },
      cardKey: randomBytes(32),
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
      const { body } = await rpc(`${bed.gateway.url}/agents/newcomer`, 'SendMessage', {
        message: { messageId: 'n1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      });
      expect(body.result.task.artifacts[0].parts[0].text).toBe('newcomer says hi');
    } finally {
      await agent.stop();
    }
  });

  it('refuses a card that would take over a listing for another account, and malformed or oversized ones', async () => {
    const node = bed.network.node('agent:claimed');
    await node.start();
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('claimed', 'agent:claimed')));
    await eventually(() => (bed.gateway.directory.get('claimed') ? true : undefined));
    const before = { ...bed.gateway.discovery.counters };
    const held = bed.gateway.directory.get('claimed')?.verified?.accountId;
    // The same id and address, newer, but signed for another account: payments would go to the impostor.
    const later = new Date(Date.now() + 60_000).toISOString();
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('claimed', 'agent:claimed', undefined, later)));
    await node.publish(DEFAULT_DISCOVERY_TOPIC, new TextEncoder().encode('{"id":"x"}'));
    await node.publish(DEFAULT_DISCOVERY_TOPIC, new Uint8Array(100 * 1024));
    await eventually(() => {
      const c = bed.gateway.discovery.counters;
      return c.idTaken === before.idTaken + 1 &&
        c.invalid === before.invalid + 1 &&
        c.oversized === before.oversized + 1
        ? true
        : undefined;
    });
    expect(bed.gateway.directory.get('claimed')?.verified?.accountId).toBe(held);
  });

  it('takes a card for a waku address only with that address’s proof for the card’s account', () => {
    const wakuKey = randomBytes(32);
    const address = addressFromPublicKey(secp256k1.getPublicKey(wakuKey, false));
    const lezKey = randomBytes(32);
    const account = formatAccountId(publicAccountId(xOnlyPublicKey(lezKey)));
    const withProof = (proof?: string) =>
      signLogosCard(
        {
          id: 'keyed',
          name: 'Keyed',
          description: '',
          version: '1',
          skills: [{ id: 'echo', name: 'Echo', description: '' }],
          agentInterfaces: [{ type: 'logos-messaging', version: '1', address }],
          ...(proof ? { 'x-logos-address-proof': proof } : {}),
        },
        lezKey,
      );
    expect(readAnnouncedCard(withProof(proveAddress(wakuKey, account)))).toMatchObject({ ok: true });
    expect(readAnnouncedCard(withProof())).toMatchObject({ ok: false, reason: 'bad-signature' });
    // A proof made for another account, or by another key, does not bind this one.
    const otherAccount = formatAccountId(publicAccountId(xOnlyPublicKey(randomBytes(32))));
    expect(readAnnouncedCard(withProof(proveAddress(wakuKey, otherAccount)))).toMatchObject({ ok: false });
    expect(readAnnouncedCard(withProof(proveAddress(randomBytes(32), account)))).toMatchObject({ ok: false });
  });

  it('the first agent to claim an id keeps it', async () => {
    const rival = bed.network.node('agent:rival');
    await rival.start();
    const before = bed.gateway.discovery.counters.idTaken;
    await rival.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('echo', 'agent:rival')));
    await eventually(() => (bed.gateway.discovery.counters.idTaken === before + 1 ? true : undefined));
    expect(bed.gateway.directory.get('echo')?.address).toBe('agent:echo');
  });

  it('refuses unsigned, tampered and mis-bound cards, and counts them', async () => {
    const node = bed.network.node('agent:sketchy');
    await node.start();
    const before = { ...bed.gateway.discovery.counters };
    const signed = card('sketchy', 'agent:sketchy');
    const { signature: _dropped, ...unsigned } = signed;
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(unsigned));
    await node.publish(
      DEFAULT_DISCOVERY_TOPIC,
      encodeAnnouncement({ ...signed, description: 'tampered after signing' }),
    );
    // Signed by one key but claiming another key's account.
    const other = card('sketchy', 'agent:sketchy');
    await node.publish(
      DEFAULT_DISCOVERY_TOPIC,
      encodeAnnouncement({ ...signed, 'x-lez-identity': other['x-lez-identity'] }),
    );
    await eventually(() => {
      const c = bed.gateway.discovery.counters;
      return c.unsigned === before.unsigned + 1 && c.badSignature === before.badSignature + 2 ? true : undefined;
    });
    expect(bed.gateway.directory.get('sketchy')).toBeUndefined();
    // The genuine card is taken, and served with both signatures checkable by anyone.
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(signed));
    const served = await eventually(async () => {
      const response = await fetch(`${bed.gateway.url}/agents/sketchy/.well-known/agent-card.json`);
      return response.status === 200 ? response.json() : undefined;
    });
    const params = served.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params.logosCardSignature.signature).toEqual(signed.signature);
    expect(params.logosCardSignature.account).toBe(signed['x-lez-identity'].account_id);
    const jwks = await (await fetch(`${bed.gateway.url}/.well-known/jwks.json`)).json();
    expect(verifyProjectedCard(served, jwks)).toMatchObject({ ok: true, alg: 'ES256' });
    expect(verifyProjectedCard({ ...served, description: 'tampered' }, jwks).ok).toBe(false);
    // The agent's own signature checks out from the original card alone.
    expect(verifyLogosCard(signed).ok).toBe(true);
  });

  it('refuses an older card replayed after a newer one, and cuts off a flood from one sender', async () => {
    const node = bed.network.node('agent:replayed');
    await node.start();
    const key = randomBytes(32);
    const older = card('replayed', 'agent:replayed', key, '2026-01-01T00:00:00.000Z');
    const newer = card('replayed', 'agent:replayed', key, '2026-02-01T00:00:00.000Z');
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(newer));
    await eventually(() => (bed.gateway.directory.get('replayed') ? true : undefined));
    const before = { ...bed.gateway.discovery.counters };
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(older));
    await eventually(() => (bed.gateway.discovery.counters.stale === before.stale + 1 ? true : undefined));
    expect(bed.gateway.directory.get('replayed')?.card['x-issued-at']).toBe('2026-02-01T00:00:00.000Z');

    const flooder = bed.network.node('agent:flooder');
    await flooder.start();
    const flood = card('flooder', 'agent:flooder');
    for (let i = 0; i < 25; i++) await flooder.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(flood));
    await eventually(() => (bed.gateway.discovery.counters.flood === before.flood + 15 ? true : undefined));
  });

  it('a full directory refuses new agents before checking their signatures, and keeps updating the ones it lists', async () => {
    const network = new MemoryNetwork();
    const gatewayNode = network.node('gateway:bounded');
    const directory = new AgentDirectory({ maxAgents: 1, log: () => undefined });
    const listener = new DiscoveryListener(gatewayNode, directory);
    await gatewayNode.start();
    listener.start();
    const announcer = network.node('agent:bounded');
    await announcer.start();
    try {
      const key = randomBytes(32);
      await announcer.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('first', 'agent:first', key)));
      await eventually(() => directory.get('first'));
      await announcer.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('second', 'agent:second')));
      // A forged card of a new agent costs no signature check: it is refused for want of room first.
      const forged = { ...card('third', 'agent:third'), name: 'tampered after signing' };
      await announcer.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(forged));
      await eventually(() => (listener.counters.directoryFull === 2 ? true : undefined));
      expect(listener.counters.badSignature).toBe(0);
      expect(directory.get('second')).toBeUndefined();
      // The listed agent's newer card is taken.
      const later = new Date(Date.now() + 60_000).toISOString();
      const renamed = card('first', 'agent:first', key, later);
      await announcer.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(renamed));
      await eventually(() => (directory.get('first')?.card['x-issued-at'] === later ? true : undefined));
    } finally {
      listener.stop();
      await announcer.stop();
      await gatewayNode.stop();
    }
  });

  it('an unchanged re-announcement keeps the card’s ETag and Last-Modified', async () => {
    const node = bed.network.node('agent:steady');
    await node.start();
    const steadyKey = randomBytes(32);
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('steady', 'agent:steady', steadyKey)));
    const first = await eventually(async () => {
      const r = await fetch(`${bed.gateway.url}/agents/steady/.well-known/agent-card.json`);
      return r.status === 200 ? r : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card('steady', 'agent:steady', steadyKey)));
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
      const rememberedCard = card('remembered', 'agent:remembered');
      await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(rememberedCard));
      await eventually(() => (local.gateway.directory.get('remembered') ? true : undefined));
      expect(local.gateway.directory.isOnline('remembered')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(local.gateway.directory.isOnline('remembered')).toBe(false);
      const gateway = await local.restartGateway();
      const response = await fetch(`${gateway.url}/agents/remembered/.well-known/agent-card.json`);
      expect(response.status).toBe(200);
      expect(gateway.directory.isOnline('remembered')).toBe(false);
      await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(rememberedCard));
      await eventually(() => (gateway.directory.isOnline('remembered') ? true : undefined));
    } finally {
      await local.close();
    }
  });
});
