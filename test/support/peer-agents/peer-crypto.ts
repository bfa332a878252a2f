/**
 * The three peer bindings' crypto as their agents do it, written from the bindings' descriptions with stock
 * packages only (`@noble/*`, `@scure/base`), for the outside agents of this folder and for the tests that check the
 * gateway's side against them. Nothing here comes from `src/`: it is the other side's implementation.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64urlnopad } from '@scure/base';

/** Compact JSON with members sorted at every level (Qt's `QJsonDocument::Compact` for ASCII text; JCS too). */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([key, member]) => `${JSON.stringify(key)}:${sortedJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// ---- logos-agent: Ed25519 over the card's struct-order JSON ------------------------------------------------------

/** Signs a logos-agent card whose members are already in the agent's struct order. */
export function signEd25519Card<T extends Record<string, unknown>>(
  card: T,
  secretKey: Uint8Array,
): T & { signature: string } {
  return { ...card, signature: bytesToHex(ed25519.sign(utf8ToBytes(JSON.stringify(card)), secretKey)) };
}

// ---- pilot: ECIES, ES256K ---------------------------------------------------------------------------------------

function eciesKey(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return sha256(secp256k1.getSharedSecret(secretKey, publicKey, true).slice(1));
}

export function eciesEncrypt(recipientHex: string, plaintext: string): string {
  const ephemeral = secp256k1.utils.randomSecretKey();
  const iv = randomBytes(12);
  const sealed = gcm(eciesKey(ephemeral, hexToBytes(recipientHex)), iv).encrypt(utf8ToBytes(plaintext));
  const parts = [secp256k1.getPublicKey(ephemeral, false), sealed.slice(0, -16), iv, sealed.slice(-16)];
  return parts.map((part) => bytesToHex(part)).join(':');
}

/** The plaintext, or undefined when the text is not for this key. */
export function eciesDecrypt(secretKey: Uint8Array, wire: string): string | undefined {
  try {
    const [ephemeral, ciphertext, iv, tag] = wire.split(':').map((hex) => hexToBytes(hex));
    const sealed = new Uint8Array([...ciphertext!, ...tag!]);
    return new TextDecoder().decode(gcm(eciesKey(secretKey, ephemeral!), iv!).decrypt(sealed));
  } catch {
    return undefined;
  }
}

/** ES256K: DER hex of ECDSA over SHA-256 of the sorted JSON; `highS` writes the malleable twin OpenSSL may emit. */
export function es256kSign(value: unknown, secretKey: Uint8Array, highS = false): string {
  const signature = secp256k1.Signature.fromBytes(
    secp256k1.sign(utf8ToBytes(sortedJson(value)), secretKey, { format: 'compact' }),
    'compact',
  );
  const s = highS ? secp256k1.Point.CURVE().n - signature.s : signature.s;
  return bytesToHex(new secp256k1.Signature(signature.r, s).toBytes('der'));
}

export function es256kVerify(value: unknown, signatureHex: string, publicKeyHex: string): boolean {
  try {
    return secp256k1.verify(hexToBytes(signatureHex), utf8ToBytes(sortedJson(value)), hexToBytes(publicKeyHex), {
      format: 'der',
      lowS: false,
    });
  } catch {
    return false;
  }
}

export const secp256k1PublicHex = (secretKey: Uint8Array) => bytesToHex(secp256k1.getPublicKey(secretKey, false));

/** Signs a pilot object: `_logos.signing_key` set, `_logos.signature` absent while signing, then set. */
export function pilotSign<T extends object>(value: T, secretKey: Uint8Array): T & { _logos: Record<string, unknown> } {
  const logos: Record<string, unknown> = {
    ...(value as { _logos?: Record<string, unknown> })._logos,
    signing_key: secp256k1PublicHex(secretKey),
  };
  delete logos.signature;
  const unsigned = { ...value, _logos: logos };
  return { ...unsigned, _logos: { ...logos, signature: es256kSign(unsigned, secretKey) } };
}

// ---- lp-0008: BIP-340 JWS, detached payload ---------------------------------------------------------------------

/**
 * Adds `signatures: [{protected, signature}]` to a card, signed with `secretKey` under `kid`; `asciiOnly`: over the
 * sorted JSON with every character past ASCII escaped, as Python's `json.dumps` writes it by default.
 */
export function signBip340Jws<T extends Record<string, unknown>>(
  card: T,
  secretKey: Uint8Array,
  kid: string,
  { asciiOnly = false } = {},
) {
  const header = base64urlnopad.encode(utf8ToBytes(JSON.stringify({ alg: 'secp256k1-bip340', kid })));
  const sorted = sortedJson(card);
  const text = asciiOnly
    ? [...sorted].map((char) => (char.charCodeAt(0) < 0x7f ? char : pythonEscape(char))).join('')
    : sorted;
  const payload = base64urlnopad.encode(utf8ToBytes(text));
  const digest = sha256(utf8ToBytes(`${header}.${payload}`));
  const signature = base64urlnopad.encode(schnorr.sign(digest, secretKey, new Uint8Array(32)));
  return { ...card, signatures: [{ protected: header, signature }] };
}

/** A character as Python escapes it: `\\uXXXX` in lowercase hex, a surrogate pair for one past U+FFFF. */
function pythonEscape(char: string): string {
  const units = char.length === 2 ? [char.charCodeAt(0), char.charCodeAt(1)] : [char.charCodeAt(0)];
  return units.map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`).join('');
}

export const xOnlyPublicHex = (secretKey: Uint8Array) => bytesToHex(schnorr.getPublicKey(secretKey));

/** Whether an lp-0008 card's first signature verifies with the x-only key published apart (hex). */
export function verifyBip340Jws(card: Record<string, unknown>, xOnlyKeyHex: string): boolean {
  const { signatures, ...unsigned } = card as { signatures?: { protected: string; signature: string }[] };
  const first = signatures?.[0];
  if (!first) return false;
  const payload = base64urlnopad.encode(utf8ToBytes(sortedJson(unsigned)));
  const digest = sha256(utf8ToBytes(`${first.protected}.${payload}`));
  try {
    return schnorr.verify(base64urlnopad.decode(first.signature), digest, hexToBytes(xOnlyKeyHex));
  } catch {
    return false;
  }
}

/** Whether a logos-agent card's Ed25519 signature verifies over its struct-order members, with the key it carries. */
export function verifyEd25519Card(card: Record<string, unknown>): boolean {
  const c = card as {
    protocolVersion: string;
    name: string;
    description: string;
    version: string;
    address: string;
    lezAccount: string;
    capabilities: { streaming: boolean };
    skills: { id: string; name: string; description: string; priceLez: string }[];
    signingPubkey: string;
    signature: string;
  };
  const signed = {
    protocolVersion: c.protocolVersion,
    name: c.name,
    description: c.description,
    version: c.version,
    address: c.address,
    lezAccount: c.lezAccount,
    capabilities: { streaming: c.capabilities.streaming },
    skills: c.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, priceLez: s.priceLez })),
    signingPubkey: c.signingPubkey,
  };
  try {
    return ed25519.verify(hexToBytes(c.signature), utf8ToBytes(JSON.stringify(signed)), hexToBytes(c.signingPubkey));
  } catch {
    return false;
  }
}
