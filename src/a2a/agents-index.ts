/**
 * `GET /agents`: the gateway's agent index, searchable and paged. Filters (all optional, combined with AND):
 *
 *   skill=ID        the agent has a skill with this id (exact)
 *   tag=TAG         one of its skills carries this tag (case-insensitive, exact)
 *   text=WORDS      case-insensitive substring of its name, description or one of its skill names
 *   maxPrice=N      at least one skill costs at most N LEZ base units (a skill's price is its own `x-lez-price`,
 *                   else the card's, else 0)
 *   online=true|false
 *   pageSize=1..100 (default 50), pageToken=… (the previous page's nextPageToken)
 *
 * Agents come in id order (code-point order), so pages are stable. A page token names the last id of the page it
 * follows (key-set paging): agents that join or leave between two requests never shift a page, and a token stays
 * good however long it is kept. Empty parameters (as an HTML form sends them) count as absent; other parameters are
 * ignored. The response follows A2A's list shape (ListTasks): `nextPageToken` is "" on the last page.
 *
 * Pure: no HTTP here. The route turns `{ok: false}` into a 400.
 */
import { z } from 'zod';
import { LezAmount, skillPrice, type LogosAgentCard } from '../logos/card.ts';
import type { DirectoryEntry } from '../logos/directory.ts';

/** What the index needs of the agent directory. `isOnline` is used when the caller passes none. */
export interface IndexedDirectory {
  all(): readonly DirectoryEntry[];
  lastSeen(id: string): Date | undefined;
  isOnline?(id: string): boolean;
}

export interface AgentsIndexOptions {
  /** The gateway's public base URL (a trailing slash is ignored). */
  publicBaseUrl: string;
  /** The request's query: `c.req.query()`, or a URLSearchParams (a repeated filter is then refused). */
  query: URLSearchParams | Readonly<Record<string, string | undefined>>;
  /** Default: the directory's own `isOnline`, else every agent counts as online. */
  isOnline?: (id: string) => boolean;
  /** When the agent's card signature was last verified (ISO time); undefined: not verified. */
  verifiedAt?: (id: string) => string | undefined;
}

export interface IndexSkill {
  id: string;
  name: string;
  /** LEZ base units per task, a decimal string; "0" is free. */
  price: string;
  tags: string[];
}

export interface IndexAgent {
  id: string;
  name: string;
  description: string;
  /** The agent's A2A endpoint (JSON-RPC and HTTP+JSON). */
  url: string;
  /** Its v1.0 agent card (`?v=0.3` for the v0.3 shape). */
  cardUrl: string;
  skills: IndexSkill[];
  /** Every tag of its skills, once each, in the order they first appear. */
  tags: string[];
  online: boolean;
  /** The card's signature was verified. */
  verified: boolean;
  /**
   * How it was verified, when it was: `bip340-sha256-jcs` (this binding's card signature), or a peer binding's
   * scheme (`Ed25519`, `ES256K pinned`, `BIP-340 JWS`); null when not verified.
   */
  cardScheme: string | null;
  /**
   * No documented rule vouches for its card (unsigned, or signed the seed's way): served only because the operator
   * allows unverified agents.
   */
  unverified: boolean;
  /** When its card was last heard or registered (ISO time), null when never. */
  lastSeen: string | null;
  /** Its LEZ account (`x-lez-identity.account_id`), where task payments go; null when it has none. */
  account: string | null;
}

export interface AgentsIndex {
  agents: IndexAgent[];
  /** Pass as `pageToken` for the next page; "" when this is the last page. */
  nextPageToken: string;
  /** How many agents match the filters, over all pages. */
  totalSize: number;
  /** The page size applied. */
  pageSize: number;
}

export type AgentsIndexResult = { ok: true; body: AgentsIndex } | { ok: false; message: string };

