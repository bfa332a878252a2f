/**
 * The registry exports: a2a-registry entries from a directory, AgentCore registry records checked against the
 * documented shape of CreateRegistryRecord, and `logos-a2a registry export` against a gateway over HTTP.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentsIndex } from '../../src/a2a/agents-index.ts';
import { projectCard, projectLegacyCard } from '../../src/a2a/card-projection.ts';
import { LogosAgentCard, type LogosAgentCardInput } from '../../src/logos/card.ts';
import { AgentDirectory } from '../../src/logos/directory.ts';
import { registryEntries, registryEntry, runRegistryExport } from '../../src/cli/registry-export.ts';
import { agentCoreRecord, AGENTCORE_INLINE_CONTENT_MAX } from '../../src/cli/agentcore-record.ts';

const BASE = 'https://gw.example.org';

function card(input: Partial<LogosAgentCardInput> & { id: string }): LogosAgentCard {
  return LogosAgentCard.parse({
    name: input.id,
    description: `The ${input.id} agent.`,
    version: '1.2.0',
    skills: [{ id: 'main', name: 'Main', description: 'Does it.', tags: ['demo'] }],
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: `agent:${input.id}` }],
    ...input,
  });
}

function directory(): AgentDirectory {
  const d = new AgentDirectory();
  d.register(
    card({
      id: 'echo',
      name: 'Echo',
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: ['demo'], examples: ['hi'] }],
    }),
  );
  d.register(
    card({
      id: 'shop',
      name: 'Shop',
      provider: { organization: 'Acme Labs', url: 'https://acme.example' },
      documentationUrl: 'https://acme.example/docs',
      'x-lez-price': '10',
      'x-lez-identity': { account_id: 'A'.repeat(44) },
      skills: [
        { id: 'quick', name: 'Quick', description: 'Fast.', tags: [] },
        { id: 'dear', name: 'Dear', description: 'Slow and costly.', tags: ['premium'], 'x-lez-price': '5000' },
        { id: 'gift', name: 'Gift', description: 'On the house.', tags: [], 'x-lez-price': '0' },
      ],
    }),
  );
  return d;
}

const REGISTRY_REQUIRED = [
  'protocolVersion',
  'name',
  'description',
  'url',
  'version',
  'capabilities',
  'skills',
  'defaultInputModes',
  'defaultOutputModes',
  'author',
  'wellKnownURI',
];

describe('registryEntries', () => {
  it('gives one entry per agent, in id order, with every field the registry requires', () => {
    const entries = registryEntries(directory(), { publicBaseUrl: `${BASE}/` });
    expect(entries.map((e) => e.name)).toEqual(['Echo', 'Shop']);
    for (const entry of entries) {
      for (const field of REGISTRY_REQUIRED) expect(entry, field).toHaveProperty(field);
      for (const skill of entry.skills)
        expect(Object.keys(skill)).toEqual(expect.arrayContaining(['id', 'name', 'description', 'tags']));
    }
  });

  it('copies the v0.3 card fields, adds wellKnownURI and author, and prices', () => {
    const [echo, shop] = registryEntries(directory(), { publicBaseUrl: BASE });
    expect(echo).toEqual({
      protocolVersion: '0.3.0',
      name: 'Echo',
      description: 'The echo agent.',
      url: `${BASE}/agents/echo`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: `${BASE}/agents/echo`, transport: 'JSONRPC' },
        { url: `${BASE}/agents/echo`, transport: 'HTTP+JSON' },
      ],
      version: '1.2.0',
      capabilities: expect.objectContaining({
        streaming: true,
        pushNotifications: true,
        stateTransitionHistory: false,
      }),
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: ['demo'], examples: ['hi'] }],
      wellKnownURI: `${BASE}/agents/echo/.well-known/agent-card.json`,
      author: 'gw.example.org (Logos agent via logos-a2a)',
      pricing: 'free',
    });
    // Not copied: v0.3 keys the registry does not use.
    expect(echo).not.toHaveProperty('supportsAuthenticatedExtendedCard');
    expect(shop!.author).toBe('Acme Labs');
    expect(shop!.provider).toEqual({ organization: 'Acme Labs', url: 'https://acme.example' });
    expect(shop!.documentationUrl).toBe('https://acme.example/docs');
    expect(shop!.pricing).toBe(
      'Per task, paid in LEZ on the Logos network. Quick (quick): 10 LEZ base units; Dear (dear): 5000 LEZ base units; Gift (gift): free.',
    );
    // The Logos extension (agent id, prices) stays in the capabilities.
    expect(JSON.stringify(shop!.capabilities)).toContain('urn:logos-a2a:ext:logos-agent:v1');
  });

  it('the author option is used when the card names no provider', () => {
    const [echo, shop] = registryEntries(directory(), { publicBaseUrl: BASE, author: 'Logos Collective' });
    expect(echo!.author).toBe('Logos Collective');
    expect(shop!.author).toBe('Acme Labs');
  });

  it('name and description equal those of the v1.0 card at wellKnownURI (the registry compares them)', () => {
    const d = directory();
    for (const entry of registryEntries(d, { publicBaseUrl: BASE })) {
      const id = entry.url.split('/').pop()!;
      const v1 = projectCard(d.get(id)!.card, entry.url);
      expect([entry.name, entry.description]).toEqual([v1.name, v1.description]);
    }
  });

  it('takes the v0.3 card from the card route’s projector when given one', () => {
    const [echo] = registryEntries(directory(), {
      publicBaseUrl: BASE,
      legacyCard: (entry, url) => ({ ...projectLegacyCard(entry.card, url), description: 'as served' }),
    });
    expect(echo!.description).toBe('as served');
  });

  it('a card missing a field the registry needs is refused with the field named', () => {
    const legacy = projectLegacyCard(card({ id: 'x' }), `${BASE}/agents/x`);
    const { version: _version, ...withoutVersion } = legacy;
    expect(() =>
      registryEntry(withoutVersion, { wellKnownURI: `${BASE}/agents/x/.well-known/agent-card.json` }),
    ).toThrow(/version/);
    expect(() => registryEntry({ ...legacy, url: 'not a url' }, { wellKnownURI: 'x' })).toThrow(/url/);
  });
});

/**
 * The input of CreateRegistryRecord (bedrock-agentcore-control API reference) as `--cli-input-json` takes it, less
 * `registryId` (given on the command line): the members, their types, patterns and lengths as documented. Strict: a
 * member the operation does not define is refused by the CLI.
 */
