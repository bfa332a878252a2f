import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { LogosAgentCard as LogosCardSchema } from '../../../src/logos/card.ts';
import { verifyLogosAgentCard } from '../../../src/logos/bindings/logos-agent/card.ts';
import {
  PAYMENT,
  decodeTaskUpdate,
  encodeTaskCancel,
  encodeTaskRequest,
  inboxTopic,
  updatesTopic,
} from '../../../src/logos/bindings/logos-agent/wire.ts';

const ACCOUNT = 'Ds8q5PjLcKwwV97Zi7duhRVF9uwA2PuYMoLL7FwCzsXE';
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: unknown) => utf8ToBytes(JSON.stringify(value));

/** A card signed as the agent signs it, written here from the binding's description, not from the verifier. */
function signedCard(secretKey = ed25519.utils.randomSecretKey(), overrides: Record<string, unknown> = {}) {
  const card = {
    protocolVersion: '0.2.5',
    name: 'greeter-agent',
    description: 'Logos-native A2A agent',
    version: '1.0.0',
    address: inboxTopic(ACCOUNT),
    lezAccount: ACCOUNT,
    capabilities: { streaming: false },
    skills: [{ id: 'demo.echo', name: 'demo.echo', description: 'Echo back the provided text.', priceLez: '10' }],
    signingPubkey: bytesToHex(ed25519.getPublicKey(secretKey)),
    ...overrides,
  };
  return { ...card, signature: bytesToHex(ed25519.sign(utf8ToBytes(JSON.stringify(card)), secretKey)) };
}

describe('logos-agent cards', () => {
  it('verifies a card signed over its struct-order JSON, and maps it to a Logos card that names the binding', () => {
    const card = signedCard();
    const verified = verifyLogosAgentCard({ ...card, somethingNew: 'ignored, as the agent ignores it' });
    expect(verified.ok).toBe(true);
    if (!verified.ok) return;
    expect(verified.signingKey).toBe(card.signingPubkey);
    const mapped = LogosCardSchema.parse(verified.card);
    expect(mapped.id).toMatch(/^greeter-agent-[0-9a-f]{8}$/);
    expect(mapped.agentInterfaces[0]).toEqual({
      type: 'logos-messaging',
      version: 'logos-agent',
      address: inboxTopic(ACCOUNT),
    });
    expect(mapped.skills[0]!['x-lez-price']).toBe('10');
    expect(mapped['x-lez-identity']).toEqual({ account_id: ACCOUNT });
  });

  it('refuses a card with one byte changed, one signed in sorted order, an unsigned one, and one it cannot call', () => {
    const card = signedCard();
    expect(verifyLogosAgentCard({ ...card, description: 'Logos-native A2A agenT' })).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
    const flipped = card.signature.slice(0, -1) + (card.signature.endsWith('0') ? '1' : '0');
    expect(verifyLogosAgentCard({ ...card, signature: flipped })).toMatchObject({ ok: false, reason: 'bad-signature' });

    const secretKey = ed25519.utils.randomSecretKey();
    const { signature: _signature, ...unsigned } = signedCard(secretKey);
    const sorted = Object.fromEntries(Object.entries(unsigned).sort(([a], [b]) => (a < b ? -1 : 1)));
    const sortedSignature = bytesToHex(ed25519.sign(utf8ToBytes(JSON.stringify(sorted)), secretKey));
    expect(verifyLogosAgentCard({ ...unsigned, signature: sortedSignature })).toMatchObject({
      reason: 'bad-signature',
    });

    expect(verifyLogosAgentCard(unsigned)).toMatchObject({ ok: false, reason: 'unsigned' });
    const sixSegments = signedCard(undefined, { address: `/logos-agent/1/a2a/${ACCOUNT}/inbox/proto` });
    expect(verifyLogosAgentCard(sixSegments)).toMatchObject({ ok: false, reason: 'not-callable' });
  });
});

describe('logos-agent messages', () => {
  it('writes requests and cancels in the agent’s kind vocabulary, without from or priceLez', () => {
    expect(
      JSON.parse(text(encodeTaskRequest({ taskId: 'u-1', skill: 'demo.echo', params: { text: 'hello' } }))),
    ).toEqual({
      kind: 'task_request',
      taskId: 'u-1',
      skill: 'demo.echo',
      params: { text: 'hello' },
    });
    expect(
      JSON.parse(text(encodeTaskRequest({ taskId: 'u-2', skill: 's', params: {}, paymentTx: 'ab' }))).paymentTx,
    ).toBe('ab');
    expect(text(encodeTaskCancel('u-1'))).toBe('{"kind":"task_cancel","taskId":"u-1"}');
    expect(updatesTopic(ACCOUNT)).toBe(`/logos-agent/1/a2a-${ACCOUNT}-updates/proto`);
    expect(PAYMENT).toMatchObject({ timing: 'before-sending', refunds: 'none' });
  });

  it('maps updates to this binding’s replies, and passes by other clients’ tasks', () => {
    const ours = (id: string) => id.startsWith('u-');
    const decode = (update: unknown) => decodeTaskUpdate(bytes(update), 4096, ours);
    expect(decode({ kind: 'task_update', taskId: 'u-1', state: 'working', result: null })).toEqual({
      ok: true,
      value: { taskId: 'u-1', body: { type: 'task_status', state: 'working' } },
    });
    expect(decode({ kind: 'task_update', taskId: 'u-1', state: 'completed', result: { echo: 'hello' } })).toMatchObject(
      {
        value: { body: { type: 'task_result', state: 'completed', result: { echo: 'hello' } } },
      },
    );
    expect(
      decode({ kind: 'task_update', taskId: 'u-1', state: 'failed', result: { error: 'unknown skill: x' } }),
    ).toMatchObject({
      value: {
        body: { type: 'task_result', state: 'failed', error: { code: 'agent_error', message: 'unknown skill: x' } },
      },
    });
    expect(decode({ kind: 'task_update', taskId: 'u-1', state: 'canceled', result: null })).toMatchObject({
      value: { body: { type: 'cancelled' } },
    });
    expect(decode({ kind: 'task_update', taskId: 'task-0', state: 'completed' })).toMatchObject({
      ok: false,
      reason: 'not-for-us',
    });
    expect(decode({ kind: 'task_update', taskId: 'u-1', state: 'done' })).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
    expect(decodeTaskUpdate(utf8ToBytes('not json'), 4096, ours)).toMatchObject({ ok: false, reason: 'not-json' });
    expect(decodeTaskUpdate(new Uint8Array(5000), 4096, ours)).toMatchObject({ ok: false, reason: 'too-large' });
  });
});
