/**
 * Export for public agent registries, one JSON file per agent in the format the registry imports (`--format`):
 *
 *   a2a-registry   the public A2A registry (a2aregistry.org): a v0.3-shaped agent card plus the registry's own keys,
 *                  below; the default
 *   agentcore      the AWS Agent Registry of Amazon Bedrock AgentCore: a `CreateRegistryRecord` input holding the
 *                  v0.3 card (agentcore-record.ts)
 *
 * `logos-a2a registry export` writes them from a running gateway; `registryEntries` builds the a2a-registry entries
 * from a directory in-process.
 *
 * Where each field comes from:
 *
 *   protocolVersion, name, description, url, preferredTransport, additionalInterfaces, provider, version,
 *   documentationUrl, iconUrl, capabilities, defaultInputModes, defaultOutputModes, skills
 *       the agent's v0.3 card exactly as the gateway serves it (`…/.well-known/agent-card.json?v=0.3`, built by
 *       projectLegacyCard), these keys only. `capabilities.extensions` keeps the Logos agent extension, which
 *       names the agent and its LEZ prices. Skills keep id, name, description, tags, examples, input/outputModes.
 *   wellKnownURI
 *       the agent's card URL from the gateway's index (`cardUrl`, the v1.0 card, under PUBLIC_BASE_URL). The registry
 *       fetches it and checks that its name and description equal the entry's; both card versions share them.
 *   author      (required by the registry)
 *       the card's `provider.organization`; else the `author` option (`--author`); else "<host> (Logos agent via
 *       logos-a2a)", the host of the agent's URL.
 *   pricing     (optional in the registry, a string there)
 *       from the Logos extension's LEZ prices: "free", or each skill's price per task in LEZ base units.
 *
 * Nothing else is added (no homepage, repository, license or contact: the gateway does not know them).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { LOGOS_AGENT_EXTENSION, projectLegacyCard } from '../a2a/card-projection.ts';
import { AGENT_ID_PATTERN } from '../logos/card.ts';
import type { DirectoryEntry } from '../logos/directory.ts';
import { projectSkills } from '../a2a/card-projection.ts';
import { agentCoreRecord } from './agentcore-record.ts';

/** The registries `registry export` writes for, by the name `--format` takes. */
export const REGISTRY_FORMATS = ['a2a-registry', 'agentcore'] as const;
export type RegistryFormat = (typeof REGISTRY_FORMATS)[number];

export interface RegistryEntry {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: string;
  additionalInterfaces?: unknown[];
  provider?: { organization: string; url: string };
  version: string;
  documentationUrl?: string;
  iconUrl?: string;
  capabilities: Record<string, unknown>;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: Record<string, unknown>[];
  wellKnownURI: string;
  author: string;
  pricing?: string;
}

export interface RegistryEntryOptions {
  /** The agent's card URL: the registry's `wellKnownURI`. */
  wellKnownURI: string;
  /** Used when the card names no provider. */
  author?: string | undefined;
}

/** The v0.3 card as far as the registry needs it; anything else in it is left out. */
const LegacyCard = z.object({
  protocolVersion: z.string().min(1),
  name: z.string().min(1),
  description: z.string(),
  url: z.string().url(),
  preferredTransport: z.string().min(1),
  additionalInterfaces: z.array(z.unknown()).optional(),
  provider: z.object({ organization: z.string(), url: z.string() }).optional(),
  version: z.string().min(1),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  capabilities: z.record(z.string(), z.unknown()),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      tags: z.array(z.string()).default([]),
      examples: z.array(z.string()).optional(),
      inputModes: z.array(z.string()).optional(),
      outputModes: z.array(z.string()).optional(),
    }),
  ),
});

const LezPrices = z.object({
  default: z.string().regex(/^\d+$/),
  perSkill: z.record(z.string(), z.string().regex(/^\d+$/)).default({}),
});

