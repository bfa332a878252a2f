/**
 * The agent side of the lp-0008 binding (docs/bindings/lp-0008.md): an agent on our runtime announced with the
 * binding's card, a JWS with a detached payload signed BIP-340 by its card key itself, `kid` its LEZ account, the
 * x-only key published apart (`keyApart`: the operator hands it to the gateways that call it, as the binding's
 * agents publish theirs beside the card). The agent has no inbox: a task's topic is named by the account and the
 * task id, so the face reads every message of the binding's shard and takes those on its account's task topics:
 * `message/send` (a new task, or the answer to `input-required` on the same task) and `tasks/cancel`; it answers
 * with v0.3 `status-update`s on the same topic. Only free skills are announced: the binding's payment is a transfer
 * that nothing ties to a task, which an agent could only count against its balance.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64urlnopad } from '@scure/base';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { TERMINAL_WIRE_STATES, type AgentEnvelope } from '../../envelope.ts';
import type { LogosAgentCard } from '../../card.ts';
import type { Unsubscribe } from '../../transport.ts';
import { xOnlyPublicKey } from '../../../lez/public-key.ts';
import {
  cardKeyAccount,
  freeSkills,
  gatewayEnvelope,
  messageText,
  partsText,
  resultText,
  runtimeReply,
  statusKeySecret,
  type FaceOptions,
  type PeerAgentHost,
  type PeerFace,
  type PeerReplies,
} from '../common/agent-face.ts';
import { decodeJson } from '../common/peer-reply.ts';
import { cardPayload, JWS_ALG } from './card.ts';
import { APP, APP_VERSION, IDENTIFIER, taskTopic } from './wire.ts';

/** Who the runtime is told a request came from: the binding names no caller, so anyone on the topic may go on. */
const SENDER = 'lp-0008';
const Identifier = z.string().regex(IDENTIFIER);
const Part = z.object({ kind: z.string(), text: z.string().optional(), data: z.unknown().optional() }).loose();
const Data = z
  .object({
    skill: z.string().min(1).max(256).optional(),
    message: z.string().optional(),
    params: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();
const Incoming = z.discriminatedUnion('method', [
  z.object({
    jsonrpc: z.literal('2.0'),
    method: z.literal('message/send'),
    params: z.object({
      message: z.object({ taskId: Identifier, contextId: Identifier, parts: z.array(Part).max(64) }).loose(),
    }),
  }),
  z.object({ jsonrpc: z.literal('2.0'), method: z.literal('tasks/cancel'), params: z.object({ id: Identifier }) }),
]);
type MessageSend = Extract<z.infer<typeof Incoming>, { method: 'message/send' }>;

/** The card in the binding's shape, its JWS signed by `cardKey` (deterministic: zero aux, as the binding signs). */
export function lp0008CardFor(card: LogosAgentCard, cardKey: Uint8Array): Record<string, unknown> {
  const account = cardKeyAccount(cardKey);
  const unsigned = {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: `logos-messaging://${account}`,
    preferredTransport: 'logos-messaging',
    version: card.version,
    capabilities: { streaming: true, stateTransitionHistory: false, pushNotifications: false },
    defaultInputModes: ['application/json'],
    // Results are the text of the final status message.
    defaultOutputModes: ['text/plain'],
    skills: freeSkills(card).map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
    })),
    'x-logos': { lezAccount: account },
  };
  const protectedHeader = base64urlnopad.encode(utf8ToBytes(JSON.stringify({ alg: JWS_ALG, kid: account })));
  const digest = sha256(utf8ToBytes(`${protectedHeader}.${cardPayload(unsigned)}`));
  const signature = base64urlnopad.encode(schnorr.sign(digest, cardKey, new Uint8Array(32)));
  return { ...unsigned, signatures: [{ protected: protectedHeader, signature }] };
}

/**
 * The face of an agent with at least one free skill on an lp-0008 network; undefined for an agent with none.
 * Throws when the network names no board to announce on (the binding has none of its own) or its node cannot read
 * a whole shard: configuration errors.
 */
