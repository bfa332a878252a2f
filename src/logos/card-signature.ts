/**
 * Signed Logos agent cards (docs/discovery.md §6): the agent signs its own card with the LEZ key of the
 * public account the card names, so anyone holding only the card can check who stands behind it.
 *
 * Format: the card carries one extra top-level member, `signature`:
 *
 * ```json
 * "signature": {
 *   "alg": "bip340-sha256-jcs",
 *   "public_key": "<32-byte BIP-340 x-only public key, 64 lowercase hex>",
 *   "sig": "<64-byte BIP-340 signature, 128 lowercase hex>"
 * }
 * ```
 *
 * To check a card, with nothing but the card:
 *
 * 1. remove `signature`; canonicalize the rest with RFC 8785 (JCS, jcs.ts) and encode it as UTF-8;
 * 2. digest = SHA-256 of those bytes (32 bytes);
 * 3. `sig` must be a valid BIP-340 signature of the 32-byte message `digest` under `public_key`;
 * 4. SHA-256("/LEE/v0.3/AccountId/Public/" zero-padded to 32 bytes ‖ public_key), written in base58, must equal
 *    `x-lez-identity.account_id` (the LEZ public account id of that key, src/lez/account-id.ts).
 *
 * Every member of the card except `signature` is covered, unknown ones included, so changing, adding or removing
 * anything breaks step 3, and re-signing with another key breaks step 4. The signature object itself admits no
 * other members. Cards are at most 64 KiB of JSON.
 *
 * Cross-protocol note: the same LEZ key signs transactions, but a transaction's signed message is
 * SHA-256("/LEE/v0.3/Message/Public/"… ‖ borsh) or raw borsh, never SHA-256 of a JSON text starting with `{`, so a
 * card signature cannot be replayed as a transaction signature.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { formatAccountId, parseAccountId, publicAccountId } from '../lez/account-id.ts';
import { bytesEqual, parseHex, toHex } from '../lez/bytes.ts';
import { isValidXOnlyPublicKey, xOnlyPublicKey } from '../lez/public-key.ts';
import { schnorrSign, schnorrVerify } from '../lez/signing.ts';
import { LogosAgentCard } from './card.ts';
import { canonicalize } from './jcs.ts';
import { isPlainObject } from '../json-object.ts';
import { fromSeedCard, isSeedCard } from './seed-dialect.ts';

export const LOGOS_CARD_SIGNATURE_ALG = 'bip340-sha256-jcs';
export const MAX_SIGNED_CARD_BYTES = 64 * 1024;

export interface LogosCardSignature {
  alg: typeof LOGOS_CARD_SIGNATURE_ALG;
  /** BIP-340 x-only public key, 64 lowercase hex characters. */
  public_key: string;
  /** BIP-340 signature of SHA-256(JCS(card without `signature`)), 128 lowercase hex characters. */
  sig: string;
}

/** A card as signed: whatever the author wrote, with the account it names and the signature. */
export type SignedLogosCard<T extends object = LogosAgentCard> = Omit<T, 'signature'> & {
  'x-lez-identity': { account_id: string };
  signature: LogosCardSignature;
};

export type LogosCardRejection = 'unsigned' | 'malformed' | 'bad-signature' | 'account-mismatch' | 'oversized';

export interface VerifiedLogosCard {
  ok: true;
  /** The card as the gateway uses it (schema defaults applied, `signature` and unknown members dropped). */
  card: LogosAgentCard;
  /** The exact JSON that was verified, `signature` included: relay this, not `card`, so others can check it. */
  signedCard: Record<string, unknown>;
  /** The base58 public account id the key controls (= `x-lez-identity.account_id`). */
  accountId: string;
  /** The x-only public key, hex. */
  publicKey: string;
  signature: LogosCardSignature;
  /** SHA-256 of the canonical card without `signature`, hex: the 32-byte message that was signed. */
  digest: string;
}

export type LogosCardVerification = VerifiedLogosCard | { ok: false; reason: LogosCardRejection; message: string };

const HEX_32 = /^[0-9a-f]{64}$/;
const HEX_64 = /^[0-9a-f]{128}$/;
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function withoutSignature(card: Record<string, unknown>): Record<string, unknown> {
  const { signature: _ignored, ...rest } = card;
  return rest;
}

/**
 * The canonical text and the 32-byte message a card's signature covers. Throws (CanonicalizationError) when the
 * card is not plain JSON.
 */
export function logosCardSigningPayload(card: object): { canonical: string; digest: Uint8Array } {
  if (!isPlainObject(card)) throw new TypeError('a card is a JSON object');
  const canonical = canonicalize(withoutSignature(card));
  return { canonical, digest: sha256(utf8.encode(canonical)) };
}

export interface SignLogosCardOptions {
  /** BIP-340 auxiliary randomness (32 bytes); fresh unless a test pins it. */
  auxRand?: Uint8Array;
}

/**
 * Signs a card with the secret key of its LEZ public account. An existing `signature` is replaced. When the card
 * names no `x-lez-identity.account_id`, the key's account is filled in; when it names another account, or the card
 * is not a valid Logos card or is larger than 64 KiB, this throws: signing must never produce a card that
 * verification would refuse.
 */
