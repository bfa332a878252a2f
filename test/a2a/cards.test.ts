/** Agent cards: pure v1.0 by default, v0.3 on request, cache validators, CORS, URLs from the public base. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { verifyProjectedCard } from '../../src/a2a/card-jws.ts';
import { startTestBed, type TestBed } from '../support/gateway.ts';

const PUBLIC = 'https://agents.example.org/a2a';
let bed: TestBed;
beforeAll(
  async () => (bed = await startTestBed({ config: { publicBaseUrl: `${PUBLIC}/`, defaultAgent: 'conformance' } })),
);
afterAll(() => bed.close());

const V1_FIELDS = [
  'name',
  'description',
  'supportedInterfaces',
  'provider',
  'version',
  'documentationUrl',
  'capabilities',
  'securitySchemes',
  'securityRequirements',
  'defaultInputModes',
  'defaultOutputModes',
  'skills',
  'signatures',
  'iconUrl',
];

// Cards are plain GETs: the app is called in-process, no socket needed.
const get = (path: string, headers: Record<string, string> = {}) => bed.gateway.app.request(path, { headers });

describe('agent cards', () => {
  it('the root serves the default agent; A2A-Version: 1.0 (or ?v=1.0) gets the pure v1.0 card with public interface URLs', async () => {
    for (const response of [
      await get('/.well-known/agent-card.json', { 'A2A-Version': '1.0' }),
      await get('/.well-known/agent-card.json?v=1.0'),
    ]) {
      expect(response.status).toBe(200);
      const card = await response.json();
      expect(Object.keys(card).filter((key) => !V1_FIELDS.includes(key))).toEqual([]);
      expect(card.name).toBe('A2A conformance agent');
      expect(card.supportedInterfaces).toEqual([
        { url: PUBLIC, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: PUBLIC, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ]);
      expect(card.capabilities).toMatchObject({ streaming: true });
      // It round-trips through the SDK's strict codec unchanged.
      expect(AgentCard.toJSON(AgentCard.fromJSON(card))).toEqual(card);
    }
  });

  it('a client that names no version gets the union card: every v1.0 field plus the v0.3 ones', async () => {
    const card = await (await get('/agents/echo/.well-known/agent-card.json')).json();
    const v1 = await (await get('/agents/echo/.well-known/agent-card.json?v=1.0')).json();
    const { signatures: _u, protocolVersion, url, preferredTransport, additionalInterfaces, ...v1Part } = card;
    const { signatures: _v, ...v1Rest } = v1;
    expect(v1Part).toEqual(v1Rest);
    expect({ protocolVersion, url, preferredTransport }).toEqual({
      protocolVersion: '0.3.0',
      url: `${PUBLIC}/agents/echo`,
      preferredTransport: 'JSONRPC',
    });
    expect(additionalInterfaces).toEqual([
      { url: `${PUBLIC}/agents/echo`, transport: 'JSONRPC' },
      { url: `${PUBLIC}/agents/echo`, transport: 'HTTP+JSON' },
    ]);
  });

  it('each agent has its own card at /agents/{id}/ with its own interface URLs', async () => {
    const card = await (await get('/agents/echo/.well-known/agent-card.json')).json();
    expect(card.name).toBe('Echo');
    expect(card.supportedInterfaces[0].url).toBe(`${PUBLIC}/agents/echo`);
    const extension = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    );
    expect(extension.params).toMatchObject({ agentId: 'echo', lezPrice: { default: '0' } });
  });

  it('a v0.3-shaped card on A2A-Version: 0.3 or ?v=0.3', async () => {
    for (const response of [
      await get('/agents/echo/.well-known/agent-card.json?v=0.3'),
      await get('/agents/echo/.well-known/agent-card.json', { 'A2A-Version': '0.3' }),
    ]) {
      const card = await response.json();
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        url: `${PUBLIC}/agents/echo`,
        preferredTransport: 'JSONRPC',
      });
      expect(card.supportedInterfaces).toBeUndefined();
    }
  });

  it('every shape is signed, and the official SDK verifier accepts each against the JWKS', async () => {
    const jwks = await (await get('/.well-known/jwks.json')).json();
    for (const query of ['', '?v=1.0', '?v=0.3']) {
      const card = await (await get(`/agents/echo/.well-known/agent-card.json${query}`)).json();
      expect(card.signatures.length).toBeGreaterThan(0);
      await verifyAgentCardSignature(async (kid) => jwks.keys.find((key: { kid: string }) => key.kid === kid))(
        AgentCard.fromJSON(card),
      );
      // The gateway's own rule covers the whole served card, v0.3 members included.
      expect(verifyProjectedCard(card, jwks), query).toMatchObject({ ok: true });
      expect(verifyProjectedCard({ ...card, url: 'https://evil.example' }, jwks).ok).toBe(false);
    }
  });

  it('ETag and Last-Modified revalidate to 304; the variants have different ETags', async () => {
    const first = await get('/agents/echo/.well-known/agent-card.json');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get('cache-control')).toMatch(/max-age/);
    expect(first.headers.get('vary')).toMatch(/A2A-Version/);
    const lastModified = first.headers.get('last-modified')!;
    expect(Date.parse(lastModified)).not.toBeNaN();
    expect((await get('/agents/echo/.well-known/agent-card.json', { 'If-None-Match': etag })).status).toBe(304);
    expect((await get('/agents/echo/.well-known/agent-card.json', { 'If-Modified-Since': lastModified })).status).toBe(
      304,
    );
    const legacy = await get('/agents/echo/.well-known/agent-card.json?v=0.3', { 'If-None-Match': etag });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('etag')).not.toBe(etag);
  });

  it('CORS lets browsers read cards and call the API', async () => {
    const card = await get('/.well-known/agent-card.json', { Origin: 'https://app.example' });
    expect(card.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await bed.gateway.app.request('/', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,a2a-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/A2A-Version/i);
  });

  it('the OpenAPI document is served with this gateway as its server', async () => {
    const document = await (await get('/openapi.json')).json();
    expect(document.openapi).toMatch(/^3\.1/);
    expect(document.servers[0].url).toBe(PUBLIC);
  });

  it('/agents lists the agents with their card URLs', async () => {
    const { agents } = await (await get('/agents')).json();
    expect(agents.map((a: { id: string }) => a.id).sort()).toEqual(['conformance', 'echo']);
    expect(agents[0].cardUrl).toMatch(new RegExp(`^${PUBLIC}/agents/`));
  });
});

describe('card shapes and security', () => {
  let keyed: TestBed;
  beforeAll(
    async () =>
      (keyed = await startTestBed({
        config: { cardShape: 'v1', apiKeys: [{ name: 'alice', key: 'alice-key-0123456789' }] },
      })),
  );
  afterAll(() => keyed.close());
  const cardOf = async (query = '') =>
    (await keyed.gateway.app.request(`/agents/echo/.well-known/agent-card.json${query}`)).json();

  it('cardShape v1 serves the pure v1.0 card to a client that names no version', async () => {
    const card = await cardOf();
    expect(card.url).toBeUndefined();
    expect(Object.keys(card).filter((key) => !V1_FIELDS.includes(key))).toEqual([]);
  });

  it("with API keys, each shape declares the bearer scheme in its own generation's form", async () => {
    const v1 = await cardOf('?v=1.0');
    expect(v1.securitySchemes.apiKey.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(Object.keys(v1.securityRequirements[0].schemes)).toEqual(['apiKey']);
    const v03 = await cardOf('?v=0.3');
    expect(v03.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(v03.security).toEqual([{ apiKey: [] }]);
  });

  it('the union card carries both forms side by side', async () => {
    const union = await (await get('/agents/echo/.well-known/agent-card.json')).json();
    expect(union.security).toBeUndefined(); // the open gateway
    const bedWithKeys = await startTestBed({ config: { apiKeys: [{ name: 'bob', key: 'bob-key-0123456789ab' }] } });
    try {
      const card = await (await bedWithKeys.gateway.app.request('/.well-known/agent-card.json')).json();
      expect(card.securitySchemes.apiKey).toMatchObject({
        httpAuthSecurityScheme: { scheme: 'Bearer' },
        type: 'http',
        scheme: 'bearer',
      });
      expect(card.security).toEqual([{ apiKey: [] }]);
      expect(Object.keys(card.securityRequirements[0].schemes)).toEqual(['apiKey']);
      expect(AgentCard.fromJSON(card).securitySchemes.apiKey?.scheme?.$case).toBe('httpAuthSecurityScheme');
    } finally {
      await bedWithKeys.close();
    }
  });
});
