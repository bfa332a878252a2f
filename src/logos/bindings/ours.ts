/**
 * The Logos binding of docs/binding.md, as the engine speaks it: envelopes go out as encoded, replies come back
 * numbered, on a per-task topic under the task's status key.
 */
import { decodeAgentEnvelope, taskStatusTopic } from '../envelope.ts';
import { statusKeyBytes } from '../status-key.ts';
import type { WireBinding } from './wire-binding.ts';

export const ourBinding: WireBinding = {
  dialect: 'binding',
  statusTopic: (request) => ({
    topic: taskStatusTopic(request.task_id),
    options: { key: statusKeyBytes(request.status_key) },
  }),
  outgoing: (payload) => payload,
  // The agent numbers its replies itself.
  decodeReply: (payload, maxBytes) => decodeAgentEnvelope(payload, maxBytes),
  // A keyed topic names its publisher; a transport that cannot tell is trusted as it is.
  acceptsUnauthenticated: () => true,
  replaysRepeatedRequest: true,
};
