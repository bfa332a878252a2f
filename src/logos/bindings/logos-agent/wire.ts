/**
 * The logos-agent binding on the wire (docs/bindings/logos-agent.md): plain JSON messages told apart by `kind`,
 * requests and cancels on the agent's inbox topic, every agent's updates for all its clients on one updates topic,
 * both named by the agent's LEZ account. Cluster 2, and every `/logos-agent/1/…` topic is on shard 4.
 */
import { z } from 'zod';
import { PEER_NETWORK_PRESETS } from '../../network-presets.ts';
import { contentTopic, shardOf, type PeerNetwork } from '../common/content-topic.ts';
import type { PaymentTerms } from '../common/payment-terms.ts';
import type { PeerCapabilities } from '../common/peer-capabilities.ts';
import { decodeJson, failure, type PeerDecode, type PeerReply, type PeerReplyBody } from '../common/peer-reply.ts';

export const APP = 'logos-agent';
export const APP_VERSION = '1';
export const NETWORK: PeerNetwork = PEER_NETWORK_PRESETS['logos-agent'];
export const SHARD = shardOf(APP, APP_VERSION, NETWORK.shards);

/** The discovery topic the project's own tests announce on; an operator may agree on another (publishing takes any). */
export const DISCOVERY_TOPIC = contentTopic(APP, APP_VERSION, 'a2a-discovery', 'proto');

/** A LEZ account id in base58, as the agent names its topics with it. */
export const ACCOUNT_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function inboxTopic(account: string): string {
  return contentTopic(APP, APP_VERSION, `a2a-${account}-inbox`, 'proto');
}

/** The account an inbox topic is named by; undefined for any other topic. */
export function inboxAccount(topic: string): string | undefined {
  const account = /^\/logos-agent\/1\/a2a-(.+)-inbox\/proto$/.exec(topic)?.[1];
  return account !== undefined && ACCOUNT_PATTERN.test(account) ? account : undefined;
}

/** Shared by every client of the agent: a reply is found by its `taskId`, so task ids must be globally unique. */
export function updatesTopic(account: string): string {
  return contentTopic(APP, APP_VERSION, `a2a-${account}-updates`, 'proto');
}

/**
 * The client pays the skill's `priceLez` to the card's `lezAccount` before it publishes the request, and may name
 * the transfer in `paymentTx`, which the agent does not check. The agent's only refund (after a cancel) goes to the
 * request's `from` by a transfer that works only inside the agent's own wallet, so a gateway sends no `from` and
 * gets no refund.
 */
export const PAYMENT: PaymentTerms = {
  timing: 'before-sending',
  refunds: 'none',
  agentVerifiesPayment: false,
  paymentOnWire: true,
};

/**
 * A cancel takes effect only when it reaches the agent in the same batch of inbox messages as its request: the agent
 * reads its inbox in batches and never looks back, and answers a later cancel with nothing. Progress is a bare
 * `working`; the result is the skill's JSON output.
 */
export const CAPABILITIES: PeerCapabilities = {
  cancel: 'same-batch',
  progress: true,
  multiTurn: 'none',
  result: 'data',
};

const encoder = new TextEncoder();

export interface TaskRequestInput {
  /** Unique across all the agent's clients: its updates topic is shared. */
  readonly taskId: string;
  readonly skill: string;
  readonly params: Record<string, unknown>;
  /** The transfer that paid, by its hash; free-form to the agent. */
  readonly paymentTx?: string;
}

/**
 * `{"kind":"task_request",…}`. Without `from` and `priceLez`: the agent would send a cancelled task's refund to
 * `from`, and fails on one it cannot pay to.
 */
export function encodeTaskRequest(request: TaskRequestInput): Uint8Array {
  return encoder.encode(
    JSON.stringify({
      kind: 'task_request',
      taskId: request.taskId,
      skill: request.skill,
      params: request.params,
      ...(request.paymentTx === undefined ? {} : { paymentTx: request.paymentTx }),
    }),
  );
}

export function encodeTaskCancel(taskId: string): Uint8Array {
  return encoder.encode(JSON.stringify({ kind: 'task_cancel', taskId }));
}

const TaskUpdate = z.object({
  kind: z.literal('task_update'),
  taskId: z.string().min(1).max(256),
  state: z.enum(['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled']),
  result: z.unknown().optional(),
});
type TaskUpdate = z.infer<typeof TaskUpdate>;

/**
 * An update from the agent's updates topic, in this binding's reply vocabulary. Every client's updates pass by:
 * one whose `taskId` is not `isOurs` is `not-for-us`.
 */
export function decodeTaskUpdate(
  bytes: Uint8Array,
  maxBytes: number,
  isOurs: (taskId: string) => boolean,
): PeerDecode<PeerReply> {
  const update = decodeJson(TaskUpdate, bytes, maxBytes);
  if (!update.ok) return update;
  if (!isOurs(update.value.taskId)) return { ok: false, reason: 'not-for-us', detail: update.value.taskId };
  return { ok: true, value: { taskId: update.value.taskId, body: replyBody(update.value) } };
}

/** The skill's JSON output is the result (a data artifact); a failure's output is `{"error": text}`. */
function replyBody(update: TaskUpdate): PeerReplyBody {
  switch (update.state) {
    case 'completed':
      return { type: 'task_result', state: 'completed', result: update.result ?? null };
    case 'failed': {
      const error = (update.result as { error?: unknown } | null | undefined)?.error;
      return failure('agent_error', typeof error === 'string' ? error : JSON.stringify(update.result ?? null));
    }
    case 'canceled':
      return { type: 'cancelled' };
    default:
      return { type: 'task_status', state: update.state };
  }
}
