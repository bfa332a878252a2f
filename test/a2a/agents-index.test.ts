/** GET /agents: the searchable, paged agent index. */
import { describe, expect, it } from 'vitest';
import {
  agentsIndex,
  type AgentsIndex,
  type AgentsIndexOptions,
  type IndexedDirectory,
} from '../../src/a2a/agents-index.ts';
import { minimalCard } from '../support/cards.ts';
import { AgentDirectory } from '../../src/logos/directory.ts';

const BASE = 'https://gw.example.org/a2a';
const ACCOUNT = 'A'.repeat(44);
const SEEN = new Date('2026-05-01T12:00:00.000Z');

/** translator: paid (250 and 1000 by default); echo: free; weather: offline, card price 5 for every skill. */
function directory(): AgentDirectory {
  const d = new AgentDirectory();
  d.register(
    minimalCard({
      id: 'translator',
      name: 'Polyglot',
      description: 'Translates between languages.',
      'x-lez-price': '1000',
      'x-lez-identity': { account_id: ACCOUNT },
      skills: [
        { id: 'translate', name: 'Translate text', description: '', tags: ['Language', 'text'], 'x-lez-price': '250' },
        { id: 'detect', name: 'Detect language', description: '', tags: ['language'] },
      ],
    }),
    SEEN,
  );
  d.register(
    minimalCard({
      id: 'echo',
      name: 'Echo',
      description: 'Says it back.',
      skills: [{ id: 'echo', name: 'Echo', description: '', tags: ['demo'] }],
    }),
    SEEN,
  );
  d.register(
    minimalCard({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts for any city.',
      'x-lez-price': '5',
      'x-lez-identity': { account_id: ACCOUNT },
      skills: [{ id: 'forecast', name: 'Forecast', description: '', tags: ['weather'] }],
    }),
    SEEN,
  );
  return d;
}

const online = (id: string) => id !== 'weather';

function index(
  query: AgentsIndexOptions['query'],
  options: Partial<AgentsIndexOptions> = {},
  dir: IndexedDirectory = directory(),
): AgentsIndex {
  const result = agentsIndex(dir, { publicBaseUrl: BASE, query, isOnline: online, ...options });
  if (!result.ok) throw new Error(`unexpected error: ${result.message}`);
  return result.body;
}

const ids = (body: AgentsIndex) => body.agents.map((agent) => agent.id);

function error(query: AgentsIndexOptions['query']): string {
  const result = agentsIndex(directory(), { publicBaseUrl: BASE, query });
  if (result.ok) throw new Error('expected a bad query');
  return result.message;
}

