import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import { hexToBytes, toHex } from '../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { schnorrSign } from '../../src/lez/signing.ts';
import { LogosAgentCard } from '../../src/logos/card.ts';
import {
  admitLogosCard,
  logosCardSigningPayload,
  logosSignatureParams,
  MAX_SIGNED_CARD_BYTES,
  signLogosCard,
  verifyLogosCard,
  type VerifiedLogosCard,
} from '../../src/logos/card-signature.ts';
import { encodeAnnouncement } from '../../src/logos/discovery.ts';
import { seedCard } from '../support/seed-agent.ts';

const AGENT = signingKeyFromSecretKey(
  hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32),
);
const OTHER = signingKeyFromSecretKey(
  hexToBytes('1111111111111111111111111111111111111111111111111111111111111111', 32),
);
const AUX = new Uint8Array(32);

function card(): Record<string, unknown> {
  return {
    id: 'upper',
    name: 'Upper',
    description: 'Shouts.',
    version: '1.0.0',
    skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text', 'x-lez-price': '5' }],
    'x-lez-price': '10',
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: '0x02abcdef' }],
    createdAt: '2026-01-01T00:00:00Z',
  };
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A verifier that shares no code with the gateway: noble, scure and a few lines of JCS for string-only JSON. */
function thirdPartyCheck(signedText: string): { ok: boolean; account?: string } {
  const signed = JSON.parse(signedText) as Record<string, unknown>;
  const { signature, ...rest } = signed as { signature: { alg: string; public_key: string; sig: string } } & Record<
    string,
    unknown
  >;
  const jcs = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(jcs).join(',')}]`;
    if (v !== null && typeof v === 'object') {
      return `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${jcs((v as Record<string, unknown>)[k])}`)
        .join(',')}}`;
    }
    return JSON.stringify(v);
  };
  const digest = sha256(new TextEncoder().encode(jcs(rest)));
  const publicKey = Uint8Array.from(Buffer.from(signature.public_key, 'hex'));
  if (signature.alg !== 'bip340-sha256-jcs') return { ok: false };
  if (!schnorr.verify(Uint8Array.from(Buffer.from(signature.sig, 'hex')), digest, publicKey)) return { ok: false };
  const prefix = new Uint8Array(32);
  prefix.set(new TextEncoder().encode('/LEE/v0.3/AccountId/Public/'));
  const account = base58.encode(sha256(new Uint8Array([...prefix, ...publicKey])));
  const named = (rest['x-lez-identity'] as { account_id: string }).account_id;
  return { ok: account === named, account };
}

describe('signing a Logos card', () => {
  it('round-trips: the signed card verifies, names the key’s account and says what was signed', () => {
    const signed = signLogosCard(card(), AGENT.secretKey, { auxRand: AUX });
    expect(signed['x-lez-identity']).toEqual({ account_id: AGENT.account });
    expect(signed.signature).toEqual({
      alg: 'bip340-sha256-jcs',
      public_key: toHex(AGENT.publicKey),
      sig: expect.stringMatching(/^[0-9a-f]{128}$/),
    });
    const result = verifyLogosCard(signed);
    expect(result.ok).toBe(true);
    const verified = result as VerifiedLogosCard;
    expect(verified.accountId).toBe(AGENT.account);
    expect(verified.publicKey).toBe(toHex(AGENT.publicKey));
    expect(verified.card).toEqual(LogosAgentCard.parse({ ...card(), 'x-lez-identity': { account_id: AGENT.account } }));
    expect(verified.signedCard).toBe(signed);
    const { canonical, digest } = logosCardSigningPayload(signed);
    expect(verified.digest).toBe(toHex(digest));
    expect(
      canonical.startsWith(
        '{"agentInterfaces":[{"address":"0x02abcdef","type":"logos-messaging","version":"1"}],"createdAt"',
      ),
    ).toBe(true);
    expect(canonical).not.toContain('signature');
  });

  it('verifies from the JSON text, from UTF-8 bytes, and in any member order', () => {
    const signed = signLogosCard(card(), AGENT.secretKey);
    const text = JSON.stringify(signed, null, 2);
    expect(verifyLogosCard(text).ok).toBe(true);
    expect(verifyLogosCard(new TextEncoder().encode(text)).ok).toBe(true);
    const reversed = Object.fromEntries(Object.entries(clone(signed)).reverse());
    expect(verifyLogosCard(reversed).ok).toBe(true);
  });

  it('can be checked by a third party with only the card (no gateway code)', () => {
    const text = JSON.stringify(signLogosCard(card(), AGENT.secretKey));
    expect(thirdPartyCheck(text)).toEqual({ ok: true, account: AGENT.account });
    const tampered = text.replace('Shouts.', 'Whispers.');
    expect(thirdPartyCheck(tampered).ok).toBe(false);
  });

  it('survives the discovery announcement as the runtime would send it, signed after schema parsing', () => {
    const parsed = LogosAgentCard.parse({ ...card(), 'x-lez-identity': { account_id: AGENT.account } });
    const signed = signLogosCard(parsed, AGENT.secretKey);
    const heard: unknown = JSON.parse(new TextDecoder().decode(encodeAnnouncement(signed)));
    const result = verifyLogosCard(heard);
    expect(result.ok && result.card).toEqual(parsed);
  });

  it('keeps an account that matches the key and refuses one that does not', () => {
    const same = signLogosCard({ ...card(), 'x-lez-identity': { account_id: AGENT.account } }, AGENT.secretKey);
    expect(verifyLogosCard(same).ok).toBe(true);
    expect(() =>
      signLogosCard({ ...card(), 'x-lez-identity': { account_id: OTHER.account } }, AGENT.secretKey),
    ).toThrow(`names account ${OTHER.account}, but this key controls ${AGENT.account}`);
  });

  it('replaces an existing signature', () => {
    const first = signLogosCard(card(), AGENT.secretKey);
    const second = signLogosCard({ ...first, description: 'Shouts louder.' }, AGENT.secretKey);
    expect(second.signature.sig).not.toBe(first.signature.sig);
    expect(verifyLogosCard(second).ok).toBe(true);
  });

  it('refuses to sign what verification would refuse: invalid cards, invalid keys, non-JSON, oversized cards', () => {
    expect(() => signLogosCard({ ...card(), id: 'Not An Id' }, AGENT.secretKey)).toThrow(
      /not a valid Logos agent card: id/,
    );
    expect(() => signLogosCard({ ...card(), skills: [] }, AGENT.secretKey)).toThrow(/skills/);
    expect(() => signLogosCard(card(), new Uint8Array(32))).toThrow(RangeError);
    expect(() => signLogosCard({ ...card(), when: new Date() }, AGENT.secretKey)).toThrow(/plain objects/);
    expect(() =>
      signLogosCard(
        { ...card(), description: 'x'.repeat(8000), blob: 'y'.repeat(MAX_SIGNED_CARD_BYTES) },
        AGENT.secretKey,
      ),
    ).toThrow(/more than 65536/);
  });
});

