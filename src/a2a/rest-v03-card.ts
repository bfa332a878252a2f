/**
 * The agent card as `GET {base}/v1/card` sends it: the v0.3 card in the proto JSON of the v0.3 `a2a.proto`. Most
 * fields read the same as in the v0.3 JSON card; security does not: a scheme is a one-of
 * (`{httpAuthSecurityScheme: {…}}` instead of `type: "http"`), an API key's `in` is `location`, and a requirement
 * is `{schemes: {name: {list: scopes}}}` instead of `{name: scopes}`.
 */
import type { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { ProtoJson } from './rest-v03-codec.ts';

type LegacyAgentCard = Awaited<ReturnType<LegacyRestTransportHandler['getAuthenticatedExtendedAgentCard']>>;
type LegacySecurityScheme = NonNullable<LegacyAgentCard['securitySchemes']>[string];
type LegacySecurityRequirement = NonNullable<LegacyAgentCard['security']>[number];

export function agentCardToProto(card: LegacyAgentCard): ProtoJson {
  const { streaming, pushNotifications, extensions } = card.capabilities;
  return {
    protocolVersion: card.protocolVersion,
    name: card.name,
    description: card.description,
    url: card.url,
    preferredTransport: card.preferredTransport,
    additionalInterfaces: card.additionalInterfaces,
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    // stateTransitionHistory has no field in the proto.
    capabilities: { streaming, pushNotifications, extensions },
    securitySchemes:
      card.securitySchemes &&
      Object.fromEntries(
        Object.entries(card.securitySchemes).map(([name, scheme]) => [name, securitySchemeToProto(scheme)]),
      ),
    security: card.security?.map(requirementToProto),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({ ...skill, security: skill.security?.map(requirementToProto) })),
    supportsAuthenticatedExtendedCard: card.supportsAuthenticatedExtendedCard,
    signatures: card.signatures,
  };
}

function securitySchemeToProto(scheme: LegacySecurityScheme): ProtoJson {
  switch (scheme.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: { description: scheme.description, location: scheme.in, name: scheme.name } };
    case 'http':
      return {
        httpAuthSecurityScheme: {
          description: scheme.description,
          scheme: scheme.scheme,
          bearerFormat: scheme.bearerFormat,
        },
      };
    case 'oauth2': {
      // The proto holds one flow where the JSON card may list several: the first one declared goes.
      const [flow, settings] = Object.entries(scheme.flows).find(([, settings]) => settings !== undefined) ?? [];
      return {
        oauth2SecurityScheme: {
          description: scheme.description,
          flows: flow ? { [flow]: settings } : {},
          oauth2MetadataUrl: scheme.oauth2MetadataUrl,
        },
      };
    }
    case 'openIdConnect':
      return {
        openIdConnectSecurityScheme: { description: scheme.description, openIdConnectUrl: scheme.openIdConnectUrl },
      };
    case 'mutualTLS':
      return { mtlsSecurityScheme: { description: scheme.description } };
  }
}

function requirementToProto(requirement: LegacySecurityRequirement): ProtoJson {
  return { schemes: Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }])) };
}
