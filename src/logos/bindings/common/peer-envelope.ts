/**
 * A peer's reply, decoded into this binding's reply vocabulary (peer-reply.ts), as the canonical envelope the task
 * engine applies: numbered `seq` by the gateway as it arrives (peers number nothing, as the seed does not), under a
 * fresh message id. Shared by the peer bindings' `WireBinding`s.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentEnvelope, BINDING_VERSION, type DecodeResult } from '../../envelope.ts';
import type { PeerDecode, PeerReply } from './peer-reply.ts';

export function peerEnvelope(decoded: PeerDecode<PeerReply>, seq: number): DecodeResult<AgentEnvelope> {
  if (!decoded.ok) {
    const reason = decoded.reason === 'too-large' || decoded.reason === 'not-json' ? decoded.reason : 'invalid';
    return { ok: false, reason, detail: `${decoded.reason}: ${decoded.detail}` };
  }
  const envelope = AgentEnvelope.safeParse({
    ...decoded.value.body,
    v: BINDING_VERSION,
    id: randomUUID(),
    task_id: decoded.value.taskId,
    seq,
  });
  if (!envelope.success) return { ok: false, reason: 'invalid', detail: z.prettifyError(envelope.error) };
  return { ok: true, envelope: envelope.data };
}
