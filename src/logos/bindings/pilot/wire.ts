/**
 * The pilot binding on the wire (docs/bindings/pilot.md): JSON-RPC with A2A's early method names (`tasks/send`,
 * `tasks/cancel`), each request signed by the sender (ES256K, signing.ts) and encrypted to the agent (ecies.ts) on
 * the agent's inbox topic; exactly one reply per request, signed by the agent and encrypted to the sender, on a
 * reply topic the sender names. Cluster 2, and every `/pilot/1/…` topic is on shard 7.
 */
import { z } from 'zod';
import { PEER_NETWORK_PRESETS } from '../../network-presets.ts';
import { contentTopic, shardOf, type PeerNetwork } from '../common/content-topic.ts';
import type { PaymentTerms } from '../common/payment-terms.ts';
import type { PeerCapabilities } from '../common/peer-capabilities.ts';
import { decodeJson, failure, type PeerDecode, type PeerReply, type PeerReplyBody } from '../common/peer-reply.ts';
import { decrypt, encrypt } from './ecies.ts';
import { publicKeyHex, sameKey, signObject, verifyObject } from './signing.ts';

export const APP = 'pilot';
export const APP_VERSION = '1';
export const NETWORK: PeerNetwork = PEER_NETWORK_PRESETS['pilot'];
export const SHARD = shardOf(APP, APP_VERSION, NETWORK.shards);

export const DISCOVERY_TOPIC = contentTopic(APP, APP_VERSION, 'discovery', 'proto');

/** A namespaced discovery topic, `/pilot/1/discovery-{namespace}/proto`. */
export function discoveryTopic(namespace: string): string {
  return contentTopic(APP, APP_VERSION, `discovery-${namespace}`, 'proto');
}

/** The agent's inbox, named by its encryption key (SEC1 hex, as its card writes it). */
export function inboxTopic(encryptionKey: string): string {
  return contentTopic(APP, APP_VERSION, `inbox-${encryptionKey}`, 'proto');
}

/** Where the gateway asks an agent to answer a task; subscribed to before the request goes out. */
export function replyTopic(taskId: string): string {
  return contentTopic(APP, APP_VERSION, `reply-${taskId}`, 'proto');
}

/**
 * The asker pays the skill's price (`_logos.pricing`, whole LEZ) to `_logos.payout` once, and only on a
 * `completed` reply whose signature verifies against the agent's pinned key and whose id is the task's. Nothing
 * about the payment travels, and the agent has no refunds.
 */
export const PAYMENT: PaymentTerms = {
  timing: 'on-signed-completion',
  refunds: 'none',
  agentVerifiesPayment: false,
  paymentOnWire: false,
};

/**
 * One reply per request, no progress; a cancel is honoured while the task runs. A task may park for the agent's
 * owner (`input-required`), who alone resolves it.
 */
export const CAPABILITIES: PeerCapabilities = {
  cancel: 'while-running',
  progress: false,
  multiTurn: 'owner-approval',
  result: 'data',
};

/**
 * Who the gateway is to pilot agents. An agent pins `senderNpk → signing key` at first contact and drops later
 * requests signed by another key, so both are kept for the life of the identity; the ECIES key is where replies
 * are encrypted to.
 */
export interface PilotIdentity {
  readonly senderNpk: string;
  readonly signingKey: Uint8Array;
  readonly eciesKey: Uint8Array;
}

/** What a request needs to know of the agent: from its verified card. */
export interface PilotAgent {
  readonly encryptionKey: string;
  /** The card's signing key, pinned: replies must verify against it. */
  readonly signingKey: string;
}

/**
 * A skill's input as pilot reads it from a caller's params. `agent-ask` takes `{prompt}`: a plain text message
 * (params of `text` alone) is its prompt. Other params go as they are (a data part names the skill's own fields).
 */
export function skillInput(skill: string, params: Record<string, unknown>): Record<string, unknown> {
  const plainText = typeof params.text === 'string' && Object.keys(params).length === 1;
  return skill === 'agent-ask' && plainText ? { prompt: params.text } : params;
}

export interface TaskSendInput {
  /** Topic-safe (it names the reply topic); the JSON-RPC id too. */
  readonly taskId: string;
  readonly skill: string;
  /** The skill's input: pilot reads the first part's `text`, an object or a JSON string of one. */
  readonly input: Record<string, unknown> | string;
  /** Unix seconds. */
  readonly now: number;
}

/** The envelope every request shares: the reply address, the sender, then signed as a whole. */
function signedRequest(
  identity: PilotIdentity,
  taskId: string,
  rpcId: string,
  method: string,
  params: Record<string, unknown>,
  now: number,
): Record<string, unknown> {
  const request = {
    _logos: {
      reply_topic: replyTopic(taskId),
      sender_ecies: publicKeyHex(identity.eciesKey),
      sender_npk: identity.senderNpk,
      signing_key: publicKeyHex(identity.signingKey),
      timestamp: String(now),
    },
    id: rpcId,
    jsonrpc: '2.0',
    method,
    params,
  };
  return { ...request, _logos: { ...request._logos, signature: signObject(request, identity.signingKey) } };
}

/** What goes on the agent's inbox topic: the signed request, encrypted to the agent. */
function sealed(agent: PilotAgent, request: Record<string, unknown>): Uint8Array {
  return new TextEncoder().encode(encrypt(agent.encryptionKey, new TextEncoder().encode(JSON.stringify(request))));
}

