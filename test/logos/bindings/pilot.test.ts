import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { LogosAgentCard as LogosCardSchema } from '../../../src/logos/card.ts';
import { verifyPilotCard } from '../../../src/logos/bindings/pilot/card.ts';
import { PEER_BINDINGS } from '../../../src/logos/bindings/peer-bindings.ts';
import { peerContext } from '../../../src/logos/bindings/peer-context.ts';
import { loadOrCreatePilotIdentity } from '../../../src/logos/bindings/pilot/identity.ts';
import { PilotPins } from '../../../src/logos/bindings/pilot/pins.ts';
import { decrypt, encrypt } from '../../../src/logos/bindings/pilot/ecies.ts';
import { verifyObject } from '../../../src/logos/bindings/pilot/signing.ts';
import {
  PAYMENT,
  decodeReply,
  encodeTaskCancel,
  encodeTaskSend,
  inboxTopic,
  replyTopic,
  type PilotAgent,
  type PilotIdentity,
} from '../../../src/logos/bindings/pilot/wire.ts';
import {
  eciesDecrypt,
  eciesEncrypt,
  es256kSign,
  es256kVerify,
  pilotSign,
  secp256k1PublicHex,
  sortedJson,
} from '../../support/peer-agents/peer-crypto.ts';

const key = () => secp256k1.utils.randomSecretKey();
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function pilotCard(signingKey: Uint8Array, encKey: Uint8Array, overrides: Record<string, unknown> = {}) {
  const enc = secp256k1PublicHex(encKey);
  const npk = '{"nullifier_public_key":"aa","viewing_public_key":"bb"}';
  const card = {
    _logos: {
      enc_key: enc,
      inbox_topic: inboxTopic(enc),
      npk,
      open_for_hire: true,
      payment: 'lez',
      payment_timing: 'on-acceptance',
      payout: npk,
      pricing: { 'agent-ask': 5 },
      signing_key: secp256k1PublicHex(signingKey),
      transport: 'waku',
    },
    capabilities: { pushNotifications: true, stateTransitionHistory: true, streaming: true },
    description: 'Sovereign AI agent on LEZ',
    name: 'Pilot Agent',
    skills: [{ description: 'Asks the agent', id: 'agent-ask', name: 'Agent Ask', x_access: 'autonomous' }],
    url: `waku:${inboxTopic(enc)}`,
    version: '1.0.0',
    ...overrides,
  };
  return {
    ...card,
    signature: { alg: 'ES256K', publicKey: secp256k1PublicHex(signingKey), value: es256kSign(card, signingKey) },
  };
}

describe('pilot ECIES', () => {
  it('is read by the agent’s own implementation, and reads what it writes', () => {
    const agentKey = key();
    const wire = encrypt(secp256k1PublicHex(agentKey), utf8ToBytes('{"a":1}'));
    expect(wire).toMatch(/^04[0-9a-f]{128}:[0-9a-f]+:[0-9a-f]{24}:[0-9a-f]{32}$/);
    expect(eciesDecrypt(agentKey, wire)).toBe('{"a":1}');
    expect(text(decrypt(agentKey, eciesEncrypt(secp256k1PublicHex(agentKey), 'héllo'))!)).toBe('héllo');
  });

  it('opens nothing for another key, nor a tampered message', () => {
    const agentKey = key();
    const wire = eciesEncrypt(secp256k1PublicHex(agentKey), 'secret');
    expect(decrypt(key(), wire)).toBeUndefined();
    const [eph, ct, iv, tag] = wire.split(':');
    const flipped = ct!.slice(0, -1) + (ct!.endsWith('0') ? '1' : '0');
    expect(decrypt(agentKey, [eph, flipped, iv, tag].join(':'))).toBeUndefined();
    expect(decrypt(agentKey, 'not:the:format')).toBeUndefined();
  });
});

describe('pilot ES256K', () => {
  it('accepts the high-S twin of a signature, as OpenSSL may write it', () => {
    const signer = key();
    const value = { b: [1, { d: 'x', c: true }], a: 'é' };
    const high = es256kSign(value, signer, true);
    expect(high).not.toBe(es256kSign(value, signer));
    expect(verifyObject(value, high, secp256k1PublicHex(signer))).toBe(true);
    expect(verifyObject({ ...value, a: 'e' }, high, secp256k1PublicHex(signer))).toBe(false);
  });
});

