/**
 * The agent side of the seed dialect (docs/bindings/seed.md §6, issue #27): an agent on our runtime announced on its
 * own network with a card in the seed's format, answering the seed's requests that arrive 1:1 at its own address
 * beside this binding's. A seed request names no parties: the caller is the request's signer, as the transport
 * reports it, and results go back to it 1:1; statuses go on the seed's task topic in the clear, as a seed agent's do.
 * Only free skills are announced: the seed's payment is a transfer to a shielded account that no request refers to,
 * which the runtime's admission cannot check.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AgentEnvelope } from '../envelope.ts';
import type { LogosAgentCard } from '../card.ts';
import type { LogosTransport, Unsubscribe } from '../transport.ts';
import { schnorrSign } from '../../lez/signing.ts';
import { xOnlyPublicKey } from '../../lez/public-key.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../discovery.ts';
import { seedStatusTopic } from '../seed-dialect.ts';
import {
  cardKeyAccount,
  freeSkills,
  gatewayEnvelope,
  messageText,
  resultData,
  runtimeReply,
  statusKeySecret,
  type PeerAgentHost,
  type PeerFace,
  type PeerReplies,
} from './common/agent-face.ts';
import { decodeJson } from './common/peer-reply.ts';

/** The agent's own node: the seed's requests come 1:1 to the address its card names, beside this binding's. */
export type SeedFaceNode = Pick<LogosTransport, 'address' | 'publish' | 'send' | 'onDirect' | 'maxPayloadBytes'>;

export interface SeedFaceOptions {
  readonly node: SeedFaceNode;
  /** The agent's discovery topic (the seed's cards are announced where this binding's are); the default one if absent. */
  readonly discoveryTopic?: string | undefined;
  /** The agent's card key: the seed id is its x-only public key, the card's signature is made with it. */
  readonly cardKey: Uint8Array;
}

/**
 * A seed request as docs/bindings/seed.md §4 writes it. A body with `v` is this binding's envelope, which the runtime
 * itself reads: the face leaves it alone, so that no request is taken twice.
 */
const SeedRequest = z.object({
  v: z.never().optional(),
  type: z.enum(['task_request', 'task_get', 'cancel']),
  task_id: z.string().min(1).max(128),
  skill: z.string().min(1).max(256).optional(),
  params: z.record(z.string(), z.unknown()).default({}),
});

/**
 * The card in the seed's format (docs/bindings/seed.md §1): the seed id `logos-agent:<x-only key in hex>`, an `a2a`
 * interface at the agent's own address, the free skills priced `"0.0"` LEZ, and a base64 BIP-340 signature with the
 * card key over the SHA-256 of the card's JSON without it (the seed names no scheme, so no gateway checks it).
 */
export function seedCardFor(card: LogosAgentCard, cardKey: Uint8Array, address: string): Record<string, unknown> {
  const unsigned = {
    id: `logos-agent:${bytesToHex(xOnlyPublicKey(cardKey))}`,
    name: card.name,
    description: card.description,
    version: card.version,
    ...(card.provider ? { provider: card.provider } : {}),
    capabilities: { streaming: true, pushNotifications: false },
    agentInterfaces: [{ type: 'a2a', transport: 'logos-messaging', address }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    'x-lez-identity': { account_id: cardKeyAccount(cardKey) },
    'x-lez-price': '0.0',
    skills: freeSkills(card).map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      'x-lez-price': '0.0',
    })),
  };
  const digest = createHash('sha256')
    .update(utf8ToBytes(JSON.stringify(unsigned)))
    .digest();
  // A fixed aux value keeps the announced bytes the same from one announcement to the next (as agent-runtime.ts).
  const signature = Buffer.from(schnorrSign(digest, cardKey, new Uint8Array(32))).toString('base64');
  return { ...unsigned, signature };
}

/** The seed face of an agent with at least one free skill; undefined for an agent with none. */
export function seedFace(card: LogosAgentCard, options: SeedFaceOptions): PeerFace | undefined {
  const { node } = options;
  const seedCard = seedCardFor(card, options.cardKey, node.address);
  if ((seedCard.skills as unknown[]).length === 0) return undefined;
  const discoveryTopic = options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC;
  const secret = statusKeySecret();
  const encoder = new TextEncoder();
  const json = (value: unknown) => encoder.encode(JSON.stringify(value));
  const announced = json(seedCard);
  let unsubscribe: Unsubscribe | undefined;

  /**
   * The runtime's replies to the caller at `caller`: statuses on the task's topic, the end of the task 1:1 (the only
   * way a seed caller takes it, seed.md §5). The runtime never cuts a result into chunks for this side (a seed caller
   * reads one result): one too large for a message fails the task instead.
   */
  const repliesTo = (caller: string): PeerReplies => ({
    maxPayloadBytes: Number.MAX_SAFE_INTEGER,
    publish: async (_topic, payload) => {
      const reply = runtimeReply(payload);
      const body = seedReply(reply);
      if (reply.type === 'task_status') return node.publish(seedStatusTopic(reply.task_id), json(body));
      const bytes = json(body);
      if (bytes.length <= node.maxPayloadBytes) return node.send(caller, bytes);
      const error = `the result is ${bytes.length} bytes; a message of this network carries ${node.maxPayloadBytes}`;
      return node.send(caller, json({ type: 'task_result', task_id: reply.task_id, state: 'failed', error }));
    },
  });

  const hear = (host: PeerAgentHost, payload: Uint8Array, sender: string | undefined) => {
    if (sender === undefined) return; // a seed caller is its request's signer: an unsigned request has nobody to answer
    const decoded = decodeJson(SeedRequest, payload, node.maxPayloadBytes);
    if (!decoded.ok) return; // this binding's envelopes and what is no seed request are not the face's to answer
    const request = decoded.value;
    const body =
      request.type === 'task_request'
        ? // A seed task is its own conversation: it has no context of its own. The price is the runtime's to check.
          request.skill === undefined
          ? undefined
          : {
              type: 'task_request' as const,
              context_id: request.task_id,
              skill: request.skill,
              params: request.params,
              lez_price: '0',
            }
        : request.type === 'task_get'
          ? { type: 'task_get' as const, after_seq: 0 }
          : { type: 'cancel' as const };
    const envelope = body && gatewayEnvelope(body, request.task_id, sender, node.address, secret);
    if (envelope) host.accept(envelope, sender, repliesTo(sender));
  };

  return {
    binding: 'seed',
    // Not a configured network: the agent's own, where its card is announced.
    network: 'own',
    discoveryTopic,
    card: seedCard,
    start(host) {
      unsubscribe ??= node.onDirect((payload, { sender }) => hear(host, payload, sender));
    },
    announce: () => node.publish(discoveryTopic, announced),
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}

/** A runtime reply in the seed's words (seed.md §5): a state, a result, an error as a string. */
function seedReply(reply: AgentEnvelope): Record<string, unknown> {
  const task_id = reply.task_id;
  switch (reply.type) {
    case 'task_status':
      return { type: 'task_status', task_id, state: reply.state };
    case 'cancelled':
      return { type: 'cancelled', task_id };
    case 'task_result':
      if (reply.state === 'completed')
        return { type: 'task_result', task_id, state: 'completed', result: resultData(reply) };
      return {
        type: 'task_result',
        task_id,
        state: reply.state,
        error: reply.error?.message ?? messageText(reply.message),
      };
  }
}