const CreateRegistryRecordInput = z.strictObject({
  clientToken: z.string().optional(),
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[a-zA-Z0-9][a-zA-Z0-9_\-./]*$/),
  description: z.string().min(1).max(4096).optional(),
  descriptorType: z.enum(['MCP', 'A2A', 'CUSTOM', 'AGENT_SKILLS']),
  descriptors: z.strictObject({
    a2a: z.strictObject({
      agentCard: z.strictObject({
        inlineContent: z.string().min(1).max(102_400),
        schemaVersion: z.string().min(1).max(255),
      }),
    }),
  }),
  recordVersion: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[a-zA-Z0-9.-]+$/)
    .optional(),
});

describe('agentCoreRecord (the AWS Agent Registry of Bedrock AgentCore)', () => {
  const legacyCardOf = (id: string, d = directory()) => projectLegacyCard(d.get(id)!.card, `${BASE}/agents/${id}`);

  it('is a CreateRegistryRecord input as documented, holding the v0.3 card as served', () => {
    for (const id of ['echo', 'shop']) {
      const served = legacyCardOf(id);
      const record = CreateRegistryRecordInput.parse(agentCoreRecord(served, id));
      expect(record).toMatchObject({
        name: id,
        description: served.description,
        descriptorType: 'A2A',
        descriptors: { a2a: { agentCard: { schemaVersion: '0.3.0' } } },
        recordVersion: '1.2.0',
      });
      expect(JSON.parse(record.descriptors.a2a.agentCard.inlineContent)).toEqual(served);
    }
  });

  it('leaves out what the registry would refuse: an empty description, a version outside its pattern', () => {
    const d = new AgentDirectory();
    d.register(card({ id: 'plain', description: '', version: '1.0 beta' }));
    const record = CreateRegistryRecordInput.parse(agentCoreRecord(legacyCardOf('plain', d), 'plain'));
    expect(record).not.toHaveProperty('description');
    expect(record).not.toHaveProperty('recordVersion');
  });

  it('refuses a card longer than the registry takes, naming the limit', () => {
    const served = legacyCardOf('echo');
    const long = { ...served, description: 'x'.repeat(AGENTCORE_INLINE_CONTENT_MAX) };
    expect(() => agentCoreRecord(long, 'echo')).toThrow(/at most 102400/);
    expect(() => agentCoreRecord({ name: 'no version' }, 'echo')).toThrow(/protocolVersion/);
  });
});

