/**
 * What a peer binding's decoder hands the task engine: the agent's update in this binding's reply vocabulary
 * (`task_status`, `task_result`, `cancelled`, docs/binding.md §4), without the fields the engine fills in itself
 * (`v`, `id`, `seq`: peers number nothing), so that the engine, stores and HTTP face stay binding-agnostic.
 */
import { z } from 'zod';
import type { AgentEnvelopeInput, DistributiveOmit } from '../../envelope.ts';

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

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Bytes → JSON → `schema`, refusing anything over `maxBytes` before it is parsed. */
export function decodeJson<S extends z.ZodType>(
  schema: S,
  bytes: Uint8Array,
  maxBytes: number,
): PeerDecode<z.infer<S>> {
  if (bytes.byteLength > maxBytes) {
    return { ok: false, reason: 'too-large', detail: `${bytes.byteLength} bytes exceeds ${maxBytes}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(bytes));
  } catch (error) {
    return { ok: false, reason: 'not-json', detail: (error as Error).message };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(parsed.error) };
  return { ok: true, value: parsed.data };
}

/** A failed result, in this binding's error shape: what a peer's failure or error becomes. */
export function failure(code: string, message: string): PeerReplyBody {
  return { type: 'task_result', state: 'failed', error: { code, message } };
}
