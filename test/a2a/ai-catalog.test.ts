/**
 * `/.well-known/ai-catalog.json`: the served agents as an AI Catalog, checked against the catalog format's rules for
 * a discoverable catalog, and every entry's card fetched from where it points.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiCatalog } from '../../src/a2a/ai-catalog.ts';
import { LogosAgentCard } from '../../src/logos/card.ts';
import type { DirectoryEntry } from '../../src/logos/directory.ts';
import { startTestBed, type TestBed } from '../support/gateway.ts';

/** The AI Catalog's rules for a discoverable catalog (level 2): what a crawler may rely on. */
const DiscoverableCatalog = z.object({
  specVersion: z.string().regex(/^\d+\.\d+$/),
  host: z.object({ displayName: z.string().min(1), identifier: z.string().optional() }),
  entries: z.array(
    z
      .object({
        identifier: z.string().min(1),
        type: z.string().min(1),
        url: z.url().optional(),
        data: z.unknown().optional(),
        tags: z.array(z.string()).optional(),
        updatedAt: z.iso.datetime().optional(),
      })
      .refine((entry) => (entry.url === undefined) !== (entry.data === undefined), 'exactly one of url and data'),
  ),
});

describe('the AI Catalog a gateway serves', () => {
  let bed: TestBed;
  beforeAll(async () => (bed = await startTestBed()));
  afterAll(() => bed.close());

  it('lists every served agent by its card URL, in the catalog format', async () => {
    const response = await fetch(`${bed.gateway.url}/.well-known/ai-catalog.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const catalog = DiscoverableCatalog.parse(await response.json());
    expect(catalog.specVersion).toBe('1.0');
    expect(catalog.entries.map((entry) => entry.identifier)).toEqual([
      'urn:air:localhost:a2a:conformance',
      'urn:air:localhost:a2a:echo',
    ]);
    for (const entry of catalog.entries) {
      expect(entry.type).toBe('application/a2a-agent-card+json');
      const card = await (await fetch(entry.url!)).json();
      expect(card.supportedInterfaces[0].url).toBe(entry.url!.replace('/.well-known/agent-card.json', ''));
    }
    expect(catalog.entries.find((entry) => entry.identifier.endsWith(':echo'))?.tags).toEqual(['demo', 'echo']);
  });

  it('is linked from the directory page', async () => {
    const page = await fetch(`${bed.gateway.url}/`, { headers: { Accept: 'text/html' } });
    expect(page.headers.get('link')).toBe(
      '</.well-known/ai-catalog.json>; rel="ai-catalog"; type="application/ai-catalog+json"',
    );
  });
});

describe('aiCatalog', () => {
  const entry = (id: string, extra: Partial<DirectoryEntry> = {}): DirectoryEntry => ({
    id,
    card: LogosAgentCard.parse({
      id,
      name: id,
      description: 'd',
      version: '1',
      skills: [{ id: 's', name: 's', description: 's' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'a' }],
    }),
    address: 'a',
    updatedAt: new Date('2026-12-06T12:00:00Z'),
    ...extra,
  });

  it('leaves out agents nothing vouches for, and names the host without its port', () => {
    const catalog = aiCatalog(
      [entry('b'), entry('a'), entry('seed', { unverified: { reason: 'unsigned' } })],
      'https://gw.example.org:8443/',
    );
    expect(catalog.host).toEqual({
      displayName: 'Logos agents at gw.example.org',
      identifier: 'gw.example.org',
      documentationUrl: 'https://gw.example.org:8443/docs',
    });
    expect(catalog.entries).toEqual([
      {
        identifier: 'urn:air:gw.example.org:a2a:a',
        type: 'application/a2a-agent-card+json',
        url: 'https://gw.example.org:8443/agents/a/.well-known/agent-card.json',
        updatedAt: '2026-12-06T12:00:00.000Z',
      },
      expect.objectContaining({ identifier: 'urn:air:gw.example.org:a2a:b' }),
    ]);
  });
});
