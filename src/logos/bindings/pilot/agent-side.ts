/**
 * The agent side of the pilot binding (docs/bindings/pilot.md): an agent on our runtime announced with the
 * binding's ES256K-signed card, hearing on its inbox (named by its ECIES key) requests encrypted to it and signed
 * by their sender, whose signing key is pinned to its `sender_npk` at first contact; it answers each `tasks/send`
 * and `tasks/cancel` once, signed and encrypted to the sender's ECIES key, on the reply topic the request names.
 * The senders are authenticated: only a task's sender may cancel it. Its signing and ECIES keys are made from the
 * card key (so they last as long as it is kept). Only free skills are announced: pilot pays after a signed
 * completion, which this side does not take yet.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import type { AgentEnvelope } from '../../envelope.ts';
import type { LogosAgentCard } from '../../card.ts';
import type { Unsubscribe } from '../../transport.ts';
import {
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
import { decrypt, encrypt } from './ecies.ts';
import { publicKeyHex, sameKey, signObject, verifyObject } from './signing.ts';
import { DISCOVERY_TOPIC, inboxTopic } from './wire.ts';

const KeyHex = z.string().regex(/^(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/);
const TaskId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const Request = z.object({
  _logos: z
    .object({
      reply_topic: z.string().regex(/^\/pilot\/1\/reply-[A-Za-z0-9_-]{1,128}\/proto$/),
      sender_ecies: KeyHex,
      sender_npk: z.string().min(1).max(4096),
      signature: z.string().regex(/^[0-9a-fA-F]+$/),
      signing_key: KeyHex,
    })
    .loose(),
  id: z.union([z.string().max(256), z.number()]),
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.object({ id: TaskId }).loose(),
});
const SendParams = z.object({
  id: TaskId,
  message: z.object({ parts: z.array(z.object({ text: z.unknown() }).loose()).min(1) }).loose(),
  metadata: z.object({ skill: z.string().min(1).max(256) }).loose(),
});

/** A secp256k1 secret of the agent's pilot identity, made from its card key under `label`. */
function secretOf(cardKey: Uint8Array, label: string): Uint8Array {
  return sha256(concatBytes(utf8ToBytes(`logos-a2a/pilot ${label}/`), cardKey));
}

/** The card in the binding's shape, signed ES256K over its members sorted, `signature` left out (signing.ts). */
export function pilotCardFor(card: LogosAgentCard, cardKey: Uint8Array): Record<string, unknown> {
  const signingSecret = secretOf(cardKey, 'signing key');
  const signingKey = publicKeyHex(signingSecret);
  const encKey = publicKeyHex(secretOf(cardKey, 'ecies key'));
  const unsigned = {
    _logos: {
      enc_key: encKey,
      inbox_topic: inboxTopic(encKey),
      npk: `logos-a2a:${signingKey.slice(2, 34)}`,
      open_for_hire: true,
      pricing: {},
      signing_key: signingKey,
    },
    description: card.description,
    name: card.name,
    skills: freeSkills(card).map((skill) => ({ id: skill.id, name: skill.name, description: skill.description })),
    version: card.version,
  };
  return {
    ...unsigned,
    signature: { alg: 'ES256K', publicKey: signingKey, value: signObject(unsigned, signingSecret) },
  };
}

