/**
 * An lp-0008 card, checked with its own scheme: a JWS with a detached payload, `alg` `secp256k1-bip340`. The
 * payload is base64url of the card without `signatures`, compact with members sorted (jcs.ts); the signed message
 * is SHA-256(protected ‖ "." ‖ payload), the signature BIP-340 Schnorr, 64 bytes in base64url. The key is not in
 * the card: `kid` names the agent's payment account, and the x-only key is published apart, so the operator
 * configures it (`keys`, kid → 32-byte x-only key in hex). A card whose kid has no configured key is refused as
 * `unknown-key`: the integrator lists it as unverified or refuses it, by policy. One naming a payment account is
 * believed only when signed for that account's kid (`key-mismatch` otherwise).
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64urlnopad } from '@scure/base';
import { z } from 'zod';
import { isPlainObject } from '../../../json-object.ts';
import { canonicalize } from '../../jcs.ts';
import { PeerSkills, peerAgentId, type PeerCardVerification } from '../common/peer-card.ts';
import { IDENTIFIER } from './wire.ts';

export const JWS_ALG = 'secp256k1-bip340';
const URL_PREFIX = 'logos-messaging://';

const Lp0008Card = z.object({
  name: z.string().min(1).max(256),
  description: z.string().max(8192).default(''),
  version: z.string().min(1).max(64),
  url: z.string(),
  capabilities: z.object({ streaming: z.boolean().optional() }).loose().optional(),
  skills: PeerSkills,
  'x-logos': z.object({
    lezAccount: z.string().regex(IDENTIFIER),
    paymentAccount: z.string().optional(),
    pricePerTask: z.number().int().nonnegative().optional(),
  }),
  signatures: z.array(z.object({ protected: z.string(), signature: z.string() })).min(1),
});

const Header = z.object({ alg: z.string(), kid: z.string().min(1).max(128) });

/**
 * The JWS payload of a card: base64url of its canonical JSON without `signatures`, characters past ASCII as UTF-8;
 * or (`asciiOnly`) escaped `\uXXXX`, as Python's `json.dumps` writes them by default. The binding's two signers
 * spell them differently, so a verifier accepts either.
 */
export function cardPayload(card: Record<string, unknown>, asciiOnly = false): string {
  const json = unsignedJson(card);
  return payloadOf(asciiOnly ? escapedPastAscii(json) : json);
}

function unsignedJson(card: Record<string, unknown>): string {
  const { signatures: _signatures, ...unsigned } = card;
  return canonicalize(unsigned);
}

function payloadOf(json: string): string {
  return base64urlnopad.encode(utf8ToBytes(json));
}

/**
 * Canonical JSON with every character past ASCII escaped, one `\uXXXX` per UTF-16 unit, DEL (U+007F) too, as Python
 * does. Outside strings canonical JSON is ASCII, so only characters inside strings change.
 */
function escapedPastAscii(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function header(protectedHeader: string): z.infer<typeof Header> | undefined {
  try {
    const parsed = Header.safeParse(JSON.parse(new TextDecoder().decode(base64urlnopad.decode(protectedHeader))));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function verifies(signature: string, protectedHeader: string, payload: string, key: string): boolean {
  try {
    const digest = sha256(utf8ToBytes(`${protectedHeader}.${payload}`));
    return schnorr.verify(base64urlnopad.decode(signature), digest, hexToBytes(key));
  } catch {
    return false;
  }
}

/** Parses, verifies (the first signature of this alg whose kid has a configured key) and maps a card. */
export function verifyLp0008Card(json: unknown, keys: Readonly<Record<string, string>>): PeerCardVerification {
  if (!isPlainObject(json)) return { ok: false, reason: 'malformed', message: 'a card is a JSON object' };
  if (!Array.isArray(json.signatures) || json.signatures.length === 0) {
    return { ok: false, reason: 'unsigned', message: 'the card has no signatures' };
  }
  const parsed = Lp0008Card.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'malformed', message: z.prettifyError(parsed.error) };
  const card = parsed.data;
  // The two signers agree on an ASCII card; on another, either spelling of its characters may be the signed one.
  const canonical = unsignedJson(json);
  const escaped = escapedPastAscii(canonical);
  const payloads = (escaped === canonical ? [canonical] : [canonical, escaped]).map(payloadOf);
  const signed = card.signatures
    .map((s) => ({ ...s, header: header(s.protected) }))
    .filter((s) => s.header?.alg === JWS_ALG);
  if (signed.length === 0) return { ok: false, reason: 'malformed', message: `no signature with alg ${JWS_ALG}` };
  const keyed = signed.filter((s) => keys[s.header!.kid] !== undefined);
  if (keyed.length === 0) {
    return { ok: false, reason: 'unknown-key', message: `no key is configured for kid ${signed[0]!.header!.kid}` };
  }
  // The kid is the payment account's id: a card naming a payee is believed only on that account's own signature, or
  // any agent with a configured key could name itself the payee of another's card.
  const payee = card['x-logos'].paymentAccount?.replace(/^Public\//, '');
  const payees = payee === undefined ? keyed : keyed.filter((s) => s.header!.kid === payee);
  if (payee !== undefined && payees.length === 0) {
    return {
      ok: false,
      reason: 'key-mismatch',
      message: `the card names the payment account ${payee.slice(0, 64)} but is signed for kid ${keyed[0]!.header!.kid}`,
    };
  }
  const good = payees.find((s) =>
    payloads.some((payload) => verifies(s.signature, s.protected, payload, keys[s.header!.kid]!)),
  );
  if (!good)
    return { ok: false, reason: 'bad-signature', message: 'the BIP-340 signature does not verify over the card' };
  const account = card['x-logos'].lezAccount;
  if (card.url !== `${URL_PREFIX}${account}`) {
    return {
      ok: false,
      reason: 'not-callable',
      message: `url ${card.url.slice(0, 128)} is not ${URL_PREFIX}${account}`,
    };
  }
  const price = card['x-logos'].pricePerTask;
  return {
    ok: true,
    binding: 'lp-0008',
    signingKey: keys[good.header!.kid]!,
    card: {
      id: peerAgentId(card.name, account),
      name: card.name,
      description: card.description,
      version: card.version,
      capabilities: { streaming: card.capabilities?.streaming ?? false },
      skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description })),
      ...(price === undefined ? {} : { 'x-lez-price': String(price) }),
      ...(payee === undefined ? {} : { 'x-lez-identity': { account_id: payee } }),
      agentInterfaces: [{ type: 'logos-messaging', version: 'lp-0008', address: account }],
    },
  };
}