export function lp0008Face(card: LogosAgentCard, options: FaceOptions): PeerFace | undefined {
  const { node, discoveryTopic } = options;
  if (discoveryTopic === undefined) {
    throw new Error(`network ${options.network}: lp-0008 has no discovery topic of its own; set its discoveryTopic`);
  }
  const { onRelayMessage, relayContentTopic } = node;
  if (!onRelayMessage || !relayContentTopic) {
    throw new Error(`network ${options.network}: an lp-0008 agent needs a relay node, which reads a whole shard`);
  }
  const peerCard = lp0008CardFor(card, options.cardKey);
  if ((peerCard.skills as unknown[]).length === 0) return undefined;
  const account = cardKeyAccount(options.cardKey);
  const prefix = `/${APP}/${APP_VERSION}/task-${account}-`;
  const secret = statusKeySecret();
  const encoder = new TextEncoder();
  const announced = encoder.encode(JSON.stringify(peerCard));
  let stopReading: Unsubscribe | undefined;

  /** Where the runtime's replies to one task go: its topic, as status updates of its context. */
  const repliesOn = (taskId: string, contextId: string): PeerReplies => ({
    // One update carries one result: the runtime never cuts it into chunks here (too large fails, below).
    maxPayloadBytes: Number.MAX_SAFE_INTEGER,
    publish: async (_topic, payload) => {
      const topic = taskTopic(account, taskId);
      const task = { taskId, contextId, account };
      const bytes = statusUpdate(task, ...stateAndText(runtimeReply(payload)));
      if (bytes.length <= node.maxPayloadBytes) return node.publish(topic, bytes);
      const failure = `the result is ${bytes.length} bytes; a message of this network carries ${node.maxPayloadBytes}`;
      return node.publish(topic, statusUpdate(task, 'failed', failure));
    },
  });

  const hear = (host: PeerAgentHost, contentTopic: string, payload: Uint8Array) => {
    if (!contentTopic.startsWith(prefix) || !contentTopic.endsWith('/json')) return;
    const taskId = contentTopic.slice(prefix.length, -'/json'.length);
    // Our own updates come back on the topic, and anything else is not a request.
    const decoded = decodeJson(Incoming, payload, node.maxPayloadBytes);
    if (!decoded.ok) return;
    const rpc = decoded.value;
    if (rpc.method === 'tasks/cancel') {
      if (rpc.params.id !== taskId) return;
      const envelope = gatewayEnvelope({ type: 'cancel' }, taskId, SENDER, account, secret);
      // A running task answers on the replies of its request; these carry only the answer about a task the agent
      // does not have, whose context nobody knows (a cancel names none): the task id stands for it.
      if (envelope) host.accept(envelope, SENDER, repliesOn(taskId, taskId));
      return;
    }
    const { message } = rpc.params;
    if (message.taskId !== taskId) return;
    const body = requestBody(message);
    const envelope = body && gatewayEnvelope(body, taskId, SENDER, account, secret);
    if (envelope) host.accept(envelope, SENDER, repliesOn(taskId, message.contextId));
  };

  return {
    binding: 'lp-0008',
    network: options.network,
    discoveryTopic,
    card: peerCard,
    keyApart: { kid: account, key: bytesToHex(xOnlyPublicKey(options.cardKey)) },
    start(host) {
      if (stopReading) return;
      // Every lp-0008 topic is on one shard: joining the board's joins the tasks'.
      relayContentTopic.call(node, discoveryTopic);
      stopReading = onRelayMessage.call(node, (message) => hear(host, message.contentTopic, message.payload));
    },
    announce: () => node.publish(discoveryTopic, announced),
    stop() {
      stopReading?.();
      stopReading = undefined;
    },
  };
}

/**
 * A `message/send` as a request: with a `skill`, a new task of it (its data's `params`, and the text parts as
 * `params.text` unless the params have one); without, the answer to `input-required`, its `message` (or text parts)
 * as `params.text`. The runtime takes the first only for a task it does not have, the second only for one that
 * waits for input. Undefined when it says neither.
 */
function requestBody(message: MessageSend['params']['message']) {
  const dataPart = message.parts.find((part) => part.kind === 'data');
  const data = Data.safeParse(dataPart?.data ?? {});
  if (!data.success) return undefined;
  const text = partsText(message.parts.flatMap((part) => (typeof part.text === 'string' ? [{ text: part.text }] : [])));
  const { skill, message: answer, params } = data.data;
  if (skill !== undefined) {
    const withText = text === '' || 'text' in params ? params : { ...params, text };
    return { type: 'task_request' as const, context_id: message.contextId, skill, params: withText };
  }
  const reply = answer ?? text;
  if (reply === '' && Object.keys(params).length === 0) return undefined;
  return { type: 'task_input' as const, params: { ...params, text: reply } };
}

/** A status update of the task in `state`, `text` its status message's (none when empty). */
function statusUpdate(
  { taskId, contextId, account }: { taskId: string; contextId: string; account: string },
  state: string,
  text: string,
): Uint8Array {
  const message =
    text === ''
      ? {}
      : {
          message: {
            kind: 'message',
            role: 'agent',
            messageId: randomBytes(16).toString('hex'),
            taskId,
            contextId,
            parts: [{ kind: 'text', text }],
          },
        };
  return new TextEncoder().encode(
    JSON.stringify({
      kind: 'status-update',
      taskId,
      contextId,
      final: TERMINAL_WIRE_STATES.has(state as never),
      status: { state, ...message },
      metadata: { 'x-logos': { from: account } },
    }),
  );
}

/** A runtime reply as the binding's state, and what it says as text. */
function stateAndText(reply: AgentEnvelope): [state: string, text: string] {
  switch (reply.type) {
    case 'task_status':
      return [reply.state, reply.artifact ? partsText(reply.artifact.parts) : messageText(reply.message)];
    case 'cancelled':
      return ['canceled', messageText(reply.message)];
    case 'task_result':
      if (reply.state === 'completed') return ['completed', resultText(reply)];
      return [reply.state, reply.error?.message ?? messageText(reply.message)];
  }
}