export function encodeTaskSend(identity: PilotIdentity, agent: PilotAgent, task: TaskSendInput): Uint8Array {
  const params = {
    id: task.taskId,
    message: { parts: [{ text: task.input, type: 'text' }], role: 'user' },
    metadata: { skill: task.skill },
  };
  return sealed(agent, signedRequest(identity, task.taskId, task.taskId, 'tasks/send', params, task.now));
}

/** The JSON-RPC id of a task's cancel: its own, so that the agent's refusal is told from an error of the task. */
export function cancelRpcId(taskId: string): string {
  return `${taskId}-cancel`;
}

/**
 * `tasks/cancel`, with the reply address (pilot's own client leaves it out and never hears the answer). Only the
 * task's sender may cancel: the same `senderNpk` and key as the request.
 */
export function encodeTaskCancel(identity: PilotIdentity, agent: PilotAgent, taskId: string, now: number): Uint8Array {
  return sealed(agent, signedRequest(identity, taskId, cancelRpcId(taskId), 'tasks/cancel', { id: taskId }, now));
}

const Logos = z.object({ signature: z.string().regex(/^[0-9a-fA-F]+$/), signing_key: z.string() }).loose();
const Status = z.object({ state: z.string() });
const Reply = z.union([
  z.object({
    _logos: Logos,
    jsonrpc: z.literal('2.0'),
    id: z.unknown(),
    result: z.object({ id: z.string(), result: z.unknown().optional(), status: Status }).loose(),
  }),
  z.object({
    _logos: Logos,
    jsonrpc: z.literal('2.0'),
    id: z.unknown(),
    error: z.object({ code: z.number().int(), message: z.string() }),
  }),
  z.object({
    _logos: Logos,
    jsonrpc: z.literal('2.0'),
    method: z.literal('tasks/statusUpdate'),
    params: z.object({ id: z.string(), status: Status, detail: z.unknown().optional() }).loose(),
  }),
]);
type Reply = z.infer<typeof Reply>;

/**
 * A message on a task's reply topic: decrypted with the gateway's ECIES key, its signature checked against the
 * agent's pinned key, and its task id against the topic's. Anything else is dropped with its reason (a forged or
 * replayed reply must not settle a payment).
 */
export function decodeReply(
  wire: Uint8Array,
  maxBytes: number,
  identity: PilotIdentity,
  agent: PilotAgent,
  taskId: string,
): PeerDecode<PeerReply> {
  if (wire.byteLength > maxBytes) return { ok: false, reason: 'too-large', detail: `${wire.byteLength} bytes` };
  const plaintext = decrypt(identity.eciesKey, new TextDecoder().decode(wire));
  if (!plaintext) return { ok: false, reason: 'not-for-us', detail: 'does not decrypt with our ECIES key' };
  // The signature covers the reply as the agent wrote it, members the schema does not know included.
  const raw = decodeJson(z.record(z.string(), z.unknown()), plaintext, maxBytes);
  if (!raw.ok) return raw;
  const parsed = Reply.safeParse(raw.value);
  if (!parsed.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(parsed.error) };
  const reply = parsed.data;
  const { signature, ...unsigned } = raw.value._logos as Record<string, unknown>;
  if (
    !sameKey(reply._logos.signing_key, agent.signingKey) ||
    !verifyObject({ ...raw.value, _logos: unsigned }, String(signature), agent.signingKey)
  ) {
    return { ok: false, reason: 'bad-signature', detail: 'not signed by the agent’s pinned key' };
  }
  // A refused cancel (the task is over, or unknown) leaves the task as it is: the cancel is not answered.
  if ('error' in reply && reply.id === cancelRpcId(taskId)) {
    return { ok: false, reason: 'cancel-refused', detail: `${reply.error.code}: ${reply.error.message}` };
  }
  const about = 'result' in reply ? reply.result.id : 'params' in reply ? reply.params.id : reply.id;
  if (about !== taskId) return { ok: false, reason: 'not-for-us', detail: `a reply about ${String(about)}` };
  return { ok: true, value: { taskId, body: replyBody(reply) } };
}

/** pilot's JSON-RPC error codes are kept in the error's code, as `pilot_<code>`. */
function replyBody(reply: Reply): PeerReplyBody {
  if ('error' in reply) return failure(`pilot_${reply.error.code}`, reply.error.message);
  const status = 'result' in reply ? reply.result.status : reply.params.status;
  const result = 'result' in reply ? reply.result.result : reply.params.detail;
  switch (status.state) {
    case 'completed':
      return { type: 'task_result', state: 'completed', result: result ?? null };
    case 'failed': {
      const error = (result as { error?: unknown } | null | undefined)?.error;
      return failure('agent_error', typeof error === 'string' ? error : JSON.stringify(result ?? null));
    }
    case 'canceled':
      return { type: 'cancelled' };
    case 'input-required': {
      const reason = (result as { reason?: unknown } | null | undefined)?.reason;
      return {
        type: 'task_status',
        state: 'input-required',
        ...(typeof reason === 'string' ? { message: reason } : {}),
      };
    }
    case 'submitted':
    case 'working':
      return { type: 'task_status', state: status.state };
    default:
      return failure('agent_error', `the agent reported the state ${JSON.stringify(status.state.slice(0, 64))}`);
  }
}
