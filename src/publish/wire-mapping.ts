/**
 * Between what a Logos task brings (the caller's message as v1.0 JSON, or bare params) and the A2A model the HTTP
 * agent's client speaks, both ways. The binding's parts are A2A v1.0 Parts in their JSON form, so parts cross as
 * they are; ids are the HTTP agent's own on its side (its task and context), never the Logos caller's.
 */
import { randomUUID } from 'node:crypto';
import { Message, Part, Role, type Artifact } from '@a2a-js/sdk';
import type { WireArtifact, WireMessage, WirePart } from '../logos/envelope.ts';

/** What a Logos task or its follow-up brings: SkillContext and FollowUp alike. */
export interface LogosInput {
  params: Record<string, unknown>;
  text: string;
  message?: Record<string, unknown> | undefined;
}

/**
 * The message to send to the HTTP agent: the caller's own (its parts, metadata and extensions), bound to the HTTP
 * agent's task and context when there are any; without one (the seed dialect sends params only), the text as a text
 * part, or else the params as a data part.
 */
export function messageFor(input: LogosInput, ids: { taskId?: string; contextId?: string }): Message {
  const parts = input.message ? Message.fromJSON(input.message).parts : [];
  const fallback = input.text !== '' ? Part.fromJSON({ text: input.text }) : Part.fromJSON({ data: input.params });
  const caller = input.message ? Message.fromJSON(input.message) : undefined;
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: parts.length > 0 ? parts : [fallback],
    metadata: caller?.metadata,
    extensions: caller?.extensions ?? [],
    // The caller's references name tasks of its own gateway, which the HTTP agent does not know.
    referenceTaskIds: [],
  };
}

function wireParts(parts: readonly Part[]): WirePart[] {
  return parts.map((part) => Part.toJSON(part) as WirePart);
}

/** An A2A message as a status message of the binding; none when it has no parts. */
export function wireMessage(message: Message | undefined): WireMessage | undefined {
  if (!message || message.parts.length === 0) return undefined;
  return { parts: wireParts(message.parts), ...(message.metadata ? { metadata: message.metadata } : {}) };
}

/** An A2A artifact (or a chunk of one) as the binding's; none when it has no parts. */
export function wireArtifact(
  artifact: Artifact | undefined,
  chunk: { append?: boolean; lastChunk?: boolean } = {},
): WireArtifact | undefined {
  if (!artifact || artifact.parts.length === 0) return undefined;
  return {
    artifact_id: artifact.artifactId,
    ...(artifact.name ? { name: artifact.name } : {}),
    ...(artifact.description ? { description: artifact.description } : {}),
    parts: wireParts(artifact.parts),
    ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
    ...(chunk.append ? { append: true } : {}),
    ...(chunk.lastChunk ? { last_chunk: true } : {}),
  };
}

/** The text of a message's text parts, for failures that say what the HTTP agent said. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter(Boolean)
    .join('\n');
}