describe('agent index', () => {
  it('lists every agent in id order with its skills, prices, tags, status and account', () => {
    const body = index({}, { verifiedAt: (id) => (id === 'translator' ? '2026-05-01T12:00:01.000Z' : undefined) });
    expect(ids(body)).toEqual(['echo', 'translator', 'weather']);
    expect(body.nextPageToken).toBe('');
    expect(body.totalSize).toBe(3);
    expect(body.pageSize).toBe(50);
    expect(body.agents[1]).toEqual({
      id: 'translator',
      name: 'Polyglot',
      description: 'Translates between languages.',
      url: `${BASE}/agents/translator`,
      cardUrl: `${BASE}/agents/translator/.well-known/agent-card.json`,
      skills: [
        { id: 'translate', name: 'Translate text', price: '250', tags: ['Language', 'text'] },
        { id: 'detect', name: 'Detect language', price: '1000', tags: ['language'] },
      ],
      tags: ['Language', 'text', 'language'],
      online: true,
      verified: true,
      unverified: false,
      // Verified by the listener's word alone here: the fixture's entry keeps no signature to name a scheme from.
      cardScheme: null,
      lastSeen: '2026-05-01T12:00:00.000Z',
      account: ACCOUNT,
    });
    expect(body.agents[0]).toMatchObject({ skills: [{ price: '0' }], verified: false, account: null });
    expect(body.agents[2]).toMatchObject({ skills: [{ price: '5' }], online: false });
  });

  it('a trailing slash on the public base URL changes nothing', () => {
    expect(index({}, { publicBaseUrl: `${BASE}/` }).agents[0]!.url).toBe(`${BASE}/agents/echo`);
  });

  it('filters by skill id (exact) and by tag (case-insensitive)', () => {
    expect(ids(index({ skill: 'translate' }))).toEqual(['translator']);
    expect(ids(index({ skill: 'Translate' }))).toEqual([]);
    expect(ids(index({ tag: 'LANGUAGE' }))).toEqual(['translator']);
    expect(ids(index({ tag: 'lang' }))).toEqual([]);
  });

  it('filters by text in the name, the description or a skill name, case-insensitively', () => {
    expect(ids(index({ text: 'polyGLOT' }))).toEqual(['translator']);
    expect(ids(index({ text: 'ANY CITY' }))).toEqual(['weather']);
    expect(ids(index({ text: 'detect lang' }))).toEqual(['translator']);
    expect(ids(index({ text: 'e' }))).toEqual(['echo', 'translator', 'weather']);
    // Not the id, not tags.
    expect(ids(index({ text: 'demo' }))).toEqual([]);
  });

  it('maxPrice keeps agents with at least one skill at or below it', () => {
    expect(ids(index({ maxPrice: '0' }))).toEqual(['echo']);
    expect(ids(index({ maxPrice: '5' }))).toEqual(['echo', 'weather']);
    expect(ids(index({ maxPrice: '249' }))).toEqual(['echo', 'weather']);
    expect(ids(index({ maxPrice: '250' }))).toEqual(['echo', 'translator', 'weather']);
    // u128 amounts compare exactly.
    expect(ids(index({ maxPrice: '340282366920938463463374607431768211455' }))).toHaveLength(3);
  });

  it('filters by online status; filters combine', () => {
    expect(ids(index({ online: 'false' }))).toEqual(['weather']);
    expect(ids(index({ online: 'true' }))).toEqual(['echo', 'translator']);
    expect(ids(index({ online: 'true', maxPrice: '300', tag: 'language' }))).toEqual(['translator']);
    expect(index({ online: 'true', maxPrice: '300', tag: 'language', text: 'echo' }).totalSize).toBe(0);
  });

  it('online defaults to the directory’s own isOnline, else to true', () => {
    const d = directory();
    const withLiveness: IndexedDirectory = {
      all: () => d.all(),
      lastSeen: (id) => d.lastSeen(id),
      isOnline: (id) => id === 'echo',
    };
    expect(index({ online: 'true' }, { isOnline: undefined }, withLiveness).agents.map((a) => a.id)).toEqual(['echo']);
    const bare: IndexedDirectory = { all: () => d.all(), lastSeen: () => undefined };
    const body = index({}, { isOnline: undefined }, bare);
    expect(body.agents.every((a) => a.online && a.lastSeen === null)).toBe(true);
  });

  it('empty and blank parameters count as absent (as a search form sends them); unknown ones are ignored', () => {
    expect(
      index({ skill: '', tag: ' ', text: '', maxPrice: '', online: '', pageSize: '', pageToken: '', other: 'x' })
        .totalSize,
    ).toBe(3);
    expect(index(new URLSearchParams('text=&online=&v=1')).totalSize).toBe(3);
    expect(ids(index(new URLSearchParams('text=%20echo%20')))).toEqual(['echo']);
  });

  it('pages by id with an opaque token; the last page has an empty token', () => {
    const d = directory();
    const first = index({ pageSize: '2' }, {}, d);
    expect(ids(first)).toEqual(['echo', 'translator']);
    expect(first.totalSize).toBe(3);
    expect(first.nextPageToken).not.toBe('');
    expect(first.nextPageToken).not.toContain('translator');
    const second = index({ pageSize: '2', pageToken: first.nextPageToken }, {}, d);
    expect(ids(second)).toEqual(['weather']);
    expect(second.nextPageToken).toBe('');
    // A page does not shift when an agent joins before it.
    d.register(minimalCard({ id: 'aardvark' }), SEEN);
    expect(ids(index({ pageSize: '2', pageToken: first.nextPageToken }, {}, d))).toEqual(['weather']);
    // Filters apply within pages, and one page can hold everything.
    expect(ids(index({ pageSize: '1', online: 'true' }, {}, d))).toEqual(['aardvark']);
    expect(index({ pageSize: '100' }, {}, d).nextPageToken).toBe('');
  });

  it('walking every page yields every agent once, in order', () => {
    const d = new AgentDirectory();
    const all = Array.from({ length: 23 }, (_, i) => `agent-${String(i).padStart(2, '0')}`);
    for (const id of [...all].reverse()) d.register(minimalCard({ id }), SEEN);
    const walked: string[] = [];
    let token = '';
    do {
      const page = index({ pageSize: '5', ...(token ? { pageToken: token } : {}) }, {}, d);
      walked.push(...ids(page));
      token = page.nextPageToken;
    } while (token);
    expect(walked).toEqual(all);
  });

  it.each([
    [{ pageSize: '0' }, /"pageSize".*1 to 100/],
    [{ pageSize: '101' }, /"pageSize".*1 to 100/],
    [{ pageSize: '1.5' }, /"pageSize"/],
    [{ pageSize: 'ten' }, /"pageSize"/],
    [{ maxPrice: '-1' }, /"maxPrice".*decimal string of base units/],
    [{ maxPrice: '1.5' }, /"maxPrice"/],
    [{ maxPrice: '1e3' }, /"maxPrice"/],
    [{ online: 'yes' }, /"online".*true or false/],
    [{ pageToken: 'not a token' }, /"pageToken".*not a token this gateway issued/],
    [{ pageToken: Buffer.from('something else').toString('base64url') }, /"pageToken"/],
    [{ text: 'x'.repeat(257) }, /"text".*256/],
  ])('refuses %o', (query, message) => {
    expect(error(query as Record<string, string>)).toMatch(message);
  });

  it('refuses a filter given twice', () => {
    expect(error(new URLSearchParams('tag=a&tag=b'))).toMatch(/"tag" once/);
  });
});