describe('pilot cards', () => {
  it('verifies a signed card, pins its identity at first contact, and maps it', () => {
    const signer = key();
    const card = pilotCard(signer, key());
    const verified = verifyPilotCard(card, () => undefined);
    expect(verified.ok).toBe(true);
    if (!verified.ok) return;
    expect(verified.pin).toEqual({ npk: card._logos.npk, signingKey: secp256k1PublicHex(signer) });
    const mapped = LogosCardSchema.parse(verified.card);
    expect(mapped.id).toMatch(/^pilot-agent-[0-9a-f]{8}$/);
    expect(mapped.agentInterfaces[0]).toEqual({
      type: 'logos-messaging',
      version: 'pilot',
      address: card._logos.inbox_topic,
    });
    expect(mapped.skills[0]!['x-lez-price']).toBe('5');
    expect(mapped.capabilities.streaming).toBe(false);
    // The same identity, the same key: still good.
    expect(verifyPilotCard(pilotCard(signer, key()), () => secp256k1PublicHex(signer)).ok).toBe(true);
  });

  it('refuses a tampered card, a key swap, a card re-signed by a new key for a pinned identity, and a closed one', () => {
    const signer = key();
    const card = pilotCard(signer, key());
    expect(verifyPilotCard({ ...card, description: 'Sovereign AI agent on LEz' }, () => undefined)).toMatchObject({
      reason: 'bad-signature',
    });
    expect(
      verifyPilotCard(
        { ...card, signature: { ...card.signature, publicKey: secp256k1PublicHex(key()) } },
        () => undefined,
      ),
    ).toMatchObject({ reason: 'key-mismatch' });
    const { signature: _s, ...unsigned } = card;
    expect(verifyPilotCard(unsigned, () => undefined)).toMatchObject({ reason: 'unsigned' });
    const impostor = pilotCard(key(), key());
    expect(verifyPilotCard(impostor, () => secp256k1PublicHex(signer))).toMatchObject({ reason: 'pin-mismatch' });
    const closed = pilotCard(signer, key(), {});
    const closedCard = pilotCard(signer, key(), { _logos: { ...closed._logos, open_for_hire: false } });
    expect(verifyPilotCard(closedCard, () => undefined)).toMatchObject({ reason: 'not-callable' });
  });
});

/** Verifies a pilot card as the gateway hears it, and lists it when it verifies (what the directory then does). */
function listing(context: ReturnType<typeof peerContext>) {
  return (card: unknown) => {
    const verified = PEER_BINDINGS.pilot!.verifyCard(card, { cardKeys: {} }, context);
    if (verified.ok) verified.listed?.();
    return verified;
  };
}

describe('pilot cards heard by the gateway', () => {
  it('pin the inbox to its first identity’s key: another identity claiming it is refused, and replies stay checked', () => {
    const context = peerContext(undefined);
    const verify = listing(context);
    const victimKey = key();
    const victimEnc = key();
    expect(verify(pilotCard(victimKey, victimEnc)).ok).toBe(true);
    // An identity of its own, with a valid card of its own, naming the victim's encryption key (so its inbox).
    const attackerKey = key();
    const claim = pilotCard(attackerKey, victimEnc);
    const otherNpk = '{"nullifier_public_key":"cc","viewing_public_key":"dd"}';
    const attacker = pilotCard(attackerKey, victimEnc, {
      _logos: { ...claim._logos, npk: otherNpk, payout: otherNpk },
    });
    expect(verify(attacker)).toMatchObject({ ok: false, reason: 'pin-mismatch' });
    const { pins } = context.pilot();
    expect(pins.keyAt(inboxTopic(secp256k1PublicHex(victimEnc)))).toBe(secp256k1PublicHex(victimKey));
    expect(pins.keyOf(otherNpk)).toBeUndefined();
    // The victim's next card is still taken.
    expect(verify(pilotCard(victimKey, victimEnc, { description: 'again' })).ok).toBe(true);
  });
});

