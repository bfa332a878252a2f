/**
 * The pilot binding as the engine speaks it (docs/bindings/pilot.md), on the node of the network its agents live
 * on: a request or cancel signed with the gateway's pilot identity and encrypted to the agent, on its inbox (its
 * address); the one reply per request read on the task's reply topic, decrypted with the gateway's key and taken
 * only when signed by the key pinned for the agent at first contact.
 */
import { GatewayEnvelope, type TaskRequest } from '../../envelope.ts';
import { peerEnvelope } from '../common/peer-envelope.ts';
import type { PeerNode, WireBinding } from '../wire-binding.ts';
import type { PilotPins } from './pins.ts';
import {
  decodeReply,
  encodeTaskCancel,
  encodeTaskSend,
  PAYMENT,
  replyTopic,
  skillInput,
  type PilotAgent,
  type PilotIdentity,
} from './wire.ts';

/** What the gateway keeps for pilot agents: who it is to them, and the keys it pinned for them. */
export interface PilotSide {
  readonly identity: PilotIdentity;
  readonly pins: PilotPins;
}

const INBOX = /^\/pilot\/1\/inbox-([0-9a-fA-F]+)\/proto$/;
const decoder = new TextDecoder();

/** Whether `address` is a pilot inbox, the address its verified cards name (card.ts). */
export function isPilotInbox(address: string): boolean {
  return INBOX.test(address);
}

/** The agent of a task: its encryption key from its inbox, its signing key as pinned. */
function agentOf(request: TaskRequest, pins: PilotPins): PilotAgent {
  const encryptionKey = INBOX.exec(request.to)?.[1];
  const signingKey = pins.keyAt(request.to);
  if (encryptionKey === undefined || signingKey === undefined)
    throw new Error(`no pilot agent with a pinned key listens at ${request.to}`);
  return { encryptionKey, signingKey };
}

const now = () => Math.floor(Date.now() / 1000);

export function pilotBinding(node: PeerNode, { identity, pins }: PilotSide): WireBinding {
  return {
    dialect: 'pilot',
    peer: { node, requestTopic: (request) => request.to },
    // Replies are encrypted to the gateway and signed by the agent: the topic needs no key of its own.
    statusTopic: (request) => ({ topic: replyTopic(request.task_id), options: {} }),
    outgoing: (payload, request) => {
      const envelope = GatewayEnvelope.parse(JSON.parse(decoder.decode(payload)));
      const agent = agentOf(request, pins);
      if (envelope.type === 'task_request') {
        return encodeTaskSend(identity, agent, {
          taskId: request.task_id,
          skill: envelope.skill,
          input: skillInput(envelope.skill, envelope.params),
          now: now(),
        });
      }
      if (envelope.type === 'cancel') return encodeTaskCancel(identity, agent, request.task_id, now());
      // The agent answers no question about a task but a repeated request, and takes no input.
      return undefined;
    },
    decodeReply: (payload, maxBytes, nextSeq, request) =>
      peerEnvelope(decodeReply(payload, maxBytes, identity, agentOf(request, pins), request.task_id), nextSeq),
    // Every reply taken was signed by the agent's pinned key (decodeReply).
    acceptsUnauthenticated: () => true,
    refunds: PAYMENT.refunds,
    // A repeated request is answered with the reply the task got, or not at all while it runs: never run again.
    replaysRepeatedRequest: true,
    inputRefusal:
      "speaks the pilot binding, which takes no input on a task: its input-required waits for the agent's owner",
  };
}