/** The face of an agent with at least one free skill on a pilot network; undefined for an agent with none. */
export function pilotFace(card: LogosAgentCard, options: FaceOptions): PeerFace | undefined {
  const peerCard = pilotCardFor(card, options.cardKey);
  if ((peerCard.skills as unknown[]).length === 0) return undefined;
  const { node } = options;
  const signingSecret = secretOf(options.cardKey, 'signing key');
  const eciesSecret = secretOf(options.cardKey, 'ecies key');
  const inbox = (peerCard._logos as { inbox_topic: string }).inbox_topic;
  const discoveryTopic = options.discoveryTopic ?? DISCOVERY_TOPIC;
  const secret = statusKeySecret();
  // Senders' keys, pinned at first contact for this run: a sender seen under another key is not heard.
  const pins = new Map<string, string>();
  const encoder = new TextEncoder();
  const announced = encoder.encode(JSON.stringify(peerCard));
  let unsubscribe: Unsubscribe | undefined;

  /** One answer to a request: signed, encrypted to its sender, on its reply topic. */
  const answer = (request: z.infer<typeof Request>, body: Record<string, unknown>) => {
    const reply = { _logos: { signing_key: publicKeyHex(signingSecret) }, id: request.id, jsonrpc: '2.0', ...body };
    const signed = { ...reply, _logos: { ...reply._logos, signature: signObject(reply, signingSecret) } };
    const sealed = encrypt(request._logos.sender_ecies, encoder.encode(JSON.stringify(signed)));
    return node.publish(request._logos.reply_topic, encoder.encode(sealed));
  };

  // The runtime's replies to one request: pilot gets one answer, so only where the task comes to rest.
  const repliesTo = (request: z.infer<typeof Request>): PeerReplies => ({
    maxPayloadBytes: Number.MAX_SAFE_INTEGER,
    publish: async (_topic, payload) => {
      const reply = runtimeReply(payload);
      const settled = answerOf(reply);
      if (settled) await answer(request, { result: { id: reply.task_id, ...settled } });
    },
  });

  const hear = (host: PeerAgentHost, payload: Uint8Array) => {
    const plaintext = decrypt(eciesSecret, new TextDecoder().decode(payload));
    if (!plaintext) return; // not for this agent
    const raw = decodeJson(z.record(z.string(), z.unknown()), plaintext, node.maxPayloadBytes);
    const parsed = raw.ok ? Request.safeParse(raw.value) : undefined;
    if (!raw.ok || !parsed?.success) return;
    const request = parsed.data;
    const { signature, ...unsigned } = raw.value._logos as Record<string, unknown>;
    const sender = request._logos.sender_npk;
    const pinned = pins.get(sender);
    if (pinned !== undefined && !sameKey(pinned, request._logos.signing_key)) return;
    if (!verifyObject({ ...raw.value, _logos: unsigned }, String(signature), request._logos.signing_key)) return;
    pins.set(sender, request._logos.signing_key);
    const taskId = request.params.id;
    let body;
    if (request.method === 'tasks/cancel') body = { type: 'cancel' as const };
    else if (request.method === 'tasks/send') {
      const send = SendParams.safeParse(request.params);
      if (!send.success) {
        void answer(request, { error: { code: -32602, message: 'a task needs its id, skill and message' } });
        return;
      }
      const input = send.data.message.parts[0]!.text;
      body = {
        type: 'task_request' as const,
        context_id: taskId,
        skill: send.data.metadata.skill,
        params: paramsOf(input),
      };
    } else {
      void answer(request, { error: { code: -32601, message: `unknown method ${request.method.slice(0, 64)}` } });
      return;
    }
    const envelope = gatewayEnvelope(body, taskId, sender, inbox, secret);
    if (envelope) host.accept(envelope, sender, repliesTo(request));
  };

  return {
    binding: 'pilot',
    network: options.network,
    discoveryTopic,
    card: peerCard,
    start(host) {
      unsubscribe ??= node.subscribe(inbox, (payload) => hear(host, payload));
    },
    announce: () => node.publish(discoveryTopic, announced),
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}

/** The skill's input: an object as its params, a JSON string of one likewise, any other text as `params.text`. */
function paramsOf(input: unknown): Record<string, unknown> {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input as Record<string, unknown>;
  if (typeof input !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(input);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // plain text
  }
  return { text: input };
}

/** Where a runtime reply leaves the task, as pilot's `status` and `result`; undefined for progress (not answered). */
function answerOf(reply: AgentEnvelope): { status: { state: string }; result: unknown } | undefined {
  switch (reply.type) {
    case 'task_status':
      if (reply.state !== 'input-required' && reply.state !== 'auth-required') return undefined;
      return { status: { state: 'input-required' }, result: { reason: messageText(reply.message) } };
    case 'cancelled':
      return { status: { state: 'canceled' }, result: null };
    case 'task_result':
      if (reply.state === 'completed') return { status: { state: 'completed' }, result: resultData(reply) };
      return { status: { state: 'failed' }, result: { error: reply.error?.message ?? messageText(reply.message) } };
  }
}