describe('verifying a Logos card', () => {
  const signed = signLogosCard(card(), AGENT.secretKey, { auxRand: AUX });

  it('says unsigned for a card without a signature', () => {
    expect(verifyLogosCard(card())).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(verifyLogosCard(JSON.stringify(card()))).toMatchObject({ ok: false, reason: 'unsigned' });
  });

  it('says oversized beyond 64 KiB, for text and for parsed cards', () => {
    const big = { ...clone(signed), padding: 'x'.repeat(MAX_SIGNED_CARD_BYTES) };
    expect(verifyLogosCard(big)).toMatchObject({ ok: false, reason: 'oversized' });
    expect(verifyLogosCard(JSON.stringify(big))).toMatchObject({ ok: false, reason: 'oversized' });
    // Bytes count, not characters: 30,000 three-byte characters are over the limit.
    expect(verifyLogosCard({ ...clone(signed), name: '€'.repeat(30_000) })).toMatchObject({
      ok: false,
      reason: 'oversized',
    });
  });

  it('says malformed for everything that is not a well-formed signed card', () => {
    const sig = signed.signature;
    const cases: [string, unknown][] = [
      ['not JSON', '{"id":'],
      ['an array', '[]'],
      ['not UTF-8', Uint8Array.of(0x7b, 0xff, 0x7d)],
      ['signature null', { ...clone(signed), signature: null }],
      ['signature a string', { ...clone(signed), signature: 'c2ln' }],
      ['another alg', { ...clone(signed), signature: { ...sig, alg: 'ES256K' } }],
      ['uppercase hex', { ...clone(signed), signature: { ...sig, sig: sig.sig.toUpperCase() } }],
      ['short sig', { ...clone(signed), signature: { ...sig, sig: sig.sig.slice(2) } }],
      ['extra member', { ...clone(signed), signature: { ...sig, kid: 'x' } }],
      ['key not on the curve', { ...clone(signed), signature: { ...sig, public_key: 'ff'.repeat(32) } }],
      ['not a Logos card', { ...clone(signed), skills: 'none' }],
      [
        'no account',
        (() => {
          const { 'x-lez-identity': _gone, ...rest } = clone(signed);
          return rest;
        })(),
      ],
      ['account not base58', { ...clone(signed), 'x-lez-identity': { account_id: '0'.repeat(40) } }],
      ['lone surrogate', { ...clone(signed), name: 'a\ud800' }],
    ];
    for (const [what, input] of cases)
      expect(verifyLogosCard(input), what).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('says bad-signature when any member was changed, added or removed after signing', () => {
    const mutations: [string, (c: Record<string, any>) => void][] = [
      ['name', (c) => (c.name = 'Uppr')],
      ['description', (c) => (c.description += ' ')],
      ['skill price', (c) => (c.skills[0]['x-lez-price'] = '0')],
      ['card price', (c) => (c['x-lez-price'] = '1')],
      ['address', (c) => (c.agentInterfaces[0].address = '0x02ffffff')],
      ['account', (c) => (c['x-lez-identity'].account_id = OTHER.account)],
      ['unknown member', (c) => (c.createdAt = '2027-01-01T00:00:00Z')],
      ['added member', (c) => (c.documentationUrl = 'https://example.com')],
      ['added default', (c) => (c.skills[0].tags = [])],
      ['removed member', (c) => delete c['x-lez-price']],
      ['added skill', (c) => c.skills.push({ id: 'b', name: 'B', description: '' })],
      ['signature bit', (c) => (c.signature.sig = (c.signature.sig[0] === '0' ? '1' : '0') + c.signature.sig.slice(1))],
      ['another public key', (c) => (c.signature.public_key = toHex(OTHER.publicKey))],
    ];
    for (const [what, mutate] of mutations) {
      const tampered = clone(signed) as Record<string, any>;
      mutate(tampered);
      expect(verifyLogosCard(tampered), what).toMatchObject({ ok: false, reason: 'bad-signature' });
    }
  });

  it('says account-mismatch when a valid signature comes from a key that does not control the named account', () => {
    // An impostor signs a card naming the victim's account (payments would go to the victim, the card to the impostor).
    const body = { ...card(), 'x-lez-identity': { account_id: AGENT.account } };
    const { digest } = logosCardSigningPayload(body);
    const forged = {
      ...body,
      signature: {
        alg: 'bip340-sha256-jcs',
        public_key: toHex(OTHER.publicKey),
        sig: toHex(schnorrSign(digest, OTHER.secretKey)),
      },
    };
    const result = verifyLogosCard(forged);
    expect(result).toMatchObject({ ok: false, reason: 'account-mismatch' });
    expect(!result.ok && result.message).toContain(OTHER.account);
  });
});

describe('logosSignatureParams', () => {
  it('carries the original signature, the account, the digest and when it was verified', () => {
    const signed = signLogosCard(card(), AGENT.secretKey);
    const verified = verifyLogosCard(signed) as VerifiedLogosCard;
    const at = new Date('2026-05-01T12:00:00Z');
    expect(logosSignatureParams(verified, { verifiedAt: at })).toEqual({
      logosCardSignature: {
        signature: signed.signature,
        account: AGENT.account,
        digest: verified.digest,
        verifiedAt: '2026-05-01T12:00:00.000Z',
      },
    });
    const withCard = logosSignatureParams(verified, { verifiedAt: at, includeCard: true });
    // An HTTP client can repeat the whole check from the embedded card.
    expect(verifyLogosCard(withCard.logosCardSignature.card)).toMatchObject({ ok: true, accountId: AGENT.account });
  });
});

describe('admitLogosCard: verified, unverified or refused', () => {
  it('a card signed by the documented rule is verified', () => {
    expect(admitLogosCard(signLogosCard(card(), AGENT.secretKey, { auxRand: AUX }))).toMatchObject({
      ok: true,
      accountId: AGENT.account,
    });
  });

  it('an unsigned card is unverified, and so is a seed card, whose base64 signature no documented rule checks', () => {
    const unsigned = admitLogosCard(card());
    expect(unsigned).toMatchObject({ ok: true, unverified: true, why: 'unsigned', card: { id: 'upper' } });
    const seed = admitLogosCard(seedCard('waku:02ab'));
    expect(seed).toMatchObject({
      ok: true,
      unverified: true,
      why: 'unverifiable',
      reason: expect.stringContaining('names neither the signed bytes nor the algorithm'),
      card: { agentInterfaces: [{ version: 'seed', address: 'waku:02ab' }] },
    });
    const { signature: _none, ...unsignedSeed } = seedCard('waku:02ab');
    expect(admitLogosCard(unsignedSeed)).toMatchObject({ ok: true, unverified: true, why: 'unsigned' });
  });

  it('a documented signature that fails is refused, never merely unverified', () => {
    const signed = signLogosCard(card(), AGENT.secretKey, { auxRand: AUX }) as Record<string, unknown>;
    expect(admitLogosCard({ ...signed, name: 'Impostor' })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('a fractional price, an invalid or oversized card are refused with the reason', () => {
    expect(admitLogosCard(seedCard('a', '0.5'))).toMatchObject({ ok: false, reason: 'bad-price' });
    expect(admitLogosCard({ ...card(), id: 'Not An Id' })).toMatchObject({ ok: false, reason: 'malformed' });
    const huge = { ...seedCard('a'), name: 'x'.repeat(MAX_SIGNED_CARD_BYTES) };
    expect(admitLogosCard(huge)).toMatchObject({ ok: false, reason: 'oversized' });
  });
});
