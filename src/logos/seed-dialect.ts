/**
 * The seed's dialect (docs/bindings/seed.md): cards and envelopes written to the seed binding alone
 * (LP-0008's A2A_BINDING.md), mapped to this binding's canonical forms on the way in, and the gateway's requests
 * written in the seed's fields on the way out. Everything the seed left open is fixed here and documented there:
 * how a decimal LEZ price becomes base units, which id a `logos-agent:<hex>` card is served under, the Waku topic
 * of the seed's `agent-task-<task_id>`.
 *
 * Which dialect an agent speaks is remembered in its canonical card: the interface of a seed agent has the version
 * `seed` (`dialectOf`), so it survives restarts with the directory.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseAccountId } from '../lez/account-id.ts';
import { isPlainObject } from '../json-object.ts';
import type { PeerBindingName } from './bindings/common/peer-card.ts';
import type { LogosAgentCard } from './card.ts';
import { isPeerNetworkName } from './network-presets.ts';
import {
  AgentEnvelope,
  BINDING_VERSION,
  type DecodeResult,
  type GatewayEnvelopeInput,
  type TaskRequest,
  WireState,
} from './envelope.ts';
import { U128_MAX } from '../lez/json.ts';

/** This binding's, the seed's, or a peer binding's (docs/bindings/), whose cards name it the same way. */
export type Dialect = 'binding' | 'seed' | PeerBindingName;

/** The interface version that marks a seed agent in its canonical card. */
export const SEED_INTERFACE_VERSION = 'seed';

export function dialectOf(card: LogosAgentCard): Dialect {
  const version = card.agentInterfaces[0]?.version;
  if (version === SEED_INTERFACE_VERSION) return 'seed';
  return version !== undefined && isPeerNetworkName(version) ? version : 'binding';
}

// --- prices --------------------------------------------------------------------------------------------------

/**
 * LEZ has no decimal places: the native token is counted in whole base units (balances and transfer amounts are
 * plain u128 integers, docs/lez.md §6.2), so one LEZ is one base unit, and a seed price is its base units once its
 * zero decimals are dropped. Towards a seed agent, base units are written as they are: the same number in LEZ.
 */
const DECIMAL = /^(\d{1,39})(?:\.(\d{1,39}))?$/;

export type PriceConversion = { ok: true; units: string } | { ok: false; reason: string };

/** A decimal LEZ amount ("5", "5.0", "5.000") in base units; a fraction of a base unit is refused. */
export function lezToBaseUnits(decimal: unknown): PriceConversion {
  if (typeof decimal !== 'string') return { ok: false, reason: 'a LEZ price is a decimal string such as "5.0"' };
  const match = DECIMAL.exec(decimal);
  if (!match) return { ok: false, reason: `"${decimal.slice(0, 64)}" is not a decimal LEZ amount such as "5.0"` };
  if (/[^0]/.test(match[2] ?? '')) {
    return {
      ok: false,
      reason: `${decimal} LEZ is not a whole number of base units: LEZ has no decimal places, so a price has no fractional part`,
    };
  }
  const units = BigInt(match[1]!);
  if (units > U128_MAX) return { ok: false, reason: `${decimal} LEZ is more than a u128 of base units` };
  return { ok: true, units: units.toString() };
}

// --- cards ---------------------------------------------------------------------------------------------------

/** The seed's agent id: `logos-agent:` and the agent's key in hex. */
const SEED_ID = /^logos-agent:([0-9a-fA-F]{16,128})$/;
/** Hex characters of the seed id kept in the served id (128 bits: ids of distinct keys do not collide). */
const SEED_ID_HEX_CHARS = 32;

/**
 * True for a card written in the seed's terms: a `logos-agent:` id, an interface of type `a2a`, or a signature
 * that is a bare string. Such a card is mapped by `fromSeedCard`; any other card is read as this binding's own.
 */
export function isSeedCard(json: unknown): json is Record<string, unknown> {
  if (!isPlainObject(json)) return false;
  if (typeof json.id === 'string' && json.id.startsWith('logos-agent:')) return true;
  if (typeof json.signature === 'string') return true;
  const interfaces = json.agentInterfaces;
  return Array.isArray(interfaces) && interfaces.some((i) => isPlainObject(i) && i.type === 'a2a');
}

/**
 * The card as this binding reads it (still to be checked against the card schema): a seed card mapped, any other
 * as it is; a seed card that does not map is `invalid`, or `bad-price` for a price in fractions of a base unit.
 */