export function signLogosCard<T extends object>(
  card: T,
  secretKey: Uint8Array,
  options: SignLogosCardOptions = {},
): SignedLogosCard<T> {
  if (!isPlainObject(card)) throw new TypeError('a card is a JSON object');
  const publicKey = xOnlyPublicKey(secretKey); // RangeError on an invalid key
  const account = formatAccountId(publicAccountId(publicKey));
  const unsigned = withoutSignature(card);
  const identity = unsigned['x-lez-identity'];
  if (identity !== undefined && !isPlainObject(identity)) throw new TypeError('x-lez-identity must be an object');
  const named = identity?.account_id;
  if (named !== undefined && named !== account) {
    throw new RangeError(`the card names account ${String(named)}, but this key controls ${account}`);
  }
  // Canonicalizing first proves the card is plain JSON, so the structured clone below is exactly what gets signed.
  canonicalize(unsigned);
  const body = structuredClone({ ...unsigned, 'x-lez-identity': { ...identity, account_id: account } });
  const parsed = LogosAgentCard.safeParse(body);
  if (!parsed.success) throw new TypeError(`not a valid Logos agent card: ${describeIssue(parsed.error.issues[0])}`);
  const { digest } = logosCardSigningPayload(body);
  const signature: LogosCardSignature = {
    alg: LOGOS_CARD_SIGNATURE_ALG,
    public_key: toHex(publicKey),
    sig: toHex(schnorrSign(digest, secretKey, options.auxRand)),
  };
  const signed = { ...body, signature };
  const size = utf8.encode(JSON.stringify(signed)).byteLength;
  if (size > MAX_SIGNED_CARD_BYTES)
    throw new RangeError(`the signed card is ${size} bytes, more than ${MAX_SIGNED_CARD_BYTES}`);
  return signed as unknown as SignedLogosCard<T>;
}

/**
 * Checks a card: its JSON text (string or UTF-8 bytes) or its parsed value. Never throws. Only public data is
 * needed: the card itself.
 */
export function verifyLogosCard(input: unknown): LogosCardVerification {
  const fail = (reason: LogosCardRejection, message: string): LogosCardVerification => ({ ok: false, reason, message });

  let json: unknown = input;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    const bytes = typeof input === 'string' ? utf8.encode(input) : input;
    if (bytes.byteLength > MAX_SIGNED_CARD_BYTES) {
      return fail('oversized', `the card is ${bytes.byteLength} bytes, more than ${MAX_SIGNED_CARD_BYTES}`);
    }
    try {
      json = JSON.parse(typeof input === 'string' ? input : strictUtf8.decode(input));
    } catch (error) {
      return fail('malformed', `the card is not JSON: ${(error as Error).message}`);
    }
  } else {
    let text: string | undefined;
    try {
      text = JSON.stringify(input);
    } catch (error) {
      return fail('malformed', `the card is not JSON: ${(error as Error).message}`);
    }
    if (text === undefined) return fail('malformed', 'the card is not a JSON object');
    const size = utf8.encode(text).byteLength;
    if (size > MAX_SIGNED_CARD_BYTES)
      return fail('oversized', `the card is ${size} bytes, more than ${MAX_SIGNED_CARD_BYTES}`);
  }
  if (!isPlainObject(json)) return fail('malformed', 'the card is not a JSON object');
  if (!Object.hasOwn(json, 'signature')) return fail('unsigned', 'the card has no signature');

  const signature = parseSignature(json.signature);
  if (typeof signature === 'string') return fail('malformed', signature);

  let payload: { canonical: string; digest: Uint8Array };
  try {
    payload = logosCardSigningPayload(json);
  } catch (error) {
    return fail('malformed', `the card cannot be canonicalized: ${(error as Error).message}`);
  }
  const parsed = LogosAgentCard.safeParse(withoutSignature(json));
  if (!parsed.success)
    return fail('malformed', `not a valid Logos agent card: ${describeIssue(parsed.error.issues[0])}`);
  const named = parsed.data['x-lez-identity']?.account_id;
  if (named === undefined) return fail('malformed', 'a signed card must name its account in x-lez-identity.account_id');
  const account = parseAccountId(named);
  if (!account.ok) return fail('malformed', `x-lez-identity.account_id: ${account.reason}`);

  if (!schnorrVerify(signature.sig, payload.digest, signature.publicKey)) {
    return fail(
      'bad-signature',
      'the signature does not match the card (the card was changed after signing, or signed by another key)',
    );
  }
  const keyAccount = publicAccountId(signature.publicKey);
  if (!bytesEqual(keyAccount, account.id)) {
    return fail(
      'account-mismatch',
      `the card is signed by the key of account ${formatAccountId(keyAccount)}, but names account ${account.text}`,
    );
  }
  return {
    ok: true,
    card: parsed.data,
    signedCard: json,
    accountId: account.text,
    publicKey: toHex(signature.publicKey),
    signature: signature.json,
    digest: toHex(payload.digest),
  };
}

