/**
 * Outside callers of the lp-0008, logos-agent and pilot bindings, written from the bindings' descriptions with stock
 * packages only, as a client of those projects calls an agent: it hears cards on the discovery topic, checks their
 * signatures with the binding's scheme, and speaks the binding's requests, reading the agent's updates where the
 * binding puts them. They stand for the other side when an agent on this project's runtime is called on a peer
 * binding, so nothing here comes from `src/`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  eciesDecrypt,
  eciesEncrypt,
  es256kVerify,
  pilotSign,
  secp256k1PublicHex,
  verifyBip340Jws,
  verifyEd25519Card,
} from './peer-crypto.ts';
import { joinRelay } from './relay-node.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const hex32 = () => crypto.randomUUID().replaceAll('-', '');

type Json = Record<string, unknown>;

function parse(payload: Uint8Array): Json | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(payload));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** A relay node on the binding's shard, keeping the cards heard on `discovery` and every message by its topic. */
async function listening(peer: string, clusterId: number, discovery: string) {
  const node = await joinRelay(peer, clusterId, discovery);
  const cards: Json[] = [];
  const byTopic = new Map<string, Json[]>();
  const textOn = new Map<string, string[]>();
  node.onMessage((topic, payload) => {
    textOn.set(topic, [...(textOn.get(topic) ?? []), decoder.decode(payload)]);
    const message = parse(payload);
    if (!message) return;
    if (topic === discovery) cards.push(message);
    else byTopic.set(topic, [...(byTopic.get(topic) ?? []), message]);
  });
  const heardOn = (topic: string) => byTopic.get(topic) ?? [];
  /** What came on `topic` as text, JSON or not (pilot's replies are ECIES text). */
  const textsOn = (topic: string) => textOn.get(topic) ?? [];
  return { node, cards, heardOn, textsOn };
}

export interface Lp0008Task {
  readonly taskId: string;
  readonly contextId: string;
  readonly topic: string;
  /** The agent's status updates of this task, as they arrived (only those from `account`, as the binding says). */
  updates(): Json[];
}

/** lp-0008: a request, its continuation and its cancel on the task's topic; updates read from the same topic. */
export async function lp0008Caller(peer: string, discovery: string, clusterId = 3) {
  const { node, cards, heardOn } = await listening(peer, clusterId, discovery);
  const publish = (topic: string, message: Json) => node.publish(topic, encoder.encode(JSON.stringify(message)));
  const send = (task: Lp0008Task, data: Json) =>
    publish(task.topic, {
      jsonrpc: '2.0',
      id: hex32(),
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: hex32(),
          taskId: task.taskId,
          contextId: task.contextId,
          parts: [{ kind: 'data', data }],
        },
      },
    });
  return {
    node,
    cards,
    /** The first card heard that verifies with the x-only key its agent published apart. */
    verifiedCard: (xOnlyKeyHex: string) => cards.find((card) => verifyBip340Jws(card, xOnlyKeyHex)),
    async task(account: string, skill: string, params: Json): Promise<Lp0008Task> {
      const taskId = hex32();
      const contextId = hex32();
      const topic = `/lp-0008/1/task-${account}-${taskId}/json`;
      const task = {
        taskId,
        contextId,
        topic,
        updates: () =>
          heardOn(topic).filter(
            (m) =>
              m.kind === 'status-update' &&
              m.taskId === taskId &&
              m.contextId === contextId &&
              (m.metadata as { 'x-logos'?: { from?: string } } | undefined)?.['x-logos']?.from === account,
          ),
      };
      await send(task, { skill, params });
      return task;
    },
    /** The answer to `input-required`: the same task and context. */
    answer: (task: Lp0008Task, message: string) => send(task, { message, params: {} }),
    cancel: (task: Lp0008Task) =>
      publish(task.topic, { jsonrpc: '2.0', id: hex32(), method: 'tasks/cancel', params: { id: task.taskId } }),
    stop: () => node.stop(),
  };
}

/** The state and text of an lp-0008 status update. */
export function lp0008State(update: Json): { state: string; text: string } {
  const status = update.status as { state: string; message?: { parts?: { text?: string }[] } };
  return { state: status.state, text: (status.message?.parts ?? []).map((part) => part.text ?? '').join('\n') };
}