export function canonicalCard(
  json: unknown,
): { ok: true; card: unknown } | { ok: false; reason: 'bad-price' | 'invalid'; message: string } {
  if (!isSeedCard(json)) return { ok: true, card: json };
  const mapped = fromSeedCard(json);
  if (mapped.ok) return mapped;
  return { ok: false, reason: mapped.reason === 'bad-price' ? 'bad-price' : 'invalid', message: mapped.message };
}

export type SeedCardMapping =
  { ok: true; card: Record<string, unknown> } | { ok: false; reason: 'bad-price' | 'malformed'; message: string };

/**
 * A seed card in canonical form (still to be parsed as a `LogosAgentCard`): the served id, empty description and
 * `unspecified` version when absent, prices in base units, the interface as `{type: "logos-messaging", version:
 * "seed", address}`, `x-lez-identity` only when its account is a LEZ account id, and no signature (the seed's
 * cannot be checked, see card-signature.ts).
 */
export function fromSeedCard(json: Record<string, unknown>): SeedCardMapping {
  const malformed = (message: string): SeedCardMapping => ({ ok: false, reason: 'malformed', message });
  const { signature: _unverifiable, agentInterfaces, ...rest } = json;
  const card: Record<string, unknown> = { description: '', version: 'unspecified', ...rest };
  if (typeof json.id === 'string') {
    const seedId = SEED_ID.exec(json.id);
    if (json.id.startsWith('logos-agent:') && !seedId)
      return malformed(`id: "logos-agent:" takes 16 to 128 hex digits`);
    if (seedId) card.id = `logos-agent-${seedId[1]!.toLowerCase().slice(0, SEED_ID_HEX_CHARS)}`;
  }
  // The seed's `{type: "a2a", transport: "logos-messaging", address}`; an interface of another transport is not ours.
  const logos = (Array.isArray(agentInterfaces) ? agentInterfaces : []).filter(
    (i): i is Record<string, unknown> =>
      isPlainObject(i) && (i.transport === 'logos-messaging' || i.type === 'logos-messaging'),
  );
  if (logos.length === 0) return malformed('agentInterfaces: no {type: "a2a", transport: "logos-messaging", address}');
  card.agentInterfaces = logos.map((i) => ({
    type: 'logos-messaging',
    version: SEED_INTERFACE_VERSION,
    address: i.address,
  }));

  if (json['x-lez-price'] !== undefined) {
    const price = lezToBaseUnits(json['x-lez-price']);
    if (!price.ok) return { ok: false, reason: 'bad-price', message: `x-lez-price: ${price.reason}` };
    card['x-lez-price'] = price.units;
  }
  if (!Array.isArray(json.skills)) return malformed('skills: a list of skills');
  const skills: unknown[] = [];
  for (const [index, skill] of json.skills.entries()) {
    if (!isPlainObject(skill) || skill['x-lez-price'] === undefined) {
      skills.push(skill);
      continue;
    }
    const price = lezToBaseUnits(skill['x-lez-price']);
    if (!price.ok) return { ok: false, reason: 'bad-price', message: `skills.${index}.x-lez-price: ${price.reason}` };
    skills.push({ ...skill, 'x-lez-price': price.units });
  }
  card.skills = skills;

  const identity = json['x-lez-identity'];
  const account = isPlainObject(identity) && typeof identity.account_id === 'string' ? identity.account_id : undefined;
  if (account !== undefined && parseAccountId(account).ok) card['x-lez-identity'] = { account_id: account };
  else delete card['x-lez-identity'];
  return { ok: true, card };
}

// --- envelopes -----------------------------------------------------------------------------------------------

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The seed's per-task status topic `agent-task-<task_id>`, as the Waku content topic autosharding accepts. */
export function seedStatusTopic(taskId: string): string {
  return `/agent-task/1/${taskId}/json`;
}

/**
 * A gateway request (this binding's envelope, as encoded) rewritten in the seed's fields: `type`, `task_id`,
 * `skill`, `params`, `lez_price` (LEZ, which are base units, see above), on every request, taken from the task's `task_request` where the
 * request itself has none. Nothing else: the binding's own fields (status key, payment reference, message…) mean
 * nothing to a seed agent.
 */
