/**
 * The agent side's faces without a network (issue #27): the cards they announce pass the gateway's own verifiers of
 * each binding (the client side), and only the free skills are on them; what a peer sends that is not a request of
 * the agent (malformed, another account's task, a task id the topic does not name, an over-long skill) reaches the
 * agent as nothing, and a network the agent cannot be announced on is skipped, saying why.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { LogosAgentCard } from '../../../src/logos/card.ts';
import type { GatewayEnvelope } from '../../../src/logos/envelope.ts';
import { peerFacesOn } from '../../../src/logos/bindings/agent-faces.ts';
import type { AgentSideNode, PeerAgentHost, RelayedMessage } from '../../../src/logos/bindings/common/agent-face.ts';
import { cardKeyAccount } from '../../../src/logos/bindings/common/agent-face.ts';
import { verifyLogosAgentCard } from '../../../src/logos/bindings/logos-agent/card.ts';
import { logosAgentFace } from '../../../src/logos/bindings/logos-agent/agent-side.ts';
import { inboxTopic } from '../../../src/logos/bindings/logos-agent/wire.ts';
import { verifyLp0008Card } from '../../../src/logos/bindings/lp-0008/card.ts';
import { lp0008Face } from '../../../src/logos/bindings/lp-0008/agent-side.ts';
import { verifyPilotCard } from '../../../src/logos/bindings/pilot/card.ts';
import { pilotFace } from '../../../src/logos/bindings/pilot/agent-side.ts';

const BOARD = '/lp-0008/1/discovery-agents/json';
const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

const card = LogosAgentCard.parse({
  id: 'texts',
  name: 'Texts',
  description: '',
  version: '1',
  skills: [
    { id: 'echo', name: 'Echo', description: '' },
    { id: 'paid', name: 'Paid', description: '', 'x-lez-price': '5' },
  ],
  agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:texts' }],
});

/** A node that delivers what the test gives it: to its subscribers by topic, and to relay observers. */
function node(): AgentSideNode & { hear(topic: string, payload: Uint8Array): void } {
  const subscribers = new Map<string, (payload: Uint8Array) => void>();
  const observers: ((message: RelayedMessage) => void)[] = [];
  return {
    maxPayloadBytes: 64 * 1024,
    publish: async () => undefined,
    subscribe: (topic, handler) => {
      subscribers.set(topic, (payload) => handler(payload, { sender: undefined }));
      return () => subscribers.delete(topic);
    },
    onRelayMessage: (observer) => {
      observers.push(observer);
      return () => undefined;
    },
    relayContentTopic: () => undefined,
    hear(topic, payload) {
      subscribers.get(topic)?.(payload);
      for (const observer of observers) observer({ contentTopic: topic, payload });
    },
  };
}

function host(): PeerAgentHost & { accepted: GatewayEnvelope[] } {
  const accepted: GatewayEnvelope[] = [];
  return { card, accepted, accept: (envelope) => accepted.push(envelope) };
}

describe('the lp-0008 face', () => {
  const cardKey = schnorr.utils.randomSecretKey();
  const account = cardKeyAccount(cardKey);
  const request = (taskId: string, data: unknown) => ({
    jsonrpc: '2.0',
    id: '1',
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'm',
        taskId,
        contextId: 'c1',
        parts: [{ kind: 'data', data }],
      },
    },
  });

  it('announces a card the gateway verifies with the key it logs, with the free skills only', () => {
    const face = lp0008Face(card, { network: 'lp-0008', node: node(), discoveryTopic: BOARD, cardKey })!;
    const verified = verifyLp0008Card(face.card, { [face.keyApart!.kid]: face.keyApart!.key });
    expect(verified).toMatchObject({ ok: true, card: { agentInterfaces: [{ address: account }] } });
    expect(verified.ok && verified.card.skills.map((skill) => skill.id)).toEqual(['echo']);
    expect(verifyLp0008Card({ ...face.card, name: 'Other' }, { [account]: face.keyApart!.key })).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('takes a request and a continuation on its own task topics, and nothing else', () => {
    const heard = node();
    const agent = host();
    const onHeard = lp0008Face(card, { network: 'lp-0008', node: heard, discoveryTopic: BOARD, cardKey })!;
    onHeard.start(agent);
    const topic = (taskId: string, of = account) => `/lp-0008/1/task-${of}-${taskId}/json`;
    heard.hear(topic('t1'), encode('not json'));
    heard.hear(topic('t1'), encode(request('t2', { skill: 'echo' })));
    heard.hear(topic('t1', 'someoneElse'), encode(request('t1', { skill: 'echo' })));
    heard.hear(topic('t1'), encode(request('t1', { skill: 'x'.repeat(300) })));
    heard.hear(topic('t1'), encode({ jsonrpc: '2.0', method: 'tasks/cancel', params: { id: 'other' } }));
    heard.hear(topic('t1'), encode({ kind: 'status-update', taskId: 't1' }));
    expect(agent.accepted).toEqual([]);
    heard.hear(topic('t1'), encode(request('t1', { skill: 'echo', params: { text: 'hi' } })));
    heard.hear(topic('t1'), encode(request('t1', { message: 'Ada' })));
    heard.hear(topic('t1'), encode({ jsonrpc: '2.0', method: 'tasks/cancel', params: { id: 't1' } }));
    expect(agent.accepted).toMatchObject([
      { type: 'task_request', task_id: 't1', context_id: 'c1', skill: 'echo', params: { text: 'hi' } },
      { type: 'task_input', task_id: 't1', params: { text: 'Ada' } },
      { type: 'cancel', task_id: 't1' },
    ]);
    // One task, one status key: a follow-up is taken as the request's.
    expect(new Set(agent.accepted.map((envelope) => envelope.status_key)).size).toBe(1);
    onHeard.stop();
  });

  it('is skipped, saying why, on a network without a board, and for an agent with no free skill', () => {
    const logs: string[] = [];
    const networks = [{ name: 'lp-0008', binding: 'lp-0008' as const, node: node() }];
    expect(peerFacesOn(networks, cardKey, (line) => logs.push(line))(card)).toEqual([]);
    const priced = LogosAgentCard.parse({ ...card, skills: [card.skills[1]] });
    const boarded = [{ ...networks[0]!, discoveryTopic: BOARD }];
    expect(peerFacesOn(boarded, cardKey, (line) => logs.push(line))(priced)).toEqual([]);
    expect(logs).toEqual([
      expect.stringContaining('lp-0008 has no discovery topic of its own; set its discoveryTopic'),
      expect.stringContaining('carries only free skills, and it has none'),
    ]);
  });
});

