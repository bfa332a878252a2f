/**
 * Pure functions between the A2A model (the SDK's v1.0 types) and the binding's envelopes. The rules are the ones
 * docs/binding.md §"Mapping" states; keep the two in step.
 */
import { uuidV7 } from '../uuid.ts';
import { Message, Part, Role, TaskState, type Artifact, type TaskStatus } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { LogosAgentCard } from '../logos/card.ts';
import type { WireArtifact, WireMessage, WirePart, WireState } from '../logos/envelope.ts';
import { isPlainObject } from '../json-object.ts';

export interface SkillCall {
  skill: string;
  params: Record<string, unknown>;
}

/**
 * Which skill a message calls, and with what:
 * 1. a data part `{skill, params?}` names both;
 * 2. else `message.metadata.skill` names the skill, else the card's first skill is used;
 * 3. params: text parts joined by "\n" → `text`; object data parts merged in order; other data → `data`;
 *    file parts → `files[]` with `{name?, mediaType?, bytes | url}` (bytes in base64).
 */
export function toSkillCall(message: Message, card: LogosAgentCard): SkillCall {
  const explicit = message.parts.find(
    (part) =>
      part.content?.$case === 'data' &&
      isPlainObject(part.content.value) &&
      typeof part.content.value.skill === 'string',
  );
  const metadataSkill = typeof message.metadata?.skill === 'string' ? message.metadata.skill : undefined;
  let skill: string;
  let params: Record<string, unknown>;
  if (explicit && explicit.content?.$case === 'data') {
    const value = explicit.content.value as Record<string, unknown>;
    skill = value.skill as string;
    if (value.params !== undefined && !isPlainObject(value.params)) {
      throw new RequestMalformedError('The data part {skill, params}: params must be a JSON object.');
    }
    params = { ...paramsFromParts(message.parts.filter((part) => part !== explicit)), ...(value.params ?? {}) };
  } else {
    skill = metadataSkill ?? card.skills[0]!.id;
    params = paramsFromParts(message.parts);
  }
  if (!card.skills.some((s) => s.id === skill)) {
    throw new RequestMalformedError(
      `Agent "${card.id}" has no skill "${skill}". Its skills: ${card.skills.map((s) => s.id).join(', ')}.`,
    );
  }
  return { skill, params };
}

export function paramsFromParts(parts: Part[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const texts: string[] = [];
  const files: Record<string, unknown>[] = [];
  for (const part of parts) {
    const content = part.content;
    if (!content) continue;
    switch (content.$case) {
      case 'text':
        texts.push(content.value);
        break;
      case 'data':
        if (isPlainObject(content.value)) Object.assign(params, content.value);
        else params.data = content.value;
        break;
      case 'raw':
      case 'url':
        files.push({
          ...(part.filename ? { name: part.filename } : {}),
          ...(part.mediaType ? { mediaType: part.mediaType } : {}),
          ...(content.$case === 'raw'
            ? { bytes: Buffer.from(content.value).toString('base64') }
            : { url: content.value }),
        });
        break;
    }
  }
  if (texts.length > 0) params.text = texts.join('\n');
  if (files.length > 0) params.files = files;
  return params;
}

const WIRE_TO_STATE: Record<WireState, TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  'auth-required': TaskState.TASK_STATE_AUTH_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

export const toTaskState = (state: WireState): TaskState => WIRE_TO_STATE[state];

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

export const isTerminal = (state: TaskState | undefined): boolean => state !== undefined && TERMINAL.has(state);
export const isInterrupted = (state: TaskState | undefined): boolean => state !== undefined && INTERRUPTED.has(state);

export function toParts(parts: WirePart[]): Part[] {
  return parts.map((part) => Part.fromJSON(part));
}

/** An agent's status message (text or parts) as an A2A agent Message of the task. */
export function toAgentMessage(message: WireMessage, taskId: string, contextId: string): Message {
  const parts = typeof message === 'string' ? [textPart(message)] : toParts(message.parts);
  return {
    messageId: uuidV7(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: typeof message === 'string' ? undefined : message.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function toArtifact(artifact: WireArtifact): Artifact {
  return {
    artifactId: artifact.artifact_id,
    name: artifact.name ?? '',
    description: artifact.description ?? '',
    parts: toParts(artifact.parts),
    metadata: artifact.metadata,
    extensions: [],
  };
}

/** A skill's return value as the task's `result` artifact: text for a string, data for anything else. */
export function resultArtifact(result: unknown): Artifact {
  const part = typeof result === 'string' ? textPart(result) : Part.fromJSON({ data: result });
  return { artifactId: 'result', name: 'result', description: '', parts: [part], metadata: undefined, extensions: [] };
}

/** A text part, as `Part.fromJSON({ text })` makes it without its generic walk of the JSON (one per reply). */
function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

export function statusOf(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: isoNow() };
}

/**
 * The time as ISO 8601, made once per millisecond: under load many tasks change status within the same one (a
 * batch of replies applied in one turn), and formatting a date costs more than the rest of a status. Only the
 * milliseconds change within a second: the rest is formatted once a second.
 */
let stampedMs = Number.NaN;
let stamp = '';
let stampedSecond = Number.NaN;
/** "YYYY-MM-DDTHH:MM:SS." of `stampedSecond`. */
let secondPrefix = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== stampedMs) {
    stampedMs = now;
    const ms = now % 1000;
    const second = now - ms;
    if (second !== stampedSecond) {
      stampedSecond = second;
      secondPrefix = new Date(second).toISOString().slice(0, 20);
    }
    stamp = `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
  return stamp;
}

/** The caller's message as stored in history: bound to its task and context, in v1.0 JSON for the agent. */
export function userMessageJson(message: Message): Record<string, unknown> {
  return Message.toJSON(message) as Record<string, unknown>;
}
