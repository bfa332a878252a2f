/**
 * The gateway's own signature on the cards it serves (A2A v1.0 §8.4): a JWS in the card's `signatures` array,
 * with a detached payload, verifiable against the gateway's JWKS (served at `/.well-known/jwks.json`).
 *
 * ```json
 * "signatures": [{
 *   "protected": "<base64url of {\"alg\":\"ES256K\",\"jku\":\"https://gw.example/.well-known/jwks.json\",\"kid\":\"…\",\"typ\":\"JOSE\"}>",
 *   "signature": "<base64url of the 64-byte r ‖ s>"
 * }]
 * ```
 *
 * - Payload: the card without `signatures`, with every member whose value is null, "", [] or {} removed
 *   (recursively; an array loses such items), serialized with RFC 8785 (JCS). The removal is §8.4.1's "fields
 *   with default values are omitted" exactly as the official JS and Python SDKs apply it (their
 *   `canonicalizeAgentCard` / `canonicalize_agent_card`), so their verifiers compute the same bytes. Sign the card
 *   exactly as it is served (after the SDK codec), so that nothing served is outside the payload.
 * - Signing input: ASCII(protected ‖ "." ‖ base64url(UTF-8(payload))), as RFC 7515 §5.1.
 * - `ES256K` (RFC 8812): ECDSA over secp256k1 with SHA-256; `ES256` (RFC 7518): the same over P-256. The
 *   signature is the 64-byte r ‖ s (low-S when we sign; either half accepted on verification, as OpenSSL does).
 * - Protected header: `alg`, `typ: "JOSE"`, `kid` (default: the RFC 7638 thumbprint of the public JWK), and `jku`
 *   when the key has one. A verifier should fetch a `jku` only from an origin it already trusts for the card.
 *
 * Interop note: ES256K is not in WebCrypto, so `jose` (hence @a2a-js/sdk's `verifyAgentCardSignature`) and other
 * WebCrypto-based verifiers cannot check it; Python's a2a-sdk (PyJWT) and OpenSSL can. ES256 is verifiable
 * everywhere.
 */
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlnopad } from '@scure/base';
import { canonicalizeAgentCard, type AgentCard } from '@a2a-js/sdk';
import { canonicalize } from '../logos/jcs.ts';
import { isPlainObject } from '../json-object.ts';

export const JWKS_PATH = '/.well-known/jwks.json';
export const CARD_JWS_ALGS = ['ES256K', 'ES256'] as const;
export type CardJwsAlg = (typeof CARD_JWS_ALGS)[number];

const CURVES = {
  ES256K: { curve: secp256k1, crv: 'secp256k1' },
  ES256: { curve: p256, crv: 'P-256' },
} as const;

/** The gateway's card-signing key. */
export interface CardSigningKey {
  alg: CardJwsAlg;
  /** 32-byte secret scalar on the alg's curve. */
  secretKey: Uint8Array;
  /** Default: the RFC 7638 thumbprint of the public key. */
  kid?: string;
  /** Where the JWKS with this key is served, e.g. `${publicBaseUrl}/.well-known/jwks.json`. */
  jku?: string;
}

export interface EcPublicJwk {
  kty: 'EC';
  crv: 'secp256k1' | 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: CardJwsAlg;
  use: 'sig';
}

export interface Jwks {
  keys: EcPublicJwk[];
}

