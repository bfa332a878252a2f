/**
 * The seed's dialect (docs/binding.md §13) as the engine speaks it: requests rewritten in the seed's fields, replies
 * read from an open topic or 1:1 and numbered as they arrive. The mappings themselves are in seed-dialect.ts.
 */
import { decodeSeedReply, seedReplyTaskId, seedRequestPayload, seedStatusTopic } from '../seed-dialect.ts';
import type { WireBinding } from './wire-binding.ts';

export const seedBinding: WireBinding = {
  dialect: 'seed',
  // A seed agent knows no status key: it publishes in the clear, on the seed's topic.
  statusTopic: (request) => ({ topic: seedStatusTopic(request.task_id), options: {} }),
  outgoing: (payload, request) => seedRequestPayload(payload, request),
  decodeReply: (payload, maxBytes, nextSeq) => decodeSeedReply(payload, maxBytes, nextSeq),
  // Seed agents answer 1:1 (their results and the answers to task_get).
  directReplyTaskId: (payload, maxBytes) => seedReplyTaskId(payload, maxBytes),
  // The seed's topic is open and names no publisher: whoever learnt the task id could write there, so only a reply
  // the transport authenticates (1:1) may end a seed task.
  acceptsUnauthenticated: (reply) => reply.type === 'task_status',
  // A seed agent would run a repeated request again, and knows no resend (§13).
  replaysRepeatedRequest: false,
  inputRefusal:
    "speaks the seed binding, which takes no input on a task: its input-required waits for the agent's owner",
};
