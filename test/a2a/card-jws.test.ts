import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlnopad } from '@scure/base';
import {
  cardSigningPublicKey,
  gatewayJwks,
  generateCardSigningSecret,
  jwkThumbprint,
  projectedCardPayload,
  publicJwk,
  signProjectedCard,
  verifyProjectedCard,
  type CardSigningKey,
  type Jwks,
} from '../../src/a2a/card-jws.ts';
import { LOGOS_AGENT_EXTENSION, projectCard } from '../../src/a2a/card-projection.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { LogosAgentCard } from '../../src/logos/card.ts';
import {
  logosSignatureParams,
  signLogosCard,
  verifyLogosCard,
  type VerifiedLogosCard,
} from '../../src/logos/card-signature.ts';

const JKU = 'https://gateway.example/.well-known/jwks.json';
const K1: CardSigningKey = {
  alg: 'ES256K',
  secretKey: hexToBytes('c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721', 32),
  jku: JKU,
};
const P256: CardSigningKey = { alg: 'ES256', secretKey: generateCardSigningSecret('ES256'), jku: JKU };
const AGENT_SECRET = hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32);

function jwksOf(key: CardSigningKey): Jwks {
  return gatewayJwks(cardSigningPublicKey(key), undefined, key.alg);
}

/** The card exactly as app.ts serves it: projected, with the agent's signature params, through the SDK codec. */
function servedCard(): Record<string, unknown> {
  const signed = signLogosCard(
    {
      id: 'upper',
      name: 'Upper',
      description: 'Shouts.',
      version: '1.0.0',
      skills: [{ id: 'shout', name: 'Shout', description: '', 'x-lez-price': '5' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: '0x02abcdef' }],
      extensions: [{ uri: 'urn:example:empty', params: { none: '', list: [], obj: {}, zero: 0, no: false } }],
    },
    AGENT_SECRET,
  );
  const verified = verifyLogosCard(signed) as VerifiedLogosCard;
  const projected = projectCard(LogosAgentCard.parse(verified.card), 'https://gateway.example/agents/upper');
  const capabilities = projected.capabilities as { extensions: { uri: string; params: Record<string, unknown> }[] };
  const logos = capabilities.extensions.find((e) => e.uri === LOGOS_AGENT_EXTENSION)!;
  Object.assign(logos.params, logosSignatureParams(verified, { verifiedAt: new Date('2026-05-01T00:00:00Z') }));
  return AgentCard.toJSON(AgentCard.fromJSON(projected)) as Record<string, unknown>;
}

function decodeHeader(b64: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(base64urlnopad.decode(b64))) as Record<string, unknown>;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

describe('the gateway JWKS', () => {
  it('is one EC key with crv, x, y, kid, alg and use', () => {
    const jwks = jwksOf(K1);
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys;
    expect(key).toMatchObject({ kty: 'EC', crv: 'secp256k1', alg: 'ES256K', use: 'sig' });
    expect(key!.x).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key!.y).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // x and y are the affine coordinates of the public key.
    const point = secp256k1.Point.fromBytes(cardSigningPublicKey(K1));
    expect(BigInt(`0x${Buffer.from(base64urlnopad.decode(key!.x)).toString('hex')}`)).toBe(point.x);
    expect(BigInt(`0x${Buffer.from(base64urlnopad.decode(key!.y)).toString('hex')}`)).toBe(point.y);
    expect(gatewayJwks(cardSigningPublicKey(K1), 'gw-1').keys[0]!.kid).toBe('gw-1');
    expect(jwksOf(P256).keys[0]).toMatchObject({ crv: 'P-256', alg: 'ES256' });
  });

  it('names keys by their RFC 7638 thumbprint by default', () => {
    const key = jwksOf(K1).keys[0]!;
    const members = `{"crv":"secp256k1","kty":"EC","x":"${key.x}","y":"${key.y}"}`;
    expect(key.kid).toBe(base64urlnopad.encode(sha256(new TextEncoder().encode(members))));
    expect(jwkThumbprint(key)).toBe(key.kid);
    // Compressed and uncompressed forms of one key are one JWK.
    expect(publicJwk(secp256k1.getPublicKey(K1.secretKey, false))).toEqual(key);
  });
});