export interface AgentCardSignatureJson {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isCardJwsAlg(value: unknown): value is CardJwsAlg {
  return (CARD_JWS_ALGS as readonly unknown[]).includes(value);
}

// ---- keys --------------------------------------------------------------------------------------------------------

/** A fresh secret key for `alg` (P-256 needs rejection sampling: 32 random bytes are not always below its order). */
export function generateCardSigningSecret(alg: CardJwsAlg): Uint8Array {
  return CURVES[alg].curve.utils.randomSecretKey();
}

/** The 33-byte compressed SEC1 public key of a card-signing key. Throws on a secret that is not on the curve. */
export function cardSigningPublicKey(key: Pick<CardSigningKey, 'alg' | 'secretKey'>): Uint8Array {
  const { curve } = CURVES[key.alg];
  if (key.secretKey.byteLength !== 32 || !curve.utils.isValidSecretKey(key.secretKey)) {
    throw new RangeError(`invalid ${key.alg} secret key`);
  }
  return curve.getPublicKey(key.secretKey, true);
}

/** RFC 7638 thumbprint: base64url(SHA-256 of the JCS of the required members {crv, kty, x, y}). */
export function jwkThumbprint(jwk: Pick<EcPublicJwk, 'crv' | 'kty' | 'x' | 'y'>): string {
  return base64urlnopad.encode(sha256(utf8.encode(canonicalize({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))));
}

/** The public JWK of a SEC1 public key (33 or 65 bytes). */
export function publicJwk(publicKey: Uint8Array, alg: CardJwsAlg = 'ES256K', kid?: string): EcPublicJwk {
  const { curve, crv } = CURVES[alg];
  const point = curve.Point.fromBytes(publicKey);
  point.assertValidity();
  const uncompressed = point.toBytes(false);
  const x = base64urlnopad.encode(uncompressed.subarray(1, 33));
  const y = base64urlnopad.encode(uncompressed.subarray(33, 65));
  return { kty: 'EC', crv, x, y, kid: kid ?? jwkThumbprint({ kty: 'EC', crv, x, y }), alg, use: 'sig' };
}

/** The JWKS document to serve at `/.well-known/jwks.json`. */
export function gatewayJwks(publicKey: Uint8Array, kid?: string, alg: CardJwsAlg = 'ES256K'): Jwks {
  return { keys: [publicJwk(publicKey, alg, kid)] };
}

/** The `kid` a key signs with: its own, else the thumbprint of its public JWK. */
export function cardSigningKid(key: CardSigningKey): string {
  return key.kid ?? publicJwk(cardSigningPublicKey(key), key.alg).kid;
}

// ---- payload -----------------------------------------------------------------------------------------------------

/** Drops null, undefined, "", [] and {} recursively (the SDKs' `cleanEmpty`); undefined when nothing is left. */
function pruneEmpty(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return undefined;
  if (Array.isArray(value)) {
    const items = value.map(pruneEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    // A null-prototype object, so a member named "__proto__" stays a member.
    const out: Record<string, unknown> = Object.create(null);
    let any = false;
    for (const [name, member] of Object.entries(value)) {
      const pruned = pruneEmpty(member);
      if (pruned !== undefined) {
        out[name] = pruned;
        any = true;
      }
    }
    return any ? out : undefined;
  }
  return value;
}

/** The canonical JSON text a card's JWS signatures cover. Throws when the card is not plain JSON. */
export function projectedCardPayload(card: Record<string, unknown>): string {
  const { signatures: _ignored, ...rest } = card;
  return canonicalize(pruneEmpty(rest) ?? {});
}

function signingInput(protectedHeader: string, payload: string): Uint8Array {
  return utf8.encode(`${protectedHeader}.${base64urlnopad.encode(utf8.encode(payload))}`);
}

// ---- signing -----------------------------------------------------------------------------------------------------

/**
 * Returns the card with the gateway's signature appended to `signatures` (signatures already there are kept:
 * none of them is part of the payload). `header` becomes the unprotected header.
 */
export function signProjectedCard<T extends Record<string, unknown>>(
  cardJson: T,
  gatewayKey: CardSigningKey,
  options: { header?: Record<string, unknown>; payload?: string } = {},
): T & { signatures: AgentCardSignatureJson[] } {
  if (!isPlainObject(cardJson)) throw new TypeError('a card is a JSON object');
  if (!isCardJwsAlg(gatewayKey.alg)) throw new RangeError(`unsupported alg ${String(gatewayKey.alg)}`);
  const existing = cardJson.signatures;
  if (existing !== undefined && !Array.isArray(existing)) throw new TypeError('signatures must be an array');
  const header = {
    alg: gatewayKey.alg,
    typ: 'JOSE',
    kid: cardSigningKid(gatewayKey),
    ...(gatewayKey.jku ? { jku: gatewayKey.jku } : {}),
  };
  if (options.header) {
    const clash = Object.keys(options.header).filter((name) => name in header);
    if (clash.length > 0) throw new RangeError(`unprotected header repeats protected members: ${clash.join(', ')}`);
  }
  const protectedHeader = base64urlnopad.encode(utf8.encode(canonicalize(header)));
  const digest = sha256(signingInput(protectedHeader, options.payload ?? projectedCardPayload(cardJson)));
  const { curve } = CURVES[gatewayKey.alg];
  const signature = curve.sign(digest, gatewayKey.secretKey, { prehash: false, lowS: true, format: 'compact' });
  const entry: AgentCardSignatureJson = {
    protected: protectedHeader,
    signature: base64urlnopad.encode(signature),
    ...(options.header ? { header: options.header } : {}),
  };
  return { ...cardJson, signatures: [...((existing as AgentCardSignatureJson[] | undefined) ?? []), entry] };
}

/**
 * Signs a card in the shape it is served. The first signature covers the card's A2A v1.0 content as the official
 * SDKs canonicalize it (their `canonicalizeAgentCard` passes the card through the v1.0 codec, which drops members
 * outside the v1.0 schema), so their `verifyAgentCardSignature` accepts every shape. A shape with members outside
 * v1.0 (the v0.3 and union cards) gets a second signature over the whole served card (`projectedCardPayload`), so
 * that those members, `url` among them, are signed too.
 */
export function signServedCard<T extends Record<string, unknown>>(
  cardJson: T,
  gatewayKey: CardSigningKey,
): T & { signatures: AgentCardSignatureJson[] } {
  const v1Payload = canonicalizeAgentCard(cardJson as unknown as AgentCard);
  const signed = signProjectedCard(cardJson, gatewayKey, { payload: v1Payload });
  return v1Payload === projectedCardPayload(cardJson) ? signed : signProjectedCard(signed, gatewayKey);
}

// ---- verification ------------------------------------------------------------------------------------------------

export type ProjectedCardRejection = 'unsigned' | 'malformed' | 'unsupported' | 'unknown-key' | 'bad-signature';

export type ProjectedCardVerification =
  | { ok: true; kid: string; alg: CardJwsAlg; jku?: string; index: number }
  | { ok: false; reason: ProjectedCardRejection; message: string };

type EntryResult =
  | { ok: true; kid: string; alg: CardJwsAlg; jku?: string }
  | { ok: false; reason: Exclude<ProjectedCardRejection, 'unsigned'>; message: string };

/** Worst to best: the reported failure is the most informative one among the signatures. */
const RANK: Record<Exclude<ProjectedCardRejection, 'unsigned'>, number> = {
  malformed: 0,
  unsupported: 1,
  'unknown-key': 2,
  'bad-signature': 3,
};

/**
 * Checks a served card against a JWKS: true when at least one entry of `signatures` is a valid JWS by a key of the
 * set. Never throws.
 */
export function verifyProjectedCard(cardJson: unknown, jwks: Jwks | { keys: unknown[] }): ProjectedCardVerification {
  if (!isPlainObject(cardJson)) return { ok: false, reason: 'malformed', message: 'the card is not a JSON object' };
  const signatures = cardJson.signatures;
  if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0)) {
    return { ok: false, reason: 'unsigned', message: 'the card has no signatures' };
  }
  if (!Array.isArray(signatures)) return { ok: false, reason: 'malformed', message: 'signatures must be an array' };
  let payload: string;
  try {
    payload = projectedCardPayload(cardJson);
  } catch (error) {
    return { ok: false, reason: 'malformed', message: `the card cannot be canonicalized: ${(error as Error).message}` };
  }
  let worst: Extract<EntryResult, { ok: false }> | undefined;
  const messages: string[] = [];
  for (let index = 0; index < signatures.length; index++) {
    const result = verifyEntry(signatures[index], payload, jwks);
    if (result.ok) return { ...result, index };
    messages.push(`signatures[${index}]: ${result.message}`);
    if (!worst || RANK[result.reason] > RANK[worst.reason]) worst = result;
  }
  return { ok: false, reason: worst!.reason, message: messages.join('; ') };
}

function decodeJsonObject(b64: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(base64urlnopad.decode(b64)));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function verifyEntry(entry: unknown, payload: string, jwks: { keys: unknown[] }): EntryResult {
  if (!isPlainObject(entry)) return { ok: false, reason: 'malformed', message: 'not an object' };
  const { protected: protectedB64, signature: signatureB64, header: unprotected } = entry;
  if (typeof protectedB64 !== 'string' || typeof signatureB64 !== 'string') {
    return { ok: false, reason: 'malformed', message: 'protected and signature must be base64url strings' };
  }
  const header = decodeJsonObject(protectedB64);
  if (!header) return { ok: false, reason: 'malformed', message: 'protected is not a base64url JSON object' };
  if (unprotected !== undefined && !isPlainObject(unprotected))
    return { ok: false, reason: 'malformed', message: 'header must be an object' };
  if (unprotected) {
    const clash = Object.keys(unprotected).filter((name) => Object.hasOwn(header, name));
    if (clash.length > 0)
      return { ok: false, reason: 'malformed', message: `header repeats protected members: ${clash.join(', ')}` };
  }
  const { alg, kid, typ, jku, crit } = header;
  if (typeof alg !== 'string' || typeof kid !== 'string' || kid.length === 0) {
    return { ok: false, reason: 'malformed', message: 'the protected header needs alg and kid' };
  }
  if (typeof typ !== 'string' || typ.toUpperCase() !== 'JOSE')
    return { ok: false, reason: 'malformed', message: 'the protected header needs typ "JOSE"' };
  if (crit !== undefined)
    return { ok: false, reason: 'unsupported', message: 'crit header parameters are not understood' };
  if (jku !== undefined && typeof jku !== 'string')
    return { ok: false, reason: 'malformed', message: 'jku must be a string' };
  if (!isCardJwsAlg(alg))
    return { ok: false, reason: 'unsupported', message: `alg ${alg} is not supported (ES256K, ES256)` };
  const { curve, crv } = CURVES[alg];
  const jwk = jwks.keys.find((k) => isPlainObject(k) && k.kid === kid);
  if (!jwk || !isPlainObject(jwk))
    return { ok: false, reason: 'unknown-key', message: `no key "${kid}" in the key set` };
  if (jwk.kty !== 'EC' || jwk.crv !== crv)
    return { ok: false, reason: 'unknown-key', message: `key "${kid}" is not an EC ${crv} key` };
  if (jwk.alg !== undefined && jwk.alg !== alg)
    return { ok: false, reason: 'unknown-key', message: `key "${kid}" is for ${String(jwk.alg)}, not ${alg}` };
  if (jwk.use !== undefined && jwk.use !== 'sig')
    return { ok: false, reason: 'unknown-key', message: `key "${kid}" is not a signing key` };
  let publicKey: Uint8Array;
  try {
    const x = base64urlnopad.decode(String(jwk.x));
    const y = base64urlnopad.decode(String(jwk.y));
    if (x.byteLength !== 32 || y.byteLength !== 32) throw new RangeError('x and y must be 32 bytes');
    publicKey = new Uint8Array(65);
    publicKey[0] = 4;
    publicKey.set(x, 1);
    publicKey.set(y, 33);
    curve.Point.fromBytes(publicKey).assertValidity();
  } catch (error) {
    return {
      ok: false,
      reason: 'unknown-key',
      message: `key "${kid}" is not a valid ${crv} point: ${(error as Error).message}`,
    };
  }
  let signature: Uint8Array;
  try {
    signature = base64urlnopad.decode(signatureB64);
  } catch {
    return { ok: false, reason: 'malformed', message: 'signature is not base64url' };
  }
  if (signature.byteLength !== 64)
    return {
      ok: false,
      reason: 'malformed',
      message: `signature must be 64 bytes (r ‖ s), got ${signature.byteLength}`,
    };
  let valid: boolean;
  try {
    valid = curve.verify(signature, sha256(signingInput(protectedB64, payload)), publicKey, {
      prehash: false,
      lowS: false,
      format: 'compact',
    });
  } catch {
    valid = false;
  }
  if (!valid)
    return { ok: false, reason: 'bad-signature', message: `the signature by "${kid}" does not match the card` };
  return { ok: true, kid, alg, ...(typeof jku === 'string' ? { jku } : {}) };
}
