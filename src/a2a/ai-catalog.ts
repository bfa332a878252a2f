/**
 * `/.well-known/ai-catalog.json`: the agents this gateway serves as an AI Catalog (`application/ai-catalog+json`,
 * the discovery format of the AI Catalog working group that A2A points registries and crawlers to), at its
 * "discoverable" level: a host block, and one entry per agent naming its A2A agent card by URL. Everything else a
 * reader wants (name, skills, prices, interfaces) is in the card, so the entry does not repeat it.
 *
 * Listed: the agents whose card something vouches for (in-process agents, and heard cards whose signature was
 * verified). An agent served only because unverified agents are allowed is left out: a catalog is what crawlers
 * copy into registries, and nothing there would say that nobody checked who wrote the card.
 *
 * Pure: no HTTP here.
 */
import type { DirectoryEntry } from '../logos/directory.ts';

export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
const AI_CATALOG_SPEC_VERSION = '1.0';
const A2A_AGENT_CARD_TYPE = 'application/a2a-agent-card+json';

export interface AiCatalog {
  specVersion: string;
  host: { displayName: string; identifier: string; documentationUrl: string };
  entries: {
    identifier: string;
    type: string;
    url: string;
    tags?: string[];
    updatedAt: string;
  }[];
}

/** The catalog of `entries` as served under `publicBaseUrl` (a trailing slash is ignored). */
export function aiCatalog(entries: readonly DirectoryEntry[], publicBaseUrl: string): AiCatalog {
  const base = publicBaseUrl.replace(/\/+$/, '');
  // urn:air:{publisher}:{namespace}:{name}, the publisher a domain: the host name, without a port (colons separate
  // the URN's segments).
  const publisher = new URL(base).hostname;
  return {
    specVersion: AI_CATALOG_SPEC_VERSION,
    host: { displayName: `Logos agents at ${publisher}`, identifier: publisher, documentationUrl: `${base}/docs` },
    entries: entries
      .filter((entry) => entry.unverified === undefined)
      .map((entry) => {
        const tags = [...new Set(entry.card.skills.flatMap((skill) => skill.tags ?? []))];
        return {
          identifier: `urn:air:${publisher}:a2a:${entry.id}`,
          type: A2A_AGENT_CARD_TYPE,
          url: `${base}/agents/${entry.id}/.well-known/agent-card.json`,
          ...(tags.length > 0 ? { tags } : {}),
          updatedAt: entry.updatedAt.toISOString(),
        };
      })
      .sort((a, b) => (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0)),
  };
}