/** logos-agent: requests and cancels on the inbox the card names; updates read on the account's updates topic. */
export async function logosAgentCaller(peer: string, discovery = '/logos-agent/1/a2a-discovery/proto', clusterId = 2) {
  const { node, cards, heardOn } = await listening(peer, clusterId, discovery);
  const publish = (topic: string, message: Json) => node.publish(topic, encoder.encode(JSON.stringify(message)));
  return {
    node,
    cards,
    /** The first card heard whose Ed25519 signature verifies with the key it carries. */
    verifiedCard: () => cards.find(verifyEd25519Card),
    /** A task of a UUID id (the updates topic is shared by every client); its updates, in order. */
    async task(card: Json, skill: string, params: Json) {
      const taskId = crypto.randomUUID();
      await publish(card.address as string, { kind: 'task_request', taskId, skill, params });
      const updatesTopic = `/logos-agent/1/a2a-${card.lezAccount as string}-updates/proto`;
      return {
        taskId,
        updates: () => heardOn(updatesTopic).filter((m) => m.kind === 'task_update' && m.taskId === taskId),
      };
    },
    cancel: (card: Json, taskId: string) => publish(card.address as string, { kind: 'task_cancel', taskId }),
    stop: () => node.stop(),
  };
}

/** Whether a pilot card or reply verifies ES256K over itself without its signature, by the key it names. */
function pilotSigned(value: Json): boolean {
  if ('signature' in value && typeof value.signature === 'object') {
    const { signature, ...unsigned } = value as { signature: { publicKey: string; value: string } };
    return es256kVerify(unsigned, signature.value, signature.publicKey);
  }
  const { signature, ...logos } = value._logos as { signature: string; signing_key: string };
  return es256kVerify({ ...value, _logos: logos }, signature, logos.signing_key);
}

/**
 * pilot: signed requests encrypted to the card's `enc_key` on its inbox; each answered once, signed by the card's
 * key (pinned at first contact) and encrypted to this caller, on the reply topic it names.
 */
export async function pilotCaller(peer: string, discovery = '/pilot/1/discovery/proto', clusterId = 2) {
  const { node, cards, textsOn } = await listening(peer, clusterId, discovery);
  const signingKey = secp256k1.utils.randomSecretKey();
  const eciesKey = secp256k1.utils.randomSecretKey();
  const senderNpk = `caller-${hex32()}`;
  const request = async (card: Json, taskId: string, rpcId: string, method: string, params: Json) => {
    const logos = card._logos as { enc_key: string; inbox_topic: string };
    const replyTopic = `/pilot/1/reply-${taskId}/proto`;
    const signed = pilotSign(
      {
        _logos: {
          reply_topic: replyTopic,
          sender_ecies: secp256k1PublicHex(eciesKey),
          sender_npk: senderNpk,
          timestamp: String(Math.floor(Date.now() / 1000)),
        },
        id: rpcId,
        jsonrpc: '2.0',
        method,
        params,
      },
      signingKey,
    );
    await node.publish(logos.inbox_topic, encoder.encode(eciesEncrypt(logos.enc_key, JSON.stringify(signed))));
    return replyTopic;
  };
  return {
    node,
    cards,
    /** The first card heard whose ES256K signature verifies with the key it carries. */
    verifiedCard: () => cards.find(pilotSigned),
    /** A `tasks/send`; its answers, decrypted, and only those signed by the card's key. */
    async task(card: Json, skill: string, input: Json) {
      const taskId = hex32();
      const params = {
        id: taskId,
        message: { parts: [{ text: input, type: 'text' }], role: 'user' },
        metadata: { skill },
      };
      const replyTopic = await request(card, taskId, taskId, 'tasks/send', params);
      const cardKey = (card._logos as { signing_key: string }).signing_key;
      return {
        taskId,
        answers: () =>
          textsOn(replyTopic).flatMap((wire) => {
            const plaintext = eciesDecrypt(eciesKey, wire);
            const answer = plaintext === undefined ? undefined : (JSON.parse(plaintext) as Json);
            const key = (answer?._logos as { signing_key?: string } | undefined)?.signing_key;
            return answer && key === cardKey && pilotSigned(answer) ? [answer] : [];
          }),
      };
    },
    cancel: (card: Json, taskId: string) => request(card, taskId, `${taskId}-cancel`, 'tasks/cancel', { id: taskId }),
    stop: () => node.stop(),
  };
}
