import { readFileSync } from 'node:fs';
import { schnorr } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { LogosAgentCard as LogosCardSchema } from '../../../src/logos/card.ts';
import { verifyLp0008Card } from '../../../src/logos/bindings/lp-0008/card.ts';
import {
  PAYMENT,
  decodeStatusUpdate,
  encodeContinuation,
  encodeMessageSend,
  encodeTaskCancel,
  taskTopic,
} from '../../../src/logos/bindings/lp-0008/wire.ts';
import { signBip340Jws, xOnlyPublicHex } from '../../support/peer-agents/peer-crypto.ts';

const ACCOUNT = '9XpkkvosC14TKTNZAoUdKXJwCheJ3dF8u3Xoojfv1FaE';
const PAYMENT_ACCOUNT = '5Sa1kvosC14TKTNZAoUdKXJwCheJ3dF8u3Xoojfv1FaE';
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function card(overrides: Record<string, unknown> = {}) {
  return {
    protocolVersion: '0.3.0',
    name: 'logos-storage-agent',
    description: 'Stores files',
    url: `logos-messaging://${ACCOUNT}`,
    preferredTransport: 'logos-messaging',
    version: '0.1.0',
    capabilities: { streaming: true, stateTransitionHistory: true, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'storage.upload', name: 'storage.upload', description: 'Uploads', tags: ['storage'] }],
    'x-logos': {
      lezAccount: ACCOUNT,
      paymentAccount: `Public/${PAYMENT_ACCOUNT}`,
      pricePerTask: 1,
      settlement: 'lez-chained-authenticated-transfer',
    },
    ...overrides,
  };
}

