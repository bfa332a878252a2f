/**
 * The Logos card of a published HTTP agent, made from its A2A card: its name, skills, modes and streaming, with one
 * extension that says it is a bridged HTTP agent, where it lives and what its own card's signature said. The card is
 * new (the runtime signs it with the publishing gateway's key for it); the HTTP card's signatures are not carried
 * over, as they would not match what was rewritten.
 */
import type { AgentCard } from '@a2a-js/sdk';
import { AGENT_ID_PATTERN, type LogosAgentCardInput } from '../logos/card.ts';
import type { OriginSignature } from './origin-card.ts';

/** The extension on a published agent's card: its params name the HTTP agent it carries tasks to. */
export const BRIDGED_HTTP_AGENT_EXTENSION = 'urn:logos-a2a:ext:bridged-http-agent:v1';

export interface BridgedCardFacts {
  /** The URL it was published from (its card is found there). */
  originUrl: string;
  /** The interface the official client chose from its card. */
  originInterface: { protocolBinding: string; protocolVersion: string };
  originSignature: OriginSignature;
  /** The card's id (the agent's URL at gateways: /agents/{id}); default: made from the HTTP card's name. */
  id?: string;
  /** The Logos address the published agent listens on. */
  address: string;
  /** LEZ prices (base units) by skill id, paid to `payTo`: the publishing side's account. */
  prices?: Readonly<Record<string, string>>;
  payTo?: string;
  /** The keys of `payTo`'s private account, when it takes shielded payments too (docs/payments.md §10). */
  privateKeys?: { npk: string; vpk: string };
}

const MAX_SKILL_DESCRIPTION = 4096;
const MAX_CARD_DESCRIPTION = 8192;

export function bridgedCard(origin: AgentCard, facts: BridgedCardFacts): LogosAgentCardInput {
  const provider = origin.provider;
  return {
    id: facts.id ?? agentIdFrom(origin.name),
    name: origin.name.slice(0, 256) || 'HTTP agent',
    description: (origin.description ?? '').slice(0, MAX_CARD_DESCRIPTION),
    version: (origin.version || '0').slice(0, 64),
    ...(provider?.organization && isHttpUrl(provider.url)
      ? { provider: { organization: provider.organization, url: provider.url } }
      : {}),
    ...(isHttpUrl(origin.documentationUrl) ? { documentationUrl: origin.documentationUrl } : {}),
    ...(isHttpUrl(origin.iconUrl) ? { iconUrl: origin.iconUrl } : {}),
    capabilities: { streaming: origin.capabilities?.streaming === true },
    ...(nonEmpty(origin.defaultInputModes) ? { defaultInputModes: origin.defaultInputModes } : {}),
    ...(nonEmpty(origin.defaultOutputModes) ? { defaultOutputModes: origin.defaultOutputModes } : {}),
    skills: bridgedSkills(origin).map((skill) => {
      const price = facts.prices?.[skill.id];
      return price === undefined ? skill : { ...skill, 'x-lez-price': price };
    }),
    ...(facts.payTo
      ? {
          'x-lez-identity': {
            account_id: facts.payTo,
            ...(facts.privateKeys ? { private: facts.privateKeys } : {}),
          },
        }
      : {}),
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: facts.address }],
    extensions: [
      {
        uri: BRIDGED_HTTP_AGENT_EXTENSION,
        description:
          'A bridged HTTP A2A agent: a Logos gateway publishes it and carries each task to it with an A2A client.',
        required: false,
        params: {
          originUrl: facts.originUrl,
          originInterface: facts.originInterface,
          originCardSignature: facts.originSignature,
        },
      },
    ],
  };
}

/**
 * Its skills as the Logos card lists them. A2A messages name no skill, so every skill reaches the same agent; an
 * agent that lists none gets one, named after it, for gateways to route to.
 */
export function bridgedSkills(origin: AgentCard): LogosAgentCardInput['skills'] {
  const skills = (origin.skills ?? []).filter((skill) => skill.id && skill.id.length <= 128);
  if (skills.length === 0) {
    return [{ id: 'default', name: origin.name || 'HTTP agent', description: origin.description ?? '', tags: [] }];
  }
  return skills.map((skill) => ({
    id: skill.id,
    name: (skill.name || skill.id).slice(0, 256),
    description: (skill.description ?? '').slice(0, MAX_SKILL_DESCRIPTION),
    tags: skill.tags ?? [],
    ...(nonEmpty(skill.examples) ? { examples: skill.examples } : {}),
    ...(nonEmpty(skill.inputModes) ? { inputModes: skill.inputModes } : {}),
    ...(nonEmpty(skill.outputModes) ? { outputModes: skill.outputModes } : {}),
  }));
}

/** An agent id from a name: "Weather Bot 2" → "weather-bot-2". */
export function agentIdFrom(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return AGENT_ID_PATTERN.test(id) ? id : 'http-agent';
}

const nonEmpty = (list: string[] | undefined): list is string[] => Array.isArray(list) && list.length > 0;

function isHttpUrl(value: string | undefined): value is string {
  if (!value) return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}
