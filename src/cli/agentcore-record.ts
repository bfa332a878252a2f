/**
 * Export for the AWS Agent Registry of Amazon Bedrock AgentCore: one registry record per agent, as the input of its
 * `CreateRegistryRecord` operation (bedrock-agentcore-control API reference), so that
 * `aws bedrock-agentcore-control create-registry-record --registry-id <id> --cli-input-json file://<agent id>.json`
 * imports it. The registry id names the operator's own registry, so it is left to that command.
 *
 * Where each field comes from (the API's constraints in brackets):
 *
 *   name            the agent's id at the gateway [1 to 255 characters of `[a-zA-Z0-9][a-zA-Z0-9_\-./]*`, which
 *                   every agent id is]
 *   description     the card's description, cut to 4096 characters; absent when empty [1 to 4096 characters]
 *   descriptorType  `A2A` [MCP | A2A | CUSTOM | AGENT_SKILLS]
 *   descriptors.a2a.agentCard.inlineContent
 *                   the agent's v0.3 card exactly as the gateway serves it, as JSON text [1 to 102400 characters;
 *                   an agent whose card is longer is refused, naming the limit]
 *   descriptors.a2a.agentCard.schemaVersion
 *                   the card's `protocolVersion` [1 to 255 characters]
 *   recordVersion   the card's `version` when the registry takes it [`[a-zA-Z0-9.-]+`, at most 255], else absent
 */
import { z } from 'zod';

export interface AgentCoreRecord {
  name: string;
  description?: string;
  descriptorType: 'A2A';
  descriptors: { a2a: { agentCard: { inlineContent: string; schemaVersion: string } } };
  recordVersion?: string;
}

export const AGENTCORE_INLINE_CONTENT_MAX = 102_400;
const DESCRIPTION_MAX = 4096;
const RECORD_VERSION = /^[a-zA-Z0-9.-]{1,255}$/;

/** What the record needs of the v0.3 card; the card itself goes in whole. */
const LegacyCardFields = z.object({
  protocolVersion: z.string().min(1).max(255),
  description: z.string(),
  version: z.string(),
});

/** One registry record for the agent `agentId`, from its v0.3 card (throws, naming what is wrong, when unusable). */
export function agentCoreRecord(card: unknown, agentId: string): AgentCoreRecord {
  const parsed = LegacyCardFields.safeParse(card);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the v0.3 card is not usable: ${issue.path.join('.') || 'card'}: ${issue.message}`);
  }
  const inlineContent = JSON.stringify(card);
  if (inlineContent.length > AGENTCORE_INLINE_CONTENT_MAX) {
    throw new Error(
      `the v0.3 card is ${inlineContent.length} characters; the AgentCore registry takes at most ${AGENTCORE_INLINE_CONTENT_MAX}`,
    );
  }
  const { description, version, protocolVersion } = parsed.data;
  return {
    name: agentId,
    ...(description ? { description: description.slice(0, DESCRIPTION_MAX) } : {}),
    descriptorType: 'A2A',
    descriptors: { a2a: { agentCard: { inlineContent, schemaVersion: protocolVersion } } },
    ...(RECORD_VERSION.test(version) ? { recordVersion: version } : {}),
  };
}