describe('pilot pins', () => {
  it('pin identities up to their bound, and keep each inbox’s key as identities move', () => {
    const pins = new PilotPins(undefined, 2);
    expect(pins.pin('npk-1', 'key-1', 'inbox-1')).toBe('pinned');
    expect(pins.pin('npk-2', 'key-2', 'inbox-2')).toBe('pinned');
    expect(pins.pin('npk-3', 'key-3', 'inbox-3')).toBe('full');
    expect(pins.keyOf('npk-3')).toBeUndefined();
    expect(pins.keyAt('inbox-3')).toBeUndefined();
    // A pinned identity still updates when full.
    expect(pins.pin('npk-1', 'key-1', 'inbox-1b')).toBe('pinned');
    expect(pins.keyAt('inbox-1b')).toBe('key-1');
    expect(pins.keyAt('inbox-1')).toBeUndefined();
    expect(pins.pin('npk-3', 'key-2', 'inbox-2')).toBe('full');
    expect(pins.pin('npk-1', 'key-1', 'inbox-2')).toBe('inbox-taken');
    // The directory forgot the agent at inbox-2: its identity's pin goes, and with it the room it took.
    pins.forgetInbox('inbox-2');
    expect(pins.keyOf('npk-2')).toBeUndefined();
    expect(pins.keyAt('inbox-2')).toBeUndefined();
    expect(pins.pin('npk-3', 'key-3', 'inbox-2')).toBe('pinned');
  });

  it('a full set of pins refuses a new pilot card as directoryFull', () => {
    const context = peerContext(undefined, 1);
    const verify = listing(context);
    // A card verified and never listed (the directory refused it) pins nothing.
    const unlisted = pilotCard(key(), key());
    expect(PEER_BINDINGS.pilot!.verifyCard(unlisted, { cardKeys: {} }, context).ok).toBe(true);
    expect(context.pilot().pins.keyOf(unlisted._logos.npk)).toBeUndefined();
    expect(verify(pilotCard(key(), key())).ok).toBe(true);
    // Another identity (its own npk), with a valid card of its own.
    const signer = key();
    const card = pilotCard(signer, key());
    const otherNpk = '{"nullifier_public_key":"ee","viewing_public_key":"ff"}';
    const other = pilotCard(signer, key(), { _logos: { ...card._logos, npk: otherNpk, payout: otherNpk } });
    expect(verify(other)).toMatchObject({ ok: false, reason: 'full' });
    expect(context.pilot().pins.keyOf(otherNpk)).toBeUndefined();
  });
});

