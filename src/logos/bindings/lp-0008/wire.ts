/**
 * The lp-0008 binding on the wire (docs/bindings/lp-0008.md): A2A v0.3 JSON-RPC `message/send` and `tasks/cancel`
 * in, A2A v0.3 `status-update` events out, plain JSON, both directions on one topic per task named by the agent's
 * account and the task id. Nothing is signed or encrypted, and the agent has no inbox: it hears a task on its topic.
 * Cluster 3 (logos.dev), and every `/lp-0008/1/…` topic is on shard 6.
 */
import { z } from 'zod';
import { PEER_NETWORK_PRESETS } from '../../network-presets.ts';
import { contentTopic, shardOf, type PeerNetwork } from '../common/content-topic.ts';
import type { PaymentTerms } from '../common/payment-terms.ts';
import type { PeerCapabilities } from '../common/peer-capabilities.ts';
import { decodeJson, failure, type PeerDecode, type PeerReply, type PeerReplyBody } from '../common/peer-reply.ts';

export const APP = 'lp-0008';
export const APP_VERSION = '1';
export const NETWORK: PeerNetwork = PEER_NETWORK_PRESETS['lp-0008'];
export const SHARD = shardOf(APP, APP_VERSION, NETWORK.shards);

/** Task ids, contexts, accounts and namespaces in topic names: what the agent accepts. */
export const IDENTIFIER = /^[A-Za-z0-9_-]{1,128}$/;

function identifier(value: string, what: string): string {
  if (!IDENTIFIER.test(value))
    throw new TypeError(`${what} ${JSON.stringify(value.slice(0, 140))} is not a topic identifier`);
  return value;
}

/** One topic per task, for both directions. */
export function taskTopic(agentAccount: string, taskId: string): string {
  return contentTopic(
    APP,
    APP_VERSION,
    `task-${identifier(agentAccount, 'account')}-${identifier(taskId, 'task id')}`,
    'json',
  );
}

export function discoveryTopic(namespace: string): string {
  return contentTopic(APP, APP_VERSION, `discovery-${identifier(namespace, 'namespace')}`, 'json');
}

/** A party's one-to-one topic: the only one the agent's module can publish on, so boards of cards live on one. */
export function ownerTopic(account: string): string {
  return contentTopic(APP, APP_VERSION, `owner-${identifier(account, 'account')}`, 'json');
}

/**
 * The client publishes the request and pays the card's flat `pricePerTask` right after, without waiting for any
 * acknowledgement. Nothing on the wire ties the transfer to the task (the agent watches its balance), and the
 * agent has no refunds.
 */
export const PAYMENT: PaymentTerms = {
  timing: 'after-publishing',
  refunds: 'none',
  agentVerifiesPayment: false,
  paymentOnWire: false,
};

/** Status updates as the task goes, continuations on the same task, cancels while it runs; results are text only. */
export const CAPABILITIES: PeerCapabilities = {
  cancel: 'while-running',
  progress: true,
  multiTurn: 'continuation',
  result: 'text',
};

const encoder = new TextEncoder();

export interface MessageSendInput {
  readonly rpcId: string;
  readonly messageId: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly skill: string;
  readonly params: Record<string, unknown>;
}

export function encodeMessageSend(input: MessageSendInput): Uint8Array {
  return encodeMessage(input, { skill: input.skill, params: input.params });
}

export interface ContinuationInput {
  readonly rpcId: string;
  readonly messageId: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly text: string;
  readonly params: Record<string, unknown>;
}

/** The answer to `input-required` or `auth-required`: the same task and context, with text and params. */
export function encodeContinuation(input: ContinuationInput): Uint8Array {
  return encodeMessage(input, { message: input.text, params: input.params });
}

function encodeMessage(ids: Omit<MessageSendInput, 'skill' | 'params'>, data: Record<string, unknown>): Uint8Array {
  return encoder.encode(
    JSON.stringify({
      jsonrpc: '2.0',
      id: ids.rpcId,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: ids.messageId,
          taskId: ids.taskId,
          contextId: ids.contextId,
          parts: [{ kind: 'data', data }],
        },
      },
    }),
  );
}

export function encodeTaskCancel(rpcId: string, taskId: string): Uint8Array {
  return encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: rpcId, method: 'tasks/cancel', params: { id: taskId } }));
}

const TextPart = z.object({ kind: z.literal('text'), text: z.string() });
const StatusUpdate = z.object({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  final: z.boolean().optional(),
  status: z.object({
    state: z.enum([
      'submitted',
      'working',
      'input-required',
      'auth-required',
      'completed',
      'canceled',
      'failed',
      'rejected',
      'unknown',
    ]),
    message: z.object({ parts: z.array(z.union([TextPart, z.object({ kind: z.string() })])) }).optional(),
  }),
  metadata: z.object({ 'x-logos': z.object({ from: z.string() }) }),
});
type StatusUpdate = z.infer<typeof StatusUpdate>;

/** What a reply on a task topic must match to be the agent's: the task, its context, and the agent's account. */
export interface TaskAddress {
  readonly agentAccount: string;
  readonly taskId: string;
  readonly contextId: string;
}

/**
 * A message on the task's topic. The topic carries the gateway's own requests too (a node hears its own
 * publications) and is open to anyone: only a `status-update` of this task and context, from the agent's account,
 * is taken; `unknown` says nothing and is dropped.
 */
export function decodeStatusUpdate(bytes: Uint8Array, maxBytes: number, task: TaskAddress): PeerDecode<PeerReply> {
  const decoded = decodeJson(z.record(z.string(), z.unknown()), bytes, maxBytes);
  if (!decoded.ok) return decoded;
  if (decoded.value.kind !== 'status-update') return { ok: false, reason: 'not-for-us', detail: 'not a status update' };
  const update = StatusUpdate.safeParse(decoded.value);
  if (!update.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(update.error) };
  const { taskId, contextId, metadata } = update.data;
  if (taskId !== task.taskId || contextId !== task.contextId || metadata['x-logos'].from !== task.agentAccount) {
    return {
      ok: false,
      reason: 'not-for-us',
      detail: `an update about ${taskId.slice(0, 128)} from ${metadata['x-logos'].from.slice(0, 64)}`,
    };
  }
  if (update.data.status.state === 'unknown') return { ok: false, reason: 'invalid', detail: 'the state unknown' };
  return { ok: true, value: { taskId, body: replyBody(update.data) } };
}

/** A result is only the text of the status message: there are no artifacts. */
function replyBody(update: StatusUpdate): PeerReplyBody {
  const text = (update.status.message?.parts ?? [])
    .flatMap((part) => ('text' in part && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
  const message = text === '' ? {} : { message: text };
  switch (update.status.state) {
    case 'completed':
      return { type: 'task_result', state: 'completed', result: text };
    case 'failed':
      return failure('agent_error', text || 'The agent reported a failure.');
    case 'rejected':
      return {
        type: 'task_result',
        state: 'rejected',
        error: { code: 'rejected', message: text || 'The agent rejected the task.' },
      };
    case 'canceled':
      return { type: 'cancelled', ...message };
    default:
      return {
        type: 'task_status',
        state: update.status.state as 'submitted' | 'working' | 'input-required' | 'auth-required',
        ...message,
      };
  }
}
