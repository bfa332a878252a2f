/**
 * Outside callers of the lp-0008 and logos-agent bindings, written from the bindings' descriptions with stock
 * packages only, as a client of those projects calls an agent: it hears cards on the discovery topic, checks their
 * signatures with the binding's scheme, and speaks the binding's requests, reading the agent's updates where the
 * binding puts them. They stand for the other side when an agent on this project's runtime is called on a peer
 * binding, so nothing here comes from `src/`.
 */
import { verifyBip340Jws, verifyEd25519Card } from './peer-crypto.ts';
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
  node.onMessage((topic, payload) => {
    const message = parse(payload);
    if (!message) return;
    if (topic === discovery) cards.push(message);
    else byTopic.set(topic, [...(byTopic.get(topic) ?? []), message]);
  });
  const heardOn = (topic: string) => byTopic.get(topic) ?? [];
  return { node, cards, heardOn };
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
