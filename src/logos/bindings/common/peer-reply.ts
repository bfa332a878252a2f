/**
 * What a peer binding's decoder hands the task engine: the agent's update in this binding's reply vocabulary
 * (`task_status`, `task_result`, `cancelled`, docs/binding.md §4), without the fields the engine fills in itself
 * (`v`, `id`, `seq`: peers number nothing), so that the engine, stores and HTTP face stay binding-agnostic.
 */
import { z } from 'zod';
import { decodeWith, type AgentEnvelopeInput, type DistributiveOmit } from '../../envelope.ts';

export type PeerReplyBody = DistributiveOmit<AgentEnvelopeInput, 'v' | 'id' | 'task_id' | 'seq'>;

export interface PeerReply {
  readonly taskId: string;
  readonly body: PeerReplyBody;
}

/**
 * Why a peer's message was not taken: counted and logged by whoever reads it. `cancel-refused` is the agent's
 * answer that a task cannot be cancelled (over, or unknown to it), which changes nothing of the task.
 */
export type PeerDropReason = 'too-large' | 'not-json' | 'invalid' | 'bad-signature' | 'not-for-us' | 'cancel-refused';

export type PeerDecode<T> = { ok: true; value: T } | { ok: false; reason: PeerDropReason; detail: string };

/** Bytes → JSON → `schema`, refusing anything over `maxBytes` before it is parsed (envelope.ts's `decodeWith`). */
export function decodeJson<S extends z.ZodType>(
  schema: S,
  bytes: Uint8Array,
  maxBytes: number,
): PeerDecode<z.infer<S>> {
  const decoded = decodeWith(schema, bytes, maxBytes);
  return decoded.ok ? { ok: true, value: decoded.envelope } : decoded;
}

/** A failed result, in this binding's error shape: what a peer's failure or error becomes. */
export function failure(code: string, message: string): PeerReplyBody {
  return { type: 'task_result', state: 'failed', error: { code, message } };
}