describe('pilot requests and replies', () => {
  const identity: PilotIdentity = { senderNpk: 'gateway-npk', signingKey: key(), eciesKey: key() };
  const agentSigning = key();
  const agentEnc = key();
  const agent: PilotAgent = {
    encryptionKey: secp256k1PublicHex(agentEnc),
    signingKey: secp256k1PublicHex(agentSigning),
  };

  it('writes a signed tasks/send the agent decrypts and verifies, with the reply address', () => {
    const wire = encodeTaskSend(identity, agent, {
      taskId: 't-1',
      skill: 'agent-ask',
      input: { prompt: 'What is Logos?' },
      now: 1786825616,
    });
    const request = JSON.parse(eciesDecrypt(agentEnc, text(wire))!);
    expect(request).toMatchObject({
      id: 't-1',
      jsonrpc: '2.0',
      method: 'tasks/send',
      params: {
        id: 't-1',
        message: { parts: [{ text: { prompt: 'What is Logos?' }, type: 'text' }], role: 'user' },
        metadata: { skill: 'agent-ask' },
      },
      _logos: {
        reply_topic: replyTopic('t-1'),
        sender_ecies: secp256k1PublicHex(identity.eciesKey),
        sender_npk: 'gateway-npk',
        signing_key: secp256k1PublicHex(identity.signingKey),
        timestamp: '1786825616',
      },
    });
    const { signature, ...rest } = request._logos;
    expect(es256kVerify({ ...request, _logos: rest }, signature, rest.signing_key)).toBe(true);
    expect(es256kVerify({ ...request, _logos: rest, id: 't-2' }, signature, rest.signing_key)).toBe(false);

    const cancel = JSON.parse(eciesDecrypt(agentEnc, text(encodeTaskCancel(identity, agent, 't-1', 1786825617)))!);
    expect(cancel).toMatchObject({
      id: 't-1-cancel',
      method: 'tasks/cancel',
      params: { id: 't-1' },
      _logos: { reply_topic: replyTopic('t-1') },
    });
  });

  const reply = (body: Record<string, unknown>, signer = agentSigning) =>
    utf8ToBytes(eciesEncrypt(secp256k1PublicHex(identity.eciesKey), JSON.stringify(pilotSign(body, signer))));
  const decode = (wire: Uint8Array, taskId = 't-1') => decodeReply(wire, 64 * 1024, identity, agent, taskId);

  it('maps signed replies, errors and status notifications', () => {
    const completed = {
      jsonrpc: '2.0',
      id: 't-1',
      result: { id: 't-1', result: { answer: '42' }, status: { state: 'completed' } },
    };
    expect(decode(reply(completed))).toEqual({
      ok: true,
      value: { taskId: 't-1', body: { type: 'task_result', state: 'completed', result: { answer: '42' } } },
    });
    const parked = {
      jsonrpc: '2.0',
      id: 't-1',
      result: { id: 't-1', result: { reason: 'awaiting owner approval' }, status: { state: 'input-required' } },
    };
    expect(decode(reply(parked))).toMatchObject({
      value: { body: { type: 'task_status', state: 'input-required', message: 'awaiting owner approval' } },
    });
    const error = { jsonrpc: '2.0', id: 't-1', error: { code: -32004, message: 'unsupported skill' } };
    expect(decode(reply(error))).toMatchObject({
      value: { body: { type: 'task_result', state: 'failed', error: { code: 'pilot_-32004' } } },
    });
    const notification = {
      jsonrpc: '2.0',
      method: 'tasks/statusUpdate',
      params: { id: 't-1', status: { state: 'canceled' } },
    };
    expect(decode(reply(notification))).toMatchObject({ value: { body: { type: 'cancelled' } } });
    // The agent's refusal of a cancel (the task is already over) changes nothing of the task.
    const refusal = { jsonrpc: '2.0', id: 't-1-cancel', error: { code: -32002, message: 'task not cancelable' } };
    expect(decode(reply(refusal))).toMatchObject({ ok: false, reason: 'cancel-refused' });
  });

  it('drops a reply signed by another key, one with a byte changed, one about another task, and one for someone else', () => {
    const completed = {
      jsonrpc: '2.0',
      id: 't-1',
      result: { id: 't-1', result: { answer: '42' }, status: { state: 'completed' } },
    };
    expect(decode(reply(completed, key()))).toMatchObject({ ok: false, reason: 'bad-signature' });
    const signed = pilotSign(completed, agentSigning);
    const tampered = { ...signed, result: { ...signed.result, result: { answer: '43' } } };
    expect(
      decode(utf8ToBytes(eciesEncrypt(secp256k1PublicHex(identity.eciesKey), JSON.stringify(tampered)))),
    ).toMatchObject({ reason: 'bad-signature' });
    expect(decode(reply(completed), 't-2')).toMatchObject({ ok: false, reason: 'not-for-us' });
    const forOther = utf8ToBytes(eciesEncrypt(secp256k1PublicHex(key()), JSON.stringify(signed)));
    expect(decode(forOther)).toMatchObject({ ok: false, reason: 'not-for-us' });
    expect(sortedJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    expect(PAYMENT).toMatchObject({ timing: 'on-signed-completion', refunds: 'none' });
  });
});

describe('the gateway’s pilot identity', () => {
  it('is created once and kept: the same keys and sender after a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-pilot-'));
    try {
      const first = loadOrCreatePilotIdentity(dir);
      const again = loadOrCreatePilotIdentity(dir);
      expect(again).toEqual(first);
      expect(first.senderNpk).toMatch(/^logos-a2a:[0-9a-f]{32}$/);
      expect(secp256k1PublicHex(first.signingKey)).not.toBe(secp256k1PublicHex(first.eciesKey));
      expect(statSync(join(dir, 'pilot-signing.key')).mode & 0o077).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