describe('runRegistryExport', () => {
  let dir: string;
  let lines: string[];
  let problems: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'registry-export-'));
    lines = [];
    problems = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * A stand-in gateway: the real index (forced to pages of one, to exercise paging) and the real v0.3 cards, served
   * by Hono; `gatewayUrl` differs from the public base URL, as when exporting from inside a deployment.
   */
  function gateway(d = directory(), tweak: (app: Hono) => void = () => undefined) {
    const app = new Hono();
    const requests: string[] = [];
    tweak(app);
    app.get('/agents', (c) => {
      const result = agentsIndex(d, { publicBaseUrl: BASE, query: { ...c.req.query(), pageSize: '1' } });
      return result.ok ? c.json(result.body) : c.json({ error: result.message }, 400);
    });
    app.get('/agents/:id/.well-known/agent-card.json', (c) => {
      const entry = d.get(c.req.param('id'));
      if (!entry) return c.json({ error: 'no such agent' }, 404);
      const url = `${BASE}/agents/${entry.id}`;
      return c.json(c.req.query('v') === '0.3' ? projectLegacyCard(entry.card, url) : projectCard(entry.card, url));
    });
    const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      requests.push(new URL(request.url).pathname + new URL(request.url).search);
      return app.fetch(request);
    }) as typeof fetch;
    return { fetchFn, requests };
  }

  const run = (fetchFn: typeof fetch, extra: { author?: string; format?: 'a2a-registry' | 'agentcore' } = {}) =>
    runRegistryExport({
      gatewayUrl: 'http://10.0.0.5:8080/',
      outDir: join(dir, 'out'),
      fetch: fetchFn,
      out: (l) => lines.push(l),
      err: (l) => problems.push(l),
      ...extra,
    });

  it('reads every page of the index and each v0.3 card, and writes <id>.json per agent', async () => {
    const { fetchFn, requests } = gateway();
    expect(await run(fetchFn)).toBe(0);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['echo.json', 'shop.json']);
    // The files hold exactly what registryEntries builds in-process.
    const expected = registryEntries(directory(), { publicBaseUrl: BASE });
    expect(JSON.parse(readFileSync(join(dir, 'out', 'echo.json'), 'utf8'))).toEqual(expected[0]);
    expect(JSON.parse(readFileSync(join(dir, 'out', 'shop.json'), 'utf8'))).toEqual(expected[1]);
    expect(readFileSync(join(dir, 'out', 'echo.json'), 'utf8')).toMatch(
      /^\{\n {2}"protocolVersion": "0.3.0",[\s\S]*\}\n$/,
    );
    expect(requests.filter((r) => r.startsWith('/agents?'))).toHaveLength(2);
    expect(requests).toContain('/agents/shop/.well-known/agent-card.json?v=0.3');
    expect(lines.join('\n')).toMatch(
      /wrote .*echo\.json {2}Echo \(https:\/\/gw\.example\.org\/agents\/echo\/\.well-known\/agent-card\.json\)/,
    );
    expect(lines.at(-1)).toMatch(/2 of 2 agents written/);
    expect(problems).toEqual([]);
  });

  it('--format agentcore writes one CreateRegistryRecord input per agent, its card the one served', async () => {
    const { fetchFn } = gateway();
    expect(await run(fetchFn, { format: 'agentcore' })).toBe(0);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['echo.json', 'shop.json']);
    for (const id of ['echo', 'shop']) {
      const record = CreateRegistryRecordInput.parse(JSON.parse(readFileSync(join(dir, 'out', `${id}.json`), 'utf8')));
      expect(record.name).toBe(id);
      expect(JSON.parse(record.descriptors.a2a.agentCard.inlineContent)).toEqual(
        projectLegacyCard(directory().get(id)!.card, `${BASE}/agents/${id}`),
      );
    }
    expect(lines.at(-1)).toMatch(/2 of 2 agents written/);
    expect(problems).toEqual([]);
  });

  it('passes --author through', async () => {
    const { fetchFn } = gateway();
    expect(await run(fetchFn, { author: 'Logos Collective' })).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'out', 'echo.json'), 'utf8')).author).toBe('Logos Collective');
  });

  it('warns when the agents’ URLs are not public', async () => {
    const { fetchFn } = gateway();
    const local = (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetchFn(input, init);
      const text = (await response.text()).replaceAll(BASE, 'http://localhost:8080');
      return new Response(text, { status: response.status, headers: response.headers });
    }) as typeof fetch;
    expect(await run(local)).toBe(0);
    expect(problems.join('\n')).toMatch(/not public.*PUBLIC_BASE_URL/s);
  });

  it('an unreachable gateway or a non-index answer exits 1 and writes nothing', async () => {
    const down = (async () => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.5:8080') });
    }) as typeof fetch;
    expect(await run(down)).toBe(1);
    expect(problems[0]).toMatch(
      /could not read the agent index of http:\/\/10\.0\.0\.5:8080: fetch failed \(connect ECONNREFUSED/,
    );
    const html = (async () =>
      new Response('<html></html>', { status: 200, headers: { 'Content-Type': 'text/html' } })) as typeof fetch;
    expect(await run(html)).toBe(1);
    expect(problems[1]).toMatch(/did not answer JSON/);
    expect(() => readdirSync(join(dir, 'out'))).toThrow();
  });

  it('an agent whose card fails is reported; the others are still written; exit 1', async () => {
    const { fetchFn } = gateway(directory(), (app) =>
      app.get('/agents/echo/.well-known/agent-card.json', (c) => c.json({ error: 'boom' }, 500)),
    );
    expect(await run(fetchFn)).toBe(1);
    expect(readdirSync(join(dir, 'out'))).toEqual(['shop.json']);
    expect(problems).toEqual([
      expect.stringMatching(/agent echo: GET .*echo\/\.well-known\/agent-card\.json\?v=0\.3 answered 500/),
    ]);
    expect(lines.at(-1)).toMatch(/1 of 2 agents written/);
  });

  it('never writes outside outDir, whatever ids the index names', async () => {
    const fetchFn = (async (input: string | URL | Request) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === '/agents')
        return Response.json({
          agents: [{ id: '../escape', cardUrl: `${BASE}/agents/x/.well-known/agent-card.json` }],
        });
      return Response.json(projectLegacyCard(card({ id: 'x' }), `${BASE}/agents/x`));
    }) as typeof fetch;
    expect(await run(fetchFn)).toBe(1);
    expect(problems[0]).toMatch(/skipped an agent with the id "\.\.\/escape"/);
    expect(readdirSync(dir)).toEqual(['out']);
    expect(readdirSync(join(dir, 'out'))).toEqual([]);
  });

  it('works against an index without paging fields (an older gateway) and an empty one', async () => {
    const d = directory();
    const old = (async (input: string | URL | Request) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === '/agents') {
        return Response.json({
          agents: d.all().map((e) => ({
            id: e.id,
            name: e.card.name,
            cardUrl: `${BASE}/agents/${e.id}/.well-known/agent-card.json`,
          })),
        });
      }
      const id = url.pathname.split('/')[2]!;
      return Response.json(projectLegacyCard(d.get(id)!.card, `${BASE}/agents/${id}`));
    }) as typeof fetch;
    expect(await run(old)).toBe(0);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['echo.json', 'shop.json']);
    const empty = (async () => Response.json({ agents: [], nextPageToken: '' })) as typeof fetch;
    expect(await run(empty)).toBe(0);
    expect(lines.at(-1)).toMatch(/serves no agents; nothing written/);
  });
});