/**
 * A card the gateway may serve although no documented rule vouches for its signature: an unsigned card, or one
 * in the seed's dialect, whose base64 `signature` names neither the signed bytes nor the algorithm. Served only
 * when the operator allows unverified agents, and marked so.
 */
export interface UnverifiedLogosCard {
  ok: true;
  unverified: true;
  card: LogosAgentCard;
  /** `unsigned`: no signature at all; `unverifiable`: a signature that no documented rule checks. */
  why: 'unsigned' | 'unverifiable';
  /** Says why, for the card's Logos extension and the directory. */
  reason: string;
}

export type LogosCardAdmission =
  VerifiedLogosCard | UnverifiedLogosCard | { ok: false; reason: LogosCardRejection | 'bad-price'; message: string };

/**
 * The rule that decides what a card is: **verified** when its signature verifies by the rule above; **unverified**
 * when it carries no signature, or a signature in the seed's form, which no documented rule checks (then
 * `UnverifiedLogosCard`); **refused** otherwise: a signature of the documented form that does not verify (a forgery
 * is never merely unverified), a card that is not valid, too large, or priced in fractions of a base unit.
 * Seed-literal cards are mapped to the canonical form first (seed-dialect.ts).
 */
export function admitLogosCard(input: Record<string, unknown>): LogosCardAdmission {
  if (isSeedCard(input) && !isPlainObject(input.signature)) {
    const size = utf8.encode(JSON.stringify(input)).byteLength;
    if (size > MAX_SIGNED_CARD_BYTES) {
      return {
        ok: false,
        reason: 'oversized',
        message: `the card is ${size} bytes, more than ${MAX_SIGNED_CARD_BYTES}`,
      };
    }
    const mapped = fromSeedCard(input);
    if (!mapped.ok) return mapped;
    return unverified(mapped.card, input.signature === undefined ? 'unsigned' : 'unverifiable');
  }
  const verified = verifyLogosCard(input);
  if (verified.ok || verified.reason !== 'unsigned') return verified;
  return unverified(input, 'unsigned');
}

function unverified(json: Record<string, unknown>, why: UnverifiedLogosCard['why']): LogosCardAdmission {
  const parsed = LogosAgentCard.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      reason: 'malformed',
      message: `not a valid Logos agent card: ${describeIssue(parsed.error.issues[0])}`,
    };
  const reason =
    why === 'unsigned'
      ? 'The card is not signed.'
      : "The card's signature follows the seed binding, which names neither the signed bytes nor the algorithm; no documented rule can check it.";
  return { ok: true, unverified: true, card: parsed.data, why, reason };
}

function parseSignature(value: unknown): { json: LogosCardSignature; publicKey: Uint8Array; sig: Uint8Array } | string {
  if (!isPlainObject(value)) return 'signature must be an object {alg, public_key, sig}';
  const extra = Object.keys(value).filter((k) => k !== 'alg' && k !== 'public_key' && k !== 'sig');
  if (extra.length > 0) return `signature has unknown members: ${extra.join(', ')}`;
  const { alg, public_key: publicKeyHex, sig: sigHex } = value;
  if (alg !== LOGOS_CARD_SIGNATURE_ALG)
    return `signature.alg must be "${LOGOS_CARD_SIGNATURE_ALG}", got ${JSON.stringify(alg) ?? 'nothing'}`;
  if (typeof publicKeyHex !== 'string' || !HEX_32.test(publicKeyHex))
    return 'signature.public_key must be 32 bytes as 64 lowercase hex characters';
  if (typeof sigHex !== 'string' || !HEX_64.test(sigHex))
    return 'signature.sig must be 64 bytes as 128 lowercase hex characters';
  const publicKey = (parseHex(publicKeyHex, 32) as { ok: true; bytes: Uint8Array }).bytes;
  if (!isValidXOnlyPublicKey(publicKey)) return 'signature.public_key is not a point on secp256k1';
  const sig = (parseHex(sigHex, 64) as { ok: true; bytes: Uint8Array }).bytes;
  return { json: { alg, public_key: publicKeyHex, sig: sigHex }, publicKey, sig };
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'invalid';
  return `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`;
}

/**
 * What the HTTP projection says about the agent's own signature, to merge into the params of the
 * `urn:logos-a2a:ext:logos-agent:v1` extension. `verifiedAt` is when the gateway checked the card (keep it stable
 * for a given card: it is part of the projected card, so of its ETag and of the gateway's JWS).
 *
 * With `includeCard`, the original signed card is embedded, so an HTTP client can repeat the check itself
 * (steps 1–4 above) from the projected card alone.
 */
export function logosSignatureParams(
  verified: VerifiedLogosCard,
  options: { verifiedAt?: Date; includeCard?: boolean } = {},
): { logosCardSignature: Record<string, unknown> } {
  return {
    logosCardSignature: {
      signature: { ...verified.signature },
      account: verified.accountId,
      digest: verified.digest,
      verifiedAt: (options.verifiedAt ?? new Date()).toISOString(),
      ...(options.includeCard ? { card: verified.signedCard } : {}),
    },
  };
}