/** One registry entry from an agent's v0.3 card (throws, naming the field, when the card lacks what the registry needs). */
export function registryEntry(card: unknown, options: RegistryEntryOptions): RegistryEntry {
  const parsed = LegacyCard.safeParse(card);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the v0.3 card is not usable: ${issue.path.join('.') || 'card'}: ${issue.message}`);
  }
  const c = parsed.data;
  const pricing = pricingOf(c.capabilities, c.skills);
  return {
    protocolVersion: c.protocolVersion,
    name: c.name,
    description: c.description,
    url: c.url,
    preferredTransport: c.preferredTransport,
    ...(c.additionalInterfaces ? { additionalInterfaces: c.additionalInterfaces } : {}),
    ...(c.provider ? { provider: c.provider } : {}),
    version: c.version,
    ...(c.documentationUrl ? { documentationUrl: c.documentationUrl } : {}),
    ...(c.iconUrl ? { iconUrl: c.iconUrl } : {}),
    capabilities: c.capabilities,
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: projectSkills(c.skills),
    wellKnownURI: options.wellKnownURI,
    author: c.provider?.organization.trim() || options.author?.trim() || `${hostOf(c.url)} (Logos agent via logos-a2a)`,
    ...(pricing ? { pricing } : {}),
  };
}

export interface RegistryEntriesOptions {
  publicBaseUrl: string;
  author?: string;
  /**
   * The agent's v0.3 card as the gateway serves it; default `projectLegacyCard(entry.card, baseUrl)`. Pass what the
   * card route uses when it adds more (a verified signature in the Logos extension), so both exports agree.
   */
  legacyCard?: (entry: DirectoryEntry, baseUrl: string) => Record<string, unknown>;
}

/** Every agent of the directory as a registry entry, in id order. */
export function registryEntries(
  directory: { all(): readonly DirectoryEntry[] },
  options: RegistryEntriesOptions,
): RegistryEntry[] {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const legacyCard = options.legacyCard ?? ((entry: DirectoryEntry, url: string) => projectLegacyCard(entry.card, url));
  return [...directory.all()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((entry) => {
      const url = `${base}/agents/${encodeURIComponent(entry.id)}`;
      return registryEntry(legacyCard(entry, url), {
        wellKnownURI: `${url}/.well-known/agent-card.json`,
        author: options.author,
      });
    });
}

export interface RegistryExportOptions {
  /** Where the gateway answers (a trailing slash is ignored); its cards carry their public URLs themselves. */
  gatewayUrl: string;
  outDir: string;
  /** Default `a2a-registry`. */
  format?: RegistryFormat;
  /** a2a-registry only: the author of entries whose card names no provider. */
  author?: string;
  fetch?: typeof fetch;
  /** Progress lines (default: standard output) and problems (default: standard error). */
  out?: (line: string) => void;
  err?: (line: string) => void;
  timeoutMs?: number;
}

const IndexPage = z.object({
  agents: z.array(z.object({ id: z.string(), cardUrl: z.string().url() })),
  nextPageToken: z.string().optional(),
});

/**
 * `logos-a2a registry export`: reads the gateway's agent index (every page) and each agent's v0.3 card, and writes
 * `<outDir>/<agent id>.json` for each. Returns 0 when every agent was written, 1 when the gateway could not be read
 * or an agent could not be exported (the others are still written).
 */
export async function runRegistryExport(options: RegistryExportOptions): Promise<number> {
  const doFetch = options.fetch ?? fetch;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const timeoutMs = options.timeoutMs ?? 15_000;
  const gateway = options.gatewayUrl.replace(/\/+$/, '');

  const getJson = async (url: string): Promise<unknown> => {
    const response = await doFetch(url, {
      headers: { Accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    try {
      return await response.json();
    } catch {
      throw new Error(`GET ${url} did not answer JSON`);
    }
  };

  let agents: { id: string; cardUrl: string }[] = [];
  try {
    let token = '';
    const seen = new Set<string>();
    do {
      const url = `${gateway}/agents?pageSize=100${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
      const page = IndexPage.safeParse(await getJson(url));
      if (!page.success)
        throw new Error(
          `GET ${url} is not an agent index: ${page.error.issues[0]!.path.join('.')}: ${page.error.issues[0]!.message}`,
        );
      agents.push(...page.data.agents);
      token = page.data.nextPageToken ?? '';
      if (token && seen.has(token)) throw new Error(`GET ${url} repeated a page token`);
      seen.add(token);
    } while (token);
  } catch (error) {
    err(`registry export: could not read the agent index of ${gateway}: ${messageOf(error)}`);
    return 1;
  }
  agents = agents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (agents.length === 0) {
    out(`registry export: ${gateway} serves no agents; nothing written.`);
    return 0;
  }

  await mkdir(options.outDir, { recursive: true });
  let failed = 0;
  let local = 0;
  for (const agent of agents) {
    // The id names a file: only ids the gateway itself accepts, so nothing lands outside outDir.
    if (!AGENT_ID_PATTERN.test(agent.id)) {
      err(`registry export: skipped an agent with the id ${JSON.stringify(agent.id)}: not a valid agent id.`);
      failed++;
      continue;
    }
    try {
      const card = await getJson(`${gateway}/agents/${agent.id}/.well-known/agent-card.json?v=0.3`);
      const file = join(options.outDir, `${agent.id}.json`);
      if (options.format === 'agentcore') {
        const record = agentCoreRecord(card, agent.id);
        await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
        out(`wrote ${file}  ${record.name} (${agent.cardUrl})`);
        if (!isPublicUrl(agent.cardUrl)) local++;
        continue;
      }
      const entry = registryEntry(card, { wellKnownURI: agent.cardUrl, author: options.author });
      await writeFile(file, `${JSON.stringify(entry, null, 2)}\n`);
      out(`wrote ${file}  ${entry.name} (${entry.wellKnownURI})`);
      if (!isPublicUrl(entry.url) || !isPublicUrl(entry.wellKnownURI)) local++;
    } catch (error) {
      err(`registry export: agent ${agent.id}: ${messageOf(error)}`);
      failed++;
    }
  }
  const written = agents.length - failed;
  out(
    `registry export: ${written} of ${agents.length} ${agents.length === 1 ? 'agent' : 'agents'} written to ${options.outDir}.`,
  );
  if (local > 0) {
    err(
      options.format === 'agentcore'
        ? 'registry export: some URLs are not public (http, localhost or a private address); whoever finds the agents in the ' +
            'registry calls them there. Set PUBLIC_BASE_URL on the gateway to its public https address.'
        : 'registry export: some URLs are not public (http, localhost or a private address); the registry fetches wellKnownURI and ' +
            'accepts live, publicly reachable agents only. Set PUBLIC_BASE_URL on the gateway to its public https address.',
    );
  }
  return failed > 0 ? 1 : 0;
}