describe('signing the projected card (A2A §8.4)', () => {
  it('adds a JWS with protected {alg, typ, kid, jku} that verifies against the JWKS', () => {
    const card = servedCard();
    const signed = signProjectedCard(card, K1);
    expect(signed.signatures).toHaveLength(1);
    const [entry] = signed.signatures;
    expect(decodeHeader(entry!.protected)).toEqual({
      alg: 'ES256K',
      jku: JKU,
      kid: jwksOf(K1).keys[0]!.kid,
      typ: 'JOSE',
    });
    expect(base64urlnopad.decode(entry!.signature)).toHaveLength(64);
    expect(entry).not.toHaveProperty('header');
    expect(verifyProjectedCard(signed, jwksOf(K1))).toEqual({
      ok: true,
      kid: jwksOf(K1).keys[0]!.kid,
      alg: 'ES256K',
      jku: JKU,
      index: 0,
    });
    // Everything but the signatures is left as it was.
    const { signatures: _s, ...rest } = signed;
    expect(rest).toEqual(card);
  });

  it('produces low-S signatures that OpenSSL (node:crypto) verifies with the JWK alone', () => {
    const signed = signProjectedCard(servedCard(), K1);
    const [entry] = signed.signatures;
    const sig = base64urlnopad.decode(entry!.signature);
    expect(secp256k1.Signature.fromBytes(sig).hasHighS()).toBe(false);
    const input = `${entry!.protected}.${base64urlnopad.encode(new TextEncoder().encode(projectedCardPayload(signed)))}`;
    const key = createPublicKey({
      key: jwksOf(K1).keys[0]! as unknown as import('node:crypto').JsonWebKey,
      format: 'jwk',
    });
    expect(nodeVerify('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }, sig)).toBe(true);
  });

  it('ES256 signatures verify with the official @a2a-js/sdk verifier, so the canonical payload is the SDK’s', async () => {
    const signed = signProjectedCard(servedCard(), P256);
    const jwk = jwksOf(P256).keys[0]!;
    let asked: [string, string | undefined] | undefined;
    await verifyAgentCardSignature(async (kid, jku) => {
      asked = [kid, jku];
      return jwk;
    })(AgentCard.fromJSON(signed));
    expect(asked).toEqual([jwk.kid, JKU]);
    expect(verifyProjectedCard(signed, jwksOf(P256)).ok).toBe(true);
  });

  it('verifies cards the SDK signed (ES256 via jose), and catches tampering with them', async () => {
    const jwk = jwksOf(P256).keys[0]!;
    const privateJwk = { ...jwk, d: base64urlnopad.encode(P256.secretKey) };
    const sdkSigned = AgentCard.toJSON(
      await generateAgentCardSignature(
        privateJwk,
        { alg: 'ES256', kid: jwk.kid, typ: 'JOSE' },
        { note: 'unprotected' },
      )(AgentCard.fromJSON(servedCard())),
    ) as Record<string, unknown>;
    expect(verifyProjectedCard(sdkSigned, jwksOf(P256))).toMatchObject({ ok: true, alg: 'ES256' });
    expect(verifyProjectedCard({ ...sdkSigned, name: 'Other' }, jwksOf(P256))).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('still verifies after a client re-encodes the card with the SDK codec, and without empty members', () => {
    const signed = signProjectedCard(servedCard(), K1);
    const reparsed = AgentCard.toJSON(AgentCard.fromJSON(signed)) as Record<string, unknown>;
    expect(reparsed.signatures).toEqual(signed.signatures);
    expect(verifyProjectedCard(reparsed, jwksOf(K1)).ok).toBe(true);
    // Members with empty values are outside the payload (§8.4.1 omits defaults), so dropping them is not tampering.
    const pruned = clone(signed) as any;
    delete pruned.capabilities.extensions[0].params.list;
    expect(verifyProjectedCard(pruned, jwksOf(K1)).ok).toBe(true);
  });

  it('detects tampering anywhere in the card, including the agent’s own signature params', () => {
    const signed = signProjectedCard(servedCard(), K1);
    const logosParams = (c: any) => c.capabilities.extensions.find((e: any) => e.uri === LOGOS_AGENT_EXTENSION).params;
    const mutations: [string, (c: any) => void][] = [
      ['name', (c) => (c.name = 'Upper2')],
      ['interface url', (c) => (c.supportedInterfaces[0].url = 'https://evil.example/')],
      ['price', (c) => (logosParams(c).lezPrice.perSkill.shout = '0')],
      ['logos address', (c) => (logosParams(c).logosInterfaces[0].address = '0x02ffffff')],
      ['agent signature', (c) => (logosParams(c).logosCardSignature.account = 'x')],
      ['verified-at', (c) => (logosParams(c).logosCardSignature.verifiedAt = '2030-01-01T00:00:00.000Z')],
      ['a zero made false', (c) => (c.capabilities.extensions[0].params.zero = false)],
      ['added member', (c) => (c.iconUrl = 'https://evil.example/icon.png')],
      ['removed skill', (c) => (c.skills = [])],
      [
        'protected header',
        (c) =>
          (c.signatures[0].protected = base64urlnopad.encode(
            new TextEncoder().encode('{"alg":"ES256K","typ":"JOSE","kid":"' + jwksOf(K1).keys[0]!.kid + '"}'),
          )),
      ],
    ];
    for (const [what, mutate] of mutations) {
      const tampered = clone(signed);
      mutate(tampered);
      expect(verifyProjectedCard(tampered, jwksOf(K1)), what).toMatchObject({ ok: false, reason: 'bad-signature' });
    }
  });

  it('keeps earlier signatures, accepts an unprotected header and verifies when any one signature is good', () => {
    const twice = signProjectedCard(signProjectedCard(servedCard(), P256), K1, { header: { note: 'gateway' } });
    expect(twice.signatures).toHaveLength(2);
    expect(twice.signatures[1]!.header).toEqual({ note: 'gateway' });
    expect(verifyProjectedCard(twice, jwksOf(K1))).toMatchObject({ ok: true, index: 1 });
    expect(verifyProjectedCard(twice, jwksOf(P256))).toMatchObject({ ok: true, index: 0 });
    expect(() => signProjectedCard(servedCard(), K1, { header: { kid: 'x' } })).toThrow(/repeats protected/);
  });

  it('accepts the high-S twin of a signature (as OpenSSL does), but nothing else', () => {
    const signed = signProjectedCard(servedCard(), K1);
    const sig = secp256k1.Signature.fromBytes(base64urlnopad.decode(signed.signatures[0]!.signature));
    const highS = new secp256k1.Signature(sig.r, secp256k1.Point.Fn.ORDER - sig.s).toBytes('compact');
    const twin = { ...signed, signatures: [{ ...signed.signatures[0]!, signature: base64urlnopad.encode(highS) }] };
    expect(verifyProjectedCard(twin, jwksOf(K1)).ok).toBe(true);
  });
});

describe('rejections', () => {
  const signed = signProjectedCard(servedCard(), K1);
  const entry = signed.signatures[0]!;
  const header = decodeHeader(entry.protected);
  const withHeader = (h: Record<string, unknown>) => ({
    ...signed,
    signatures: [{ ...entry, protected: base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(h))) }],
  });

  it('unsigned: no signatures, or an empty list', () => {
    expect(verifyProjectedCard(servedCard(), jwksOf(K1))).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(verifyProjectedCard({ ...servedCard(), signatures: [] }, jwksOf(K1))).toMatchObject({
      ok: false,
      reason: 'unsigned',
    });
  });

  it('unknown-key: a kid not in the set, or a key of the wrong curve or alg', () => {
    expect(verifyProjectedCard(signed, jwksOf(P256))).toMatchObject({ ok: false, reason: 'unknown-key' });
    expect(verifyProjectedCard(signed, { keys: [] })).toMatchObject({ ok: false, reason: 'unknown-key' });
    const k = jwksOf(K1).keys[0]!;
    expect(verifyProjectedCard(signed, { keys: [{ ...k, crv: 'P-256' }] })).toMatchObject({
      ok: false,
      reason: 'unknown-key',
    });
    expect(verifyProjectedCard(signed, { keys: [{ ...k, alg: 'ES256' }] })).toMatchObject({
      ok: false,
      reason: 'unknown-key',
    });
    expect(verifyProjectedCard(signed, { keys: [{ ...k, use: 'enc' }] })).toMatchObject({
      ok: false,
      reason: 'unknown-key',
    });
    expect(verifyProjectedCard(signed, { keys: [{ ...k, y: k.x }] })).toMatchObject({
      ok: false,
      reason: 'unknown-key',
    });
  });

  it('bad-signature: the right key id, but another key', () => {
    const impostor = gatewayJwks(
      cardSigningPublicKey({ alg: 'ES256K', secretKey: generateCardSigningSecret('ES256K') }),
      header.kid as string,
    );
    expect(verifyProjectedCard(signed, impostor)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('unsupported: alg none or other algorithms, crit parameters', () => {
    expect(verifyProjectedCard(withHeader({ ...header, alg: 'none' }), jwksOf(K1))).toMatchObject({
      ok: false,
      reason: 'unsupported',
    });
    expect(verifyProjectedCard(withHeader({ ...header, alg: 'HS256' }), jwksOf(K1))).toMatchObject({
      ok: false,
      reason: 'unsupported',
    });
    expect(verifyProjectedCard(withHeader({ ...header, crit: ['b64'], b64: false }), jwksOf(K1))).toMatchObject({
      ok: false,
      reason: 'unsupported',
    });
  });

  it('malformed: missing header members, bad encodings, wrong shapes', () => {
    const { typ: _t, ...noTyp } = header;
    const { kid: _k, ...noKid } = header;
    const cases: [string, unknown][] = [
      ['not an object', []],
      ['signatures not an array', { ...signed, signatures: {} }],
      ['entry not an object', { ...signed, signatures: ['x'] }],
      ['no typ', withHeader(noTyp)],
      ['typ JWT', withHeader({ ...header, typ: 'JWT' })],
      ['no kid', withHeader(noKid)],
      ['protected not base64url', { ...signed, signatures: [{ ...entry, protected: `${entry.protected}=` }] }],
      ['protected not JSON', { ...signed, signatures: [{ ...entry, protected: 'bm90IGpzb24' }] }],
      ['signature too short', { ...signed, signatures: [{ ...entry, signature: entry.signature.slice(0, 84) }] }],
      ['signature not base64url', { ...signed, signatures: [{ ...entry, signature: `${entry.signature.slice(1)}+` }] }],
      ['header repeats kid', { ...signed, signatures: [{ ...entry, header: { kid: 'other' } }] }],
      ['header not an object', { ...signed, signatures: [{ ...entry, header: 'x' }] }],
    ];
    for (const [what, input] of cases)
      expect(verifyProjectedCard(input, jwksOf(K1)), what).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('reports the most telling failure among several signatures', () => {
    const mixed = { ...signed, signatures: [{ protected: 'e30', signature: 'AA' }, entry] };
    const result = verifyProjectedCard(mixed, jwksOf(P256));
    expect(result).toMatchObject({ ok: false, reason: 'unknown-key' });
    expect(!result.ok && result.message).toMatch(/signatures\[0\]: .*; signatures\[1\]: /);
  });
});
