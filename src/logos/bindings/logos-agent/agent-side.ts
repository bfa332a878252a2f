/**
 * The agent side of the logos-agent binding (docs/bindings/logos-agent.md): an agent on our runtime announced with
 * the binding's Ed25519-signed card, named by its card key's LEZ account, hearing `task_request` and `task_cancel`
 * on its inbox and publishing `task_update`s on its updates topic, which every client of it reads. The Ed25519 key
 * is made from the card key (so it lasts as long as the card key is kept); the card carries its public half, as the
 * binding's cards do. Only free skills are announced: the binding's payment is a transfer the agent would have to
 * find by itself, which this side does not do.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import type { AgentEnvelope } from '../../envelope.ts';
import type { LogosAgentCard } from '../../card.ts';
import type { Unsubscribe } from '../../transport.ts';
import {
  cardKeyAccount,
  freeSkills,
  gatewayEnvelope,
  messageText,
  resultData,
  runtimeReply,
  statusKeySecret,
  type FaceOptions,
  type PeerAgentHost,
  type PeerFace,
  type PeerReplies,
} from '../common/agent-face.ts';
import { decodeJson } from '../common/peer-reply.ts';
import { signedBytes, type PeerLogosAgentCard } from './card.ts';
import { DISCOVERY_TOPIC, inboxTopic, updatesTopic } from './wire.ts';

/** Who the runtime is told a request came from: the binding names no caller, so anyone on the inbox may go on. */
const SENDER = 'logos-agent';
const TaskId = z.string().min(1).max(256);
const Incoming = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('task_request'),
    taskId: TaskId,
    skill: z.string().min(1).max(256),
    params: z.record(z.string(), z.unknown()).default({}),
  }),
  z.object({ kind: z.literal('task_cancel'), taskId: TaskId }),
]);

/** The Ed25519 secret of the agent's logos-agent card: made from its card key, under a label of its own. */
function signingSecret(cardKey: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8ToBytes('logos-a2a/logos-agent card key/'), cardKey));
}

/** The card in the binding's shape, signed over its struct-ordered bytes (card.ts `signedBytes`). */
export function logosAgentCardFor(card: LogosAgentCard, cardKey: Uint8Array): PeerLogosAgentCard {
  const account = cardKeyAccount(cardKey);
  const secret = signingSecret(cardKey);
  const unsigned: PeerLogosAgentCard = {
    protocolVersion: '0.2.5',
    name: card.name,
    description: card.description,
    version: card.version,
    address: inboxTopic(account),
    lezAccount: account,
    // Our runtime reports progress as it goes: updates stream.
    capabilities: { streaming: true },
    skills: freeSkills(card).map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      priceLez: '0',
    })),
    signingPubkey: bytesToHex(ed25519.getPublicKey(secret)),
  };
  return { ...unsigned, signature: bytesToHex(ed25519.sign(signedBytes(unsigned), secret)) };
}

/** The face of an agent with at least one free skill on a logos-agent network; undefined for an agent with none. */
export function logosAgentFace(card: LogosAgentCard, options: FaceOptions): PeerFace | undefined {
  const peerCard = logosAgentCardFor(card, options.cardKey);
  if (peerCard.skills.length === 0) return undefined;
  const { node } = options;
  const account = peerCard.lezAccount;
  const updates = updatesTopic(account);
  const discoveryTopic = options.discoveryTopic ?? DISCOVERY_TOPIC;
  const secret = statusKeySecret();
  const encoder = new TextEncoder();
  const announced = encoder.encode(JSON.stringify(peerCard));
  let unsubscribe: Unsubscribe | undefined;

  const publishUpdate = (taskId: string, state: string, result: unknown) =>
    node.publish(updates, encoder.encode(JSON.stringify({ kind: 'task_update', taskId, state, result })));

  // The runtime's replies, as task updates. The runtime never cuts a result into chunks for this side (the peer
  // reads only one result): one too large for a message fails the task instead.
  const replies: PeerReplies = {
    maxPayloadBytes: Number.MAX_SAFE_INTEGER,
    publish: async (_topic, payload) => {
      const reply = runtimeReply(payload);
      const [state, result] = update(reply);
      const bytes = encoder.encode(JSON.stringify({ kind: 'task_update', taskId: reply.task_id, state, result }));
      if (bytes.length <= node.maxPayloadBytes) return node.publish(updates, bytes);
      const message = `the result is ${bytes.length} bytes; a message of this network carries ${node.maxPayloadBytes}`;
      return publishUpdate(reply.task_id, 'failed', { error: message });
    },
  };

  const hear = (host: PeerAgentHost, payload: Uint8Array) => {
    const decoded = decodeJson(Incoming, payload, node.maxPayloadBytes);
    if (!decoded.ok) return; // what is not a request (a peer's own chatter on the inbox) is not answered
    const incoming = decoded.value;
    const body =
      incoming.kind === 'task_request'
        ? // A task of this binding is its own conversation: it has no context of its own.
          { type: 'task_request' as const, context_id: incoming.taskId, skill: incoming.skill, params: incoming.params }
        : { type: 'cancel' as const };
    const envelope = gatewayEnvelope(body, incoming.taskId, SENDER, peerCard.address, secret);
    if (envelope) host.accept(envelope, SENDER, replies);
  };

  return {
    binding: 'logos-agent',
    network: options.network,
    discoveryTopic,
    card: peerCard,
    start(host) {
      unsubscribe ??= node.subscribe(peerCard.address, (payload) => hear(host, payload));
    },
    announce: () => node.publish(discoveryTopic, announced),
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}

/** A runtime reply as the binding's `state` and `result`: the result is the skill's JSON output, an error `{error}`. */
function update(reply: AgentEnvelope): [state: string, result: unknown] {
  switch (reply.type) {
    case 'task_status':
      // The binding has no `auth-required`: the caller is asked all the same.
      return [reply.state === 'auth-required' ? 'input-required' : reply.state, null];
    case 'cancelled':
      return ['canceled', null];
    case 'task_result':
      if (reply.state !== 'completed') return ['failed', { error: reply.error?.message ?? messageText(reply.message) }];
      return ['completed', resultData(reply)];
  }
}