function pricingOf(capabilities: Record<string, unknown>, skills: { id: string; name: string }[]): string | undefined {
  const extensions = Array.isArray(capabilities.extensions) ? (capabilities.extensions as unknown[]) : [];
  const logos = extensions.find(
    (e): e is { params?: { lezPrice?: unknown } } =>
      typeof e === 'object' && e !== null && (e as { uri?: unknown }).uri === LOGOS_AGENT_EXTENSION,
  );
  const prices = LezPrices.safeParse(logos?.params?.lezPrice);
  if (!prices.success) return undefined;
  const priceOf = (id: string) => BigInt(prices.data.perSkill[id] ?? prices.data.default);
  if (skills.every((skill) => priceOf(skill.id) === 0n)) return 'free';
  const parts = skills.map((skill) => {
    const price = priceOf(skill.id);
    return `${skill.name} (${skill.id}): ${price === 0n ? 'free' : `${price} LEZ base units`}`;
  });
  return `Per task, paid in LEZ on the Logos network. ${parts.join('; ')}.`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function isPublicUrl(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    if (protocol !== 'https:') return false;
    const host = hostname.replace(/^\[|\]$/g, '');
    return !(
      host === 'localhost' ||
      host.endsWith('.localhost') ||
      host === '::1' ||
      /^127\./.test(host) ||
      /^10\./.test(host) ||
      /^192\.168\./.test(host) ||
      /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
      /^0\./.test(host)
    );
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error)
    return error.name === 'TimeoutError'
      ? 'timed out'
      : error.cause instanceof Error
        ? `${error.message} (${error.cause.message})`
        : error.message;
  return String(error);
}