describe('lp-0008 cards', () => {
  const secretKey = schnorr.utils.randomSecretKey();
  const keys = { [PAYMENT_ACCOUNT]: xOnlyPublicHex(secretKey) };

  it('verifies a BIP-340 JWS with the key configured for its kid, and maps the card', () => {
    const signed = signBip340Jws(card(), secretKey, PAYMENT_ACCOUNT);
    const verified = verifyLp0008Card(signed, keys);
    expect(verified.ok).toBe(true);
    if (!verified.ok) return;
    const mapped = LogosCardSchema.parse(verified.card);
    expect(mapped.id).toMatch(/^logos-storage-agent-[0-9a-f]{8}$/);
    expect(mapped['x-lez-price']).toBe('1');
    expect(mapped['x-lez-identity']).toEqual({ account_id: PAYMENT_ACCOUNT });
    expect(mapped.agentInterfaces[0]).toEqual({ type: 'logos-messaging', version: 'lp-0008', address: ACCOUNT });
  });

  it('refuses a card with a byte changed, one signed by another key, one whose key is not configured, an unsigned one', () => {
    const signed = signBip340Jws(card(), secretKey, PAYMENT_ACCOUNT);
    expect(verifyLp0008Card({ ...signed, description: 'Stores filez' }, keys)).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
    const other = signBip340Jws(card(), schnorr.utils.randomSecretKey(), PAYMENT_ACCOUNT);
    expect(verifyLp0008Card(other, keys)).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(verifyLp0008Card(signed, {})).toMatchObject({ ok: false, reason: 'unknown-key' });
    expect(verifyLp0008Card(card(), keys)).toMatchObject({ ok: false, reason: 'unsigned' });
    const elsewhere = signBip340Jws(card({ url: 'logos-messaging://someone-else' }), secretKey, PAYMENT_ACCOUNT);
    expect(verifyLp0008Card(elsewhere, keys)).toMatchObject({ ok: false, reason: 'not-callable' });
  });

  it('verifies a card past ASCII signed with its characters as UTF-8 or escaped, as the binding’s two signers differ', () => {
    const accented = card({ description: 'Stocke des fichiers — vite 😀 \u007f' });
    const raw = signBip340Jws(accented, secretKey, PAYMENT_ACCOUNT);
    const escaped = signBip340Jws(accented, secretKey, PAYMENT_ACCOUNT, { asciiOnly: true });
    expect(escaped.signatures[0]!.signature).not.toBe(raw.signatures[0]!.signature);
    expect(verifyLp0008Card(raw, keys)).toMatchObject({ ok: true });
    expect(verifyLp0008Card(escaped, keys)).toMatchObject({ ok: true });
    expect(verifyLp0008Card({ ...escaped, description: 'Stocke des fichiers — vite 😁' }, keys)).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('believes a payee only on its own account’s signature: another configured kid cannot name itself the payee', () => {
    const otherKey = schnorr.utils.randomSecretKey();
    const OTHER = '7Tq1kvosC14TKTNZAoUdKXJwCheJ3dF8u3Xoojfv1FaE';
    const both = { ...keys, [OTHER]: xOnlyPublicHex(otherKey) };
    // The other agent signs, under its own configured kid, a card naming this agent's account and its own payee.
    const redirected = card({ 'x-logos': { lezAccount: ACCOUNT, paymentAccount: `Public/${OTHER}`, pricePerTask: 7 } });
    expect(verifyLp0008Card(signBip340Jws(redirected, otherKey, OTHER), both)).toMatchObject({ ok: true });
    // ...but never under a kid other than the payee it names,
    const claimed = card();
    expect(verifyLp0008Card(signBip340Jws(claimed, otherKey, OTHER), both)).toMatchObject({
      ok: false,
      reason: 'key-mismatch',
    });
    // and a card that names no payee is believed on any configured kid.
    const unpaid = card({ 'x-logos': { lezAccount: ACCOUNT } });
    expect(verifyLp0008Card(signBip340Jws(unpaid, otherKey, OTHER), both)).toMatchObject({ ok: true });
  });
});

/**
 * A card the lp-0008 project publishes, signed by its own signer (github.com/edenbd1/lp-0008-autonomous-agent-module,
 * MIT: artifacts/agent-cards/storage.json and its key, storage.pub, at e23cc55): the verifier agrees with the
 * other side's implementation, not only with this repository's idea of it.
 */
describe('lp-0008 cards as the project signs them', () => {
  const published = JSON.parse(
    readFileSync(new URL('./vectors/lp-0008-storage-card.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  const keys = {
    '5Sa13NyNFsTqAj3AtdoQ7kzC6ZZJJN57AYqhNddHtjnZ': '87447003088de6bec7461c5b258e9fbe48f35ca2dcd684e34a7bef90225d64a1',
  };

  it('verifies the published card with the published key, and refuses it with one character changed', () => {
    expect(verifyLp0008Card(published, keys)).toMatchObject({
      ok: true,
      card: { name: 'logos-storage-agent', 'x-lez-price': '1' },
    });
    expect(verifyLp0008Card({ ...published, version: '0.1.1' }, keys)).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });
});

describe('lp-0008 messages', () => {
  const task = { agentAccount: ACCOUNT, taskId: 'a'.repeat(32), contextId: 'c'.repeat(32) };

  it('writes A2A v0.3 message/send, continuations and tasks/cancel on the task’s topic', () => {
    const request = JSON.parse(
      text(
        encodeMessageSend({
          rpcId: 'r1',
          messageId: 'm1',
          taskId: task.taskId,
          contextId: task.contextId,
          skill: 'storage.upload',
          params: { path: 'x' },
        }),
      ),
    );
    expect(request).toEqual({
      jsonrpc: '2.0',
      id: 'r1',
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: 'm1',
          taskId: task.taskId,
          contextId: task.contextId,
          parts: [{ kind: 'data', data: { skill: 'storage.upload', params: { path: 'x' } } }],
        },
      },
    });
    const more = JSON.parse(
      text(
        encodeContinuation({
          rpcId: 'r2',
          messageId: 'm2',
          taskId: task.taskId,
          contextId: task.contextId,
          text: 'yes',
          params: {},
        }),
      ),
    );
    expect(more.params.message.parts[0].data).toEqual({ message: 'yes', params: {} });
    expect(JSON.parse(text(encodeTaskCancel('r3', task.taskId)))).toEqual({
      jsonrpc: '2.0',
      id: 'r3',
      method: 'tasks/cancel',
      params: { id: task.taskId },
    });
    expect(taskTopic(ACCOUNT, task.taskId)).toBe(`/lp-0008/1/task-${ACCOUNT}-${task.taskId}/json`);
    expect(PAYMENT).toMatchObject({ timing: 'after-publishing', refunds: 'none' });
  });

  const update = (state: string, words?: string, overrides: Record<string, unknown> = {}) =>
    utf8ToBytes(
      JSON.stringify({
        kind: 'status-update',
        taskId: task.taskId,
        contextId: task.contextId,
        final: ['completed', 'failed', 'canceled', 'rejected'].includes(state),
        status: {
          state,
          ...(words === undefined
            ? {}
            : { message: { kind: 'message', role: 'agent', messageId: 'x', parts: [{ kind: 'text', text: words }] } }),
        },
        metadata: { 'x-logos': { from: ACCOUNT } },
        ...overrides,
      }),
    );

  it('maps status updates to this binding’s replies', () => {
    const decode = (bytes: Uint8Array) => decodeStatusUpdate(bytes, 64 * 1024, task);
    expect(decode(update('working', 'reading the file'))).toEqual({
      ok: true,
      value: { taskId: task.taskId, body: { type: 'task_status', state: 'working', message: 'reading the file' } },
    });
    expect(decode(update('completed', 'done: notes/x.txt'))).toMatchObject({
      value: { body: { type: 'task_result', state: 'completed', result: 'done: notes/x.txt' } },
    });
    expect(decode(update('failed', 'no such file'))).toMatchObject({
      value: { body: { state: 'failed', error: { message: 'no such file' } } },
    });
    expect(decode(update('rejected'))).toMatchObject({ value: { body: { type: 'task_result', state: 'rejected' } } });
    expect(decode(update('canceled'))).toMatchObject({ value: { body: { type: 'cancelled' } } });
    expect(decode(update('input-required', 'which path?'))).toMatchObject({
      value: { body: { type: 'task_status', state: 'input-required' } },
    });
  });

  it('drops its own requests, another task’s updates, updates from someone else, and nonsense', () => {
    const decode = (bytes: Uint8Array) => decodeStatusUpdate(bytes, 64 * 1024, task);
    const own = encodeMessageSend({
      rpcId: 'r',
      messageId: 'm',
      taskId: task.taskId,
      contextId: task.contextId,
      skill: 's',
      params: {},
    });
    expect(decode(own)).toMatchObject({ ok: false, reason: 'not-for-us' });
    expect(decode(update('completed', 'x', { taskId: 'b'.repeat(32) }))).toMatchObject({ reason: 'not-for-us' });
    expect(decode(update('completed', 'x', { contextId: 'd'.repeat(32) }))).toMatchObject({ reason: 'not-for-us' });
    expect(decode(update('completed', 'x', { metadata: { 'x-logos': { from: 'mallory' } } }))).toMatchObject({
      reason: 'not-for-us',
    });
    expect(decode(update('unknown'))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decode(update('paused'))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decode(utf8ToBytes('{'))).toMatchObject({ ok: false, reason: 'not-json' });
  });
});