/** The filters, parsed: what the directory page shows back in its search form. */
export interface IndexFilters {
  skill?: string | undefined;
  tag?: string | undefined;
  text?: string | undefined;
  maxPrice?: string | undefined;
  online?: boolean | undefined;
  pageSize: number;
  pageToken?: string | undefined;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
export const QUERY_PARAMETERS = ['skill', 'tag', 'text', 'maxPrice', 'online', 'pageSize', 'pageToken'] as const;

const TOKEN_PREFIX = 'after:';

const IndexQuery = z.object({
  skill: z.string().max(128, 'at most 128 characters').optional(),
  tag: z.string().max(128, 'at most 128 characters').optional(),
  text: z.string().max(256, 'at most 256 characters').optional(),
  maxPrice: LezAmount.optional(),
  online: z.enum(['true', 'false'], { error: 'true or false' }).optional(),
  pageSize: z
    .string()
    .regex(/^\d{1,3}$/, `a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, `a whole number from 1 to ${MAX_PAGE_SIZE}`)
        .max(MAX_PAGE_SIZE, `a whole number from 1 to ${MAX_PAGE_SIZE}`),
    )
    .optional(),
  pageToken: z
    .string()
    .transform((token, ctx) => {
      const after = decodePageToken(token);
      if (after === undefined) {
        ctx.addIssue({ code: 'custom', message: 'not a token this gateway issued; start again without it' });
        return z.NEVER;
      }
      return after;
    })
    .optional(),
});

/** Parses and checks the query; `pageToken` comes back decoded (the id the page starts after). */
export function parseIndexQuery(
  query: AgentsIndexOptions['query'],
): { ok: true; filters: IndexFilters & { after?: string } } | { ok: false; message: string } {
  const raw: Record<string, string> = {};
  for (const name of QUERY_PARAMETERS) {
    let value: string | undefined;
    if (query instanceof URLSearchParams) {
      const values = query.getAll(name).filter((v) => v.trim() !== '');
      if (values.length > 1) return { ok: false, message: `Give the query parameter "${name}" once.` };
      value = values[0];
    } else {
      value = query[name];
    }
    const trimmed = value?.trim();
    if (trimmed) raw[name] = trimmed;
  }
  const parsed = IndexQuery.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'query');
    return { ok: false, message: `Bad query parameter "${name}": ${issue.message}.` };
  }
  const { online, pageSize, pageToken, ...rest } = parsed.data;
  return {
    ok: true,
    filters: {
      ...rest,
      ...(online !== undefined ? { online: online === 'true' } : {}),
      pageSize: pageSize ?? DEFAULT_PAGE_SIZE,
      ...(pageToken !== undefined ? { pageToken: raw.pageToken, after: pageToken } : {}),
    },
  };
}

/** The index for `GET /agents`: `{ok: true, body}` to send as JSON, or `{ok: false, message}` for a 400. */
export function agentsIndex(directory: IndexedDirectory, options: AgentsIndexOptions): AgentsIndexResult {
  const parsed = parseIndexQuery(options.query);
  if (!parsed.ok) return parsed;
  const { filters } = parsed;
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const isOnline = options.isOnline ?? (directory.isOnline ? (id: string) => directory.isOnline!(id) : () => true);
  const verifiedAt = options.verifiedAt ?? (() => undefined);

  const matching = directory
    .all()
    .map((entry) =>
      indexAgent(entry, base, isOnline(entry.id), verifiedAt(entry.id) !== undefined, directory.lastSeen(entry.id)),
    )
    .filter((agent) => matches(agent, filters))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const after = filters.after;
  const rest = after === undefined ? matching : matching.filter((agent) => agent.id > after);
  const page = rest.slice(0, filters.pageSize);
  const more = rest.length > page.length;
  return {
    ok: true,
    body: {
      agents: page,
      nextPageToken: more ? encodePageToken(page[page.length - 1]!.id) : '',
      totalSize: matching.length,
      pageSize: filters.pageSize,
    },
  };
}

/** One agent as the index lists it. */
export function indexAgent(
  entry: DirectoryEntry,
  publicBaseUrl: string,
  online: boolean,
  verified: boolean,
  lastSeen: Date | undefined,
): IndexAgent {
  const card: LogosAgentCard = entry.card;
  const url = `${publicBaseUrl.replace(/\/+$/, '')}/agents/${encodeURIComponent(entry.id)}`;
  const skills = card.skills.map((skill) => ({
    id: skill.id,
    name: skill.name,
    price: skillPrice(card, skill.id),
    tags: [...skill.tags],
  }));
  return {
    id: entry.id,
    name: card.name,
    description: card.description,
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    skills,
    tags: [...new Set(skills.flatMap((skill) => skill.tags))],
    online,
    verified,
    cardScheme: verified ? (entry.verified?.signature.alg ?? entry.peerVerified?.scheme ?? null) : null,
    unverified: entry.unverified !== undefined,
    lastSeen: lastSeen ? lastSeen.toISOString() : null,
    account: card['x-lez-identity']?.account_id ?? null,
  };
}

function matches(agent: IndexAgent, filters: IndexFilters): boolean {
  if (filters.skill !== undefined && !agent.skills.some((skill) => skill.id === filters.skill)) return false;
  if (filters.tag !== undefined) {
    const tag = filters.tag.toLowerCase();
    if (!agent.tags.some((t) => t.toLowerCase() === tag)) return false;
  }
  if (filters.text !== undefined) {
    const text = filters.text.toLowerCase();
    const haystacks = [agent.name, agent.description, ...agent.skills.map((skill) => skill.name)];
    if (!haystacks.some((h) => h.toLowerCase().includes(text))) return false;
  }
  if (filters.maxPrice !== undefined) {
    const max = BigInt(filters.maxPrice);
    if (!agent.skills.some((skill) => BigInt(skill.price) <= max)) return false;
  }
  if (filters.online !== undefined && agent.online !== filters.online) return false;
  return true;
}

function encodePageToken(lastId: string): string {
  return Buffer.from(`${TOKEN_PREFIX}${lastId}`, 'utf8').toString('base64url');
}

function decodePageToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return undefined;
  const text = Buffer.from(token, 'base64url').toString('utf8');
  if (!text.startsWith(TOKEN_PREFIX)) return undefined;
  const after = text.slice(TOKEN_PREFIX.length);
  return after === '' ? undefined : after;
}
