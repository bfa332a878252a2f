/**
 * Publishing an HTTP A2A agent (the SDK's Express server, its own process) as a Logos agent: the Logos card made
 * from its card, signed with the publishing side's key and announced on the discovery topic; the HTTP card's own
 * JWS verified and recorded, a tampered one refused (or recorded as unverified when the policy says so); the agent's
 * bearer token sent; an agent that is down refused with a failure that says why.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { readAnnouncedCard } from '../../src/logos/card-reading.ts';
import { verifyLogosCard } from '../../src/logos/card-signature.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { bridgeHttpAgent, type PublishOptions } from '../../src/publish/publish.ts';
import { BRIDGED_HTTP_AGENT_EXTENSION } from '../../src/publish/bridged-card.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/free-port.ts';

let plain: HttpAgent;
let tampered: HttpAgent;
let guarded: HttpAgent;
const network = new MemoryNetwork();
let nodes = 0;
const node: PublishOptions['node'] = (id) => ({
  transport: network.node(`agent:${id}:${++nodes}`),
  cardKey: Uint8Array.from(randomBytes(32)),
});

beforeAll(async () => {
  [plain, tampered, guarded] = await Promise.all([
    startHttpAgent(),
    startHttpAgent(['--tamper']),
    startHttpAgent(['--bearer', 'sesame-0123456789']),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), tampered?.stop(), guarded?.stop()]);
});

const bridgedExtension = (card: { extensions: { uri: string; params?: Record<string, unknown> }[] }) =>
  card.extensions.find((extension) => extension.uri === BRIDGED_HTTP_AGENT_EXTENSION)?.params;

describe('publishing an HTTP agent', () => {
  it('announces a Logos card made from its card, signed for the agent, naming its origin and its verified JWS', async () => {
    const outcome = await bridgeHttpAgent({ url: plain.url, node });
    if (!outcome.ok) throw new Error(outcome.message);
    const { agent, origin } = outcome.published;
    expect(origin.signature).toMatchObject({ status: 'verified', alg: 'ES256' });

    const listener = network.node('listener');
    await listener.start();
    const heard: Uint8Array[] = [];
    const unsubscribe = listener.subscribe(DEFAULT_DISCOVERY_TOPIC, (payload) => heard.push(payload));
    await agent.start();
    try {
      const payload = await eventually(() => heard.at(-1));
      const json = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      // The HTTP card's signatures are not forwarded: they would not match the rewritten card.
      expect(json.signatures).toBeUndefined();
      // The in-process network's addresses are names: this listener reaches them.
      const reading = readAnnouncedCard(json, () => true);
      if (!reading.ok || 'unverified' in reading) throw new Error(`the announced card did not verify`);
      expect(verifyLogosCard(json).ok).toBe(true);
      const card = reading.card;
      expect(card.id).toBe('weather-desk');
      expect(card.name).toBe('Weather Desk');
      expect(card.version).toBe('2.1.0');
      expect(card.capabilities.streaming).toBe(true);
      expect(card.defaultInputModes).toEqual(['text/plain']);
      expect(card.skills.map((skill) => skill.id)).toEqual(['echo', 'greet']);
      expect(card.skills[0]).toMatchObject({ name: 'Echo', examples: ['hello'], tags: ['echo'] });
      expect(card.agentInterfaces[0]!.address).toBe(agent.card.agentInterfaces[0]!.address);
      expect(bridgedExtension(card)).toMatchObject({
        originUrl: plain.url,
        originInterface: { protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        originCardSignature: { status: 'verified', alg: 'ES256', jku: `${plain.url}/.well-known/jwks.json` },
      });
    } finally {
      unsubscribe();
      await agent.stop();
      await listener.stop();
    }
  });

  it('refuses a card that does not match its signature, and records it as unverified when told to', async () => {
    const refused = await bridgeHttpAgent({ url: tampered.url, node });
    expect(refused).toMatchObject({ ok: false });
    expect(!refused.ok && refused.message).toMatch(/does not match its signature/);

    const recorded = await bridgeHttpAgent({ url: tampered.url, node, cardPolicy: 'record' });
    if (!recorded.ok) throw new Error(recorded.message);
    expect(recorded.published.origin.signature).toMatchObject({ status: 'unverified', reason: 'bad-signature' });
    expect(bridgedExtension(recorded.published.agent.card)).toMatchObject({
      originCardSignature: { status: 'unverified', reason: 'bad-signature' },
    });
    expect(recorded.published.agent.card.description).toBe('Tampered after signing.');
  });

  it('requires a verified card under require-signature', async () => {
    const outcome = await bridgeHttpAgent({ url: tampered.url, node, cardPolicy: 'require-signature' });
    expect(!outcome.ok && outcome.message).toMatch(/signature/);
    expect((await bridgeHttpAgent({ url: plain.url, node, cardPolicy: 'require-signature' })).ok).toBe(true);
  });

  it("sends the agent's bearer token from the publishing configuration", async () => {
    const without = await bridgeHttpAgent({ url: guarded.url, node });
    expect(!without.ok && without.message).toMatch(/401/);
    const outcome = await bridgeHttpAgent({ url: guarded.url, node, auth: { bearer: 'sesame-0123456789' } });
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.published.origin.signature.status).toBe('verified');
  });

  it('refuses an agent that is down, saying why', async () => {
    const port = await freePort();
    const outcome = await bridgeHttpAgent({ url: `http://127.0.0.1:${port}`, node });
    expect(!outcome.ok && outcome.message).toMatch(/could not be had: .*ECONNREFUSED/);
  });
});
