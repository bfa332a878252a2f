/**
 * A Logos agent card as the HTTP world sees it: a pure A2A v1.0 card (no unknown top-level fields; Logos and LEZ
 * facts live in one extension's params), or the v0.3 shape for older clients and registries.
 */
import { isPriced, type LogosAgentCard } from '../logos/card.ts';
import { BINDING_VERSION } from '../logos/envelope.ts';
import { CLIENT_PAYS_EXTENSION } from '../bridge/client-pays.ts';
import type { PeerCardStanding } from '../logos/peer-card-reading.ts';

/** The A2A extension that carries what is Logos- or LEZ-specific about an agent. */
export const LOGOS_AGENT_EXTENSION = 'urn:logos-a2a:ext:logos-agent:v1';

function logosExtension(card: LogosAgentCard, extra: Record<string, unknown>) {
  const perSkill = Object.fromEntries(
    card.skills.filter((s) => s['x-lez-price'] !== undefined).map((s) => [s.id, s['x-lez-price']]),
  );
  return {
    uri: LOGOS_AGENT_EXTENSION,
    description:
      'This agent lives on the Logos network; the gateway reaches it over the A2A-over-Logos-Messaging binding.',
    required: false,
    params: {
      agentId: card.id,
      bindingVersion: BINDING_VERSION,
      logosInterfaces: card.agentInterfaces,
      lezPrice: { default: card['x-lez-price'] ?? '0', perSkill },
      ...(card['x-lez-identity'] ? { payTo: card['x-lez-identity'].account_id } : {}),
      ...extra,
    },
  };
}

interface SkillFields {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[] | undefined;
  inputModes?: string[] | undefined;
  outputModes?: string[] | undefined;
}

/** A card's skills as A2A cards (v1.0 and v0.3 alike) list them: the A2A fields only. */
export function projectSkills(skills: readonly SkillFields[]) {
  return skills.map((skill) => ({
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: skill.tags,
    ...(skill.examples ? { examples: skill.examples } : {}),
    ...(skill.inputModes ? { inputModes: skill.inputModes } : {}),
    ...(skill.outputModes ? { outputModes: skill.outputModes } : {}),
  }));
}

/**
 * The mark of an agent served although no documented rule vouches for its card (`allowUnverifiedAgents`), for the
 * params of its Logos extension: clients see it before they send anything.
 */
export function unverifiedParams(reason: string): Record<string, unknown> {
  return { unverified: true, unverifiedReason: reason };
}

/**
 * The mark of a peer binding's agent whose card the gateway verified with that binding's own scheme (its agent
 * signs no card of this binding, so there is no `logosCardSignature`): which binding and scheme, the key that
 * signed, and when.
 */
export function peerVerifiedParams(standing: PeerCardStanding, verifiedAt: Date): Record<string, unknown> {
  return {
    peerCardSignature: {
      binding: standing.binding,
      scheme: standing.scheme,
      signingKey: standing.signingKey,
      verifiedAt: verifiedAt.toISOString(),
    },
  };
}

/** Priced agents accept the client's own payment too (the client-pays extension, activated per request). */
function clientPaysExtension(card: LogosAgentCard) {
  if (!isPriced(card) || !card['x-lez-identity']) return [];
  return [
    {
      uri: CLIENT_PAYS_EXTENSION,
      description:
        'Pay the agent yourself on LEZ: send A2A-Extensions with this URI; the task waits in input-required with "lez.payment.required" in its status message metadata; pay, then answer on the task with "lez.payment.payload": {"txHash", "from"}.',
      required: false,
      params: { rail: 'lez', payTo: card['x-lez-identity'].account_id },
    },
  ];
}

/**
 * Where the gateway serves the gRPC binding (a2a/grpc.ts), when it does. `address` is `host:port`, one for every
 * agent: v1.0 calls name their agent in the request's `tenant`, which the card's interface carries, so the official
 * clients send it by themselves. v0.3 requests have no tenant: v0.3 gRPC reaches the default agent only (`legacy`).
 */
export interface GrpcInterface {
  address: string;
  /** This agent is the default one, which v0.3 gRPC serves. */
  legacy: boolean;
}

/**
 * `baseUrl` is the agent's public base (no trailing slash): both HTTP bindings are served there. `logosParams`: more
 * facts for the Logos extension (the agent's own signature when verified, or the unverified mark).
 * `pushNotifications`: whether this gateway delivers them (the Worker does not). `grpc`: where gRPC is served, if it
 * is (never on the Worker).
 */
export function projectCard(
  card: LogosAgentCard,
  baseUrl: string,
  logosParams: Record<string, unknown> = {},
  pushNotifications = true,
  grpc?: GrpcInterface,
): Record<string, unknown> {
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: [
      { url: baseUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: baseUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ...(grpc ? [{ url: grpc.address, protocolBinding: 'GRPC', tenant: card.id, protocolVersion: '1.0' }] : []),
      // A v1.0 card may list an older version's interface too: the SDK's v1.0 clients (legacyCompat) take it from
      // there, and its v0.3 gRPC service accepts only the versions the card lists for GRPC.
      ...(grpc?.legacy ? [{ url: grpc.address, protocolBinding: 'GRPC', protocolVersion: '0.3' }] : []),
    ],
    ...(card.provider ? { provider: card.provider } : {}),
    version: card.version,
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    capabilities: {
      streaming: card.capabilities.streaming,
      pushNotifications,
      extendedAgentCard: false,
      extensions: [...card.extensions, logosExtension(card, logosParams), ...clientPaysExtension(card)],
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: projectSkills(card.skills),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
  };
}

/** The v0.3 shape: `url` + `preferredTransport` + `additionalInterfaces` and a card-level `protocolVersion`. */
export function projectLegacyCard(
  card: LogosAgentCard,
  baseUrl: string,
  logosParams: Record<string, unknown> = {},
  pushNotifications = true,
  grpc?: GrpcInterface,
): Record<string, unknown> {
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: baseUrl,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: baseUrl, transport: 'JSONRPC' },
      { url: baseUrl, transport: 'HTTP+JSON' },
      ...(grpc?.legacy ? [{ url: grpc.address, transport: 'GRPC' }] : []),
    ],
    ...(card.provider ? { provider: card.provider } : {}),
    version: card.version,
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    capabilities: {
      streaming: card.capabilities.streaming,
      pushNotifications,
      stateTransitionHistory: false,
      extensions: [...card.extensions, logosExtension(card, logosParams), ...clientPaysExtension(card)],
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: projectSkills(card.skills),
    supportsAuthenticatedExtendedCard: false,
  };
}