export function seedRequestPayload(
  payload: Uint8Array,
  task: Pick<TaskRequest, 'skill' | 'params' | 'lez_price'>,
): Uint8Array {
  const envelope = JSON.parse(decoder.decode(payload)) as GatewayEnvelopeInput;
  return encoder.encode(
    JSON.stringify({
      type: envelope.type,
      task_id: envelope.task_id,
      skill: task.skill,
      params: envelope.type === 'task_request' || envelope.type === 'task_input' ? envelope.params : {},
      lez_price: task.lez_price,
    }),
  );
}

/** The binding's states, and the British spelling a seed agent may write. */
const SeedState = z.enum([...WireState.options, 'cancelled']);

/** Seed replies: the six types with the seed's fields, or the answer to `task_get`, which has no type. */
const SeedReply = z.object({
  type: z.enum(['task_status', 'task_result', 'cancelled']).optional(),
  task_id: z.string().min(1).max(128),
  state: SeedState.optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  result_or_error: z.unknown().optional(),
  lez_price: z.unknown().optional(),
});
type SeedReply = z.infer<typeof SeedReply>;

/** The task a seed reply is about, or undefined when it is not one. */
export function seedReplyTaskId(bytes: Uint8Array, maxBytes: number): string | undefined {
  const json = parseJson(bytes, maxBytes);
  return json.ok && isPlainObject(json.value) && typeof json.value.task_id === 'string'
    ? json.value.task_id
    : undefined;
}

/**
 * A seed reply as this binding's reply, numbered `seq` (the seed numbers nothing: the gateway numbers replies as
 * they arrive). A reply naming a `lez_price` that is no whole number of base units fails the task, saying why.
 */
export function decodeSeedReply(bytes: Uint8Array, maxBytes: number, seq: number): DecodeResult<AgentEnvelope> {
  const json = parseJson(bytes, maxBytes);
  if (!json.ok) return json.failure;
  const seed = SeedReply.safeParse(json.value);
  if (!seed.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(seed.error) };
  const canonical = AgentEnvelope.safeParse({
    v: BINDING_VERSION,
    id: randomUUID(),
    task_id: seed.data.task_id,
    seq,
    ...fromSeedReply(seed.data),
  });
  if (!canonical.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(canonical.error) };
  return { ok: true, envelope: canonical.data };
}

function fromSeedReply(reply: SeedReply): Record<string, unknown> {
  if (reply.lez_price !== undefined) {
    const price = lezToBaseUnits(reply.lez_price);
    if (!price.ok) {
      return {
        type: 'task_result',
        state: 'failed',
        error: {
          code: 'bad_price',
          message: `The agent's reply names lez_price ${JSON.stringify(reply.lez_price)}: ${price.reason}.`,
        },
      };
    }
  }
  // The answer to task_get, {task_id, state, result_or_error}, has no type.
  const answer = reply.type === undefined;
  const result = answer ? reply.result_or_error : reply.result;
  const error = answer ? reply.result_or_error : reply.error;
  let state = reply.state === 'cancelled' ? 'canceled' : reply.state;
  if (reply.type === 'cancelled' || state === 'canceled') return { type: 'cancelled' };
  if (reply.type === 'task_result' && state === undefined) state = error === undefined ? 'completed' : 'failed';
  // A terminal state ends the task whichever type carries it (the seed lists them all under `state`).
  if (state === 'completed') return { type: 'task_result', state, ...(result === undefined ? {} : { result }) };
  if (state === 'failed' || state === 'rejected') return { type: 'task_result', state, error: wireError(error) };
  return { type: 'task_status', state };
}

/** The seed's `error` is a string; an object `{code, message}` is taken as it is. */
function wireError(error: unknown): { code: string; message: string } {
  if (isPlainObject(error) && typeof error.code === 'string' && typeof error.message === 'string')
    return { code: error.code, message: error.message };
  const message =
    typeof error === 'string' ? error : error === undefined ? 'The agent reported a failure.' : JSON.stringify(error);
  return { code: 'agent_error', message };
}

function parseJson(
  bytes: Uint8Array,
  maxBytes: number,
): { ok: true; value: unknown } | { ok: false; failure: DecodeResult<never> } {
  if (bytes.byteLength > maxBytes) {
    return {
      ok: false,
      failure: { ok: false, reason: 'too-large', detail: `${bytes.byteLength} bytes exceeds ${maxBytes}` },
    };
  }
  try {
    return { ok: true, value: JSON.parse(decoder.decode(bytes)) };
  } catch (error) {
    return { ok: false, failure: { ok: false, reason: 'not-json', detail: (error as Error).message } };
  }
}
