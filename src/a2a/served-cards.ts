/**
 * The three shapes in which one agent's card is served, each signed by the gateway:
 *
 * - `v1`: the pure A2A v1.0 card, exactly what the SDK's strict codec emits (for validators that reject unknown
 *   fields; A2A-Version: 1.0 or ?v=1.0).
 * - `v03`: the pure v0.3 card (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`, v0.3
 *   security fields; A2A-Version: 0.3 or ?v=0.3).
 * - `union`: every v1.0 field plus the v0.3 ones, for a client that names no version. This is how the official
 *   SDKs serve clients of unknown generation: a v1.0 client reads `supportedInterfaces`, a v0.3 client reads `url`
 *   and `preferredTransport`, and neither chokes on the other's fields. Where both generations use the same member
 *   name differently (`securitySchemes`), each scheme carries both forms side by side.
 */
import { AgentCard } from '@a2a-js/sdk';
import {
  peerVerifiedParams,
  projectCard,
  projectLegacyCard,
  unverifiedParams,
  type GrpcInterface,
} from './card-projection.ts';
import type { LogosAgentCard } from '../logos/card.ts';
import { signServedCard, type CardSigningKey } from './card-jws.ts';
import type { DirectoryEntry } from '../logos/directory.ts';
import { logosSignatureParams } from '../logos/card-signature.ts';

export type CardShape = 'union' | 'v1';

export interface ServedCards {
  v1: Record<string, unknown>;
  v03: Record<string, unknown>;
  union: Record<string, unknown>;
}

export interface ServedCardOptions {
  /** Facts for the Logos extension (the agent's own verified signature). */
  logosParams: Record<string, unknown>;
  /** API keys are configured: the cards say a bearer token is needed. */
  apiKeyRequired: boolean;
  /** Push notifications are delivered: without, the push-config methods answer PushNotificationNotSupported. */
  pushNotifications: boolean;
  /** Where gRPC is served, if it is. */
  grpc?: GrpcInterface | undefined;
  signingKey?: CardSigningKey;
}

const API_KEY_DESCRIPTION = 'An API key from the gateway operator (also accepted as X-API-Key).';

/** The v1.0 security declaration (`securitySchemes` as a oneOf of typed schemes, `securityRequirements`). */
const V1_SECURITY = {
  securitySchemes: { apiKey: { httpAuthSecurityScheme: { scheme: 'Bearer', description: API_KEY_DESCRIPTION } } },
  securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
};

/** The v0.3 one (OpenAPI-style schemes, `security`). */
const V03_SECURITY = {
  securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: API_KEY_DESCRIPTION } },
  security: [{ apiKey: [] }],
};

/** What the union card takes from the v0.3 card beyond the v1.0 fields. */
const V03_ONLY_FIELDS = ['protocolVersion', 'url', 'preferredTransport', 'additionalInterfaces'] as const;

export function servedCards(card: LogosAgentCard, baseUrl: string, options: ServedCardOptions): ServedCards {
  // Through the SDK's codec first (what v1.0 clients parse: ProtoJSON, defaults omitted), then signed: signing last
  // keeps the signed bytes exactly the served ones.
  const v1 = AgentCard.toJSON(
    AgentCard.fromJSON({
      ...projectCard(card, baseUrl, options.logosParams, options.pushNotifications, options.grpc),
      ...(options.apiKeyRequired ? V1_SECURITY : {}),
    }),
  ) as Record<string, unknown>;
  const v03: Record<string, unknown> = {
    ...projectLegacyCard(card, baseUrl, options.logosParams, options.pushNotifications, options.grpc),
    ...(options.apiKeyRequired ? V03_SECURITY : {}),
  };
  const union = {
    ...v1,
    ...Object.fromEntries(V03_ONLY_FIELDS.map((field) => [field, v03[field]])),
    // Each scheme object holds its v1.0 member and the v0.3 members side by side: they do not collide.
    ...(options.apiKeyRequired
      ? {
          securitySchemes: {
            apiKey: {
              ...(v1.securitySchemes as typeof V1_SECURITY.securitySchemes).apiKey,
              ...V03_SECURITY.securitySchemes.apiKey,
            },
          },
          security: V03_SECURITY.security,
        }
      : {}),
  };
  const sign = (json: Record<string, unknown>) =>
    options.signingKey ? signServedCard(json, options.signingKey) : json;
  return { v1: sign(v1), v03: sign(v03), union: sign(union) };
}

/** A directory entry's cards, its Logos extension telling how the gateway verified it (or that it did not). */
export function entryCards(
  entry: DirectoryEntry,
  baseUrl: string,
  options: Omit<ServedCardOptions, 'logosParams'>,
): ServedCards {
  return servedCards(entry.card, baseUrl, {
    ...options,
    logosParams: entry.verified
      ? logosSignatureParams(entry.verified, { verifiedAt: entry.updatedAt })
      : entry.peerVerified
        ? peerVerifiedParams(entry.peerVerified, entry.updatedAt)
        : entry.unverified
          ? unverifiedParams(entry.unverified.reason)
          : {},
  });
}
