/**
 * The lp-0008 binding as the engine speaks it (docs/bindings/lp-0008.md), on the node of the network its agents
 * live on: everything about a task, both ways, on the task's own topic, named by the agent's account (its address)
 * and the task id; requests as A2A v0.3 `message/send`, the answer to `input-required` as a continuation on the same
 * task, cancels as `tasks/cancel`; the agent's `status-update`s numbered as they arrive.
 */
import { randomBytes } from 'node:crypto';
import { GatewayEnvelope, type TaskRequest } from '../../envelope.ts';
import { peerEnvelope } from '../common/peer-envelope.ts';
import type { PeerNode, WireBinding } from '../wire-binding.ts';
import {
  decodeStatusUpdate,
  encodeContinuation,
  encodeMessageSend,
  encodeTaskCancel,
  taskTopic,
  PAYMENT,
} from './wire.ts';

const decoder = new TextDecoder();
/** JSON-RPC and message ids, as the project writes them: 32 hex. */
const hex32 = () => randomBytes(16).toString('hex');

const topicOf = (request: TaskRequest) => taskTopic(request.to, request.task_id);

export function lp0008Binding(node: PeerNode): WireBinding {
  return {
    dialect: 'lp-0008',
    peer: { node, requestTopic: topicOf },
    // The task's topic is open and in the clear: the decoder takes only the agent's updates of this task.
    statusTopic: (request) => ({ topic: topicOf(request), options: {} }),
    outgoing: (payload, request) => {
      const envelope = GatewayEnvelope.parse(JSON.parse(decoder.decode(payload)));
      const ids = { rpcId: hex32(), messageId: hex32(), taskId: request.task_id, contextId: request.context_id };
      switch (envelope.type) {
        case 'task_request':
          return encodeMessageSend({ ...ids, skill: envelope.skill, params: envelope.params });
        case 'task_input': {
          const { text, ...params } = envelope.params;
          return encodeContinuation({ ...ids, text: typeof text === 'string' ? text : '', params });
        }
        case 'cancel':
          return encodeTaskCancel(ids.rpcId, request.task_id);
        default:
          // The agent answers no question about a task.
          return undefined;
      }
    },
    // Our own requests, heard back on the topic, and others' updates are dropped as undecodable.
    decodeReply: (payload, maxBytes, nextSeq, request) =>
      peerEnvelope(
        decodeStatusUpdate(payload, maxBytes, {
          agentAccount: request.to,
          taskId: request.task_id,
          contextId: request.context_id,
        }),
        nextSeq,
      ),
    // Nothing on the topic is signed: an update is the agent's by the account it names (decodeStatusUpdate).
    acceptsUnauthenticated: () => true,
    refunds: PAYMENT.refunds,
    paymentTiming: 'after-publishing',
    // The agent takes a task once: a repeated request is ignored, and it answers no question about a task.
    replaysRepeatedRequest: false,
  };
}
