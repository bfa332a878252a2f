/**
 * The logos-agent binding as the engine speaks it (docs/bindings/logos-agent.md), on the node of the network its
 * agents live on: a request or cancel published in the clear on the agent's inbox (its address), replies read from
 * the agent's updates topic, shared by all its clients, and numbered as they arrive.
 */
import { GatewayEnvelope } from '../../envelope.ts';
import { peerEnvelope } from '../common/peer-envelope.ts';
import type { PeerNode, WireBinding } from '../wire-binding.ts';
import { decodeTaskUpdate, encodeTaskCancel, encodeTaskRequest, inboxAccount, updatesTopic, PAYMENT } from './wire.ts';

const decoder = new TextDecoder();

/** The account an inbox topic is named by: the card verifier admitted only such addresses (card.ts). */
function accountOf(inbox: string): string {
  const account = inboxAccount(inbox);
  if (account === undefined) throw new Error(`${inbox} is no logos-agent inbox`);
  return account;
}

export function logosAgentBinding(node: PeerNode): WireBinding {
  return {
    dialect: 'logos-agent',
    // Requests and cancels go to the agent's inbox, its address.
    peer: { node, requestTopic: (request) => request.to },
    // Open: every client of the agent reads it, and the agent publishes unsigned.
    statusTopic: (request) => ({ topic: updatesTopic(accountOf(request.to)), options: {} }),
    outgoing: (payload) => {
      const envelope = GatewayEnvelope.parse(JSON.parse(decoder.decode(payload)));
      if (envelope.type === 'task_request') {
        return encodeTaskRequest({
          taskId: envelope.task_id,
          skill: envelope.skill,
          params: envelope.params,
          ...(envelope.payment ? { paymentTx: envelope.payment.tx_hash } : {}),
        });
      }
      if (envelope.type === 'cancel') return encodeTaskCancel(envelope.task_id);
      // The agent answers no question about a task and takes no input on one.
      return undefined;
    },
    // Other tasks' updates pass by on the shared topic: the engine drops them as another task's.
    decodeReply: (payload, maxBytes, nextSeq) =>
      peerEnvelope(
        decodeTaskUpdate(payload, maxBytes, () => true),
        nextSeq,
      ),
    // Nothing on the updates topic names its publisher (docs/bindings/logos-agent.md): a task's id, a random UUID,
    // is what keeps others' updates apart.
    acceptsUnauthenticated: () => true,
    refunds: PAYMENT.refunds,
    // The agent would run a repeated request again.
    replaysRepeatedRequest: false,
    inputRefusal: 'speaks the logos-agent binding, whose tasks take no input: a task is one request and its result',
  };
}