describe('the logos-agent face', () => {
  const cardKey = schnorr.utils.randomSecretKey();
  const account = cardKeyAccount(cardKey);

  it('announces a card the gateway verifies, the same across restarts, with the free skills only', () => {
    const face = logosAgentFace(card, { network: 'logos-agent', node: node(), cardKey })!;
    const verified = verifyLogosAgentCard(face.card);
    expect(verified).toMatchObject({ ok: true, card: { agentInterfaces: [{ address: inboxTopic(account) }] } });
    expect(verified.ok && verified.card.skills.map((skill) => skill.id)).toEqual(['echo']);
    expect(logosAgentFace(card, { network: 'logos-agent', node: node(), cardKey })!.card).toEqual(face.card);
    expect(verifyLogosAgentCard({ ...face.card, name: 'Other' })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('takes requests and cancels from its inbox, and nothing malformed', () => {
    const heard = node();
    const agent = host();
    logosAgentFace(card, { network: 'logos-agent', node: heard, cardKey })!.start(agent);
    const inbox = inboxTopic(account);
    heard.hear(inbox, encode('{'));
    heard.hear(inbox, encode({ kind: 'task_request', skill: 'echo' }));
    heard.hear(inbox, encode({ kind: 'task_update', taskId: 't', state: 'working' }));
    expect(agent.accepted).toEqual([]);
    heard.hear(
      inbox,
      encode({ kind: 'task_request', taskId: 't', skill: 'echo', params: { text: 'hi' }, paymentTx: 'x' }),
    );
    heard.hear(inbox, encode({ kind: 'task_cancel', taskId: 't' }));
    expect(agent.accepted).toMatchObject([
      { type: 'task_request', task_id: 't', skill: 'echo', params: { text: 'hi' }, lez_price: '0' },
      { type: 'cancel', task_id: 't' },
    ]);
  });
});

describe('the pilot face', () => {
  it('announces a card the gateway verifies and pins, the same across restarts, with the free skills only', () => {
    const cardKey = schnorr.utils.randomSecretKey();
    const face = pilotFace(card, { network: 'pilot', node: node(), cardKey })!;
    const verified = verifyPilotCard(face.card, () => undefined);
    expect(verified.ok && verified.card.skills.map((skill) => skill.id)).toEqual(['echo']);
    expect(pilotFace(card, { network: 'pilot', node: node(), cardKey })!.card).toEqual(face.card);
    expect(verifyPilotCard({ ...face.card, name: 'Other' }, () => undefined)).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('hears nothing that is not encrypted to it', () => {
    const heard = node();
    const agent = host();
    const face = pilotFace(card, { network: 'pilot', node: heard, cardKey: schnorr.utils.randomSecretKey() })!;
    face.start(agent);
    const inbox = (face.card._logos as { inbox_topic: string }).inbox_topic;
    heard.hear(inbox, encode({ jsonrpc: '2.0', method: 'tasks/send', params: { id: 't' } }));
    heard.hear(inbox, encode('04aa:bb:cc:dd'));
    expect(agent.accepted).toEqual([]);
  });
});
