/**
 * The stock payload formats of 26/WAKU2-PAYLOAD (WakuMessage version 1), byte for byte as @waku/message-encryption
 * writes and reads them, but synchronous and on native primitives: AES, HMAC and SHA-256 from node:crypto,
 * secp256k1 from the backend given (libsecp256k1 where it loads), keccak-256 from `keccak256.ts` (the `keccak`
 * addon where it loads), random bytes from `random-pool.ts`. The stock package does the same work in pure
 * JavaScript on the main thread, at about 36 % of the Waku path's CPU (see bench/waku-overhead.ts).
 *
 * - **Signed plaintext**: flags (bits 0–1: bytes of the size field, bit 2: signed), the body's size (little-endian),
 *   the body, random padding to a multiple of 256 bytes counting the signature, then the signature: r‖s‖recovery id
 *   over keccak256 of everything before it.
 * - **Asymmetric (ECIES)**: ephemeral public key (65) ‖ IV (16) ‖ AES-128-CTR ciphertext ‖ HMAC-SHA256 (32), with the
 *   keys from SHA-256(0x00000001 ‖ shared x): the first 16 bytes encrypt, SHA-256 of the last 16 is the MAC key.
 * - **Symmetric**: AES-256-GCM ciphertext ‖ tag (16) ‖ IV (12).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { keccak256 } from './keccak256.ts';
import { fillRandom, randomBytesFromPool } from '../../../random-pool.ts';
import type { Secp256k1 } from './secp256k1-backend.ts';

const SIGNED_FLAG = 0b100;
const SIZE_FIELD_MASK = 0b011;
const SIGNATURE_BYTES = 65;
const PADDING_TARGET = 256;
const PUBLIC_KEY_BYTES = 65;
const CTR_IV_BYTES = 16;
const MAC_BYTES = 32;
const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;

export type OpenedPlaintext =
  { ok: true; body: Uint8Array; signer?: Uint8Array } | { ok: false; reason: 'malformed' | 'badSignature' };

/** Bytes of the size field for a body of `length` bytes: 1 up to 255, then one more per factor of 256. */
function sizeFieldBytes(length: number): number {
  let bytes = 1;
  for (let rest = length; rest >= 256; rest /= 256) bytes++;
  return bytes;
}

/** The signed plaintext of `body`, ready for either encryption. */
export function signedPlaintext(body: Uint8Array, signerSecretKey: Uint8Array, curve: Secp256k1): Uint8Array {
  const sizeBytes = sizeFieldBytes(body.length);
  const unpadded = 1 + sizeBytes + body.length + SIGNATURE_BYTES;
  // As the stock encoder: a full 256 bytes of padding when the size is already a multiple.
  const padding = PADDING_TARGET - (unpadded % PADDING_TARGET);
  const out = new Uint8Array(unpadded + padding);
  out[0] = SIGNED_FLAG | sizeBytes;
  for (let i = 0, size = body.length; i < sizeBytes; i++, size = Math.floor(size / 256)) out[1 + i] = size & 0xff;
  out.set(body, 1 + sizeBytes);
  const signedEnd = out.length - SIGNATURE_BYTES;
  fillRandom(out.subarray(1 + sizeBytes + body.length, signedEnd));
  const { signature, recovery } = curve.sign(keccak256(out.subarray(0, signedEnd)), signerSecretKey);
  out.set(signature, signedEnd);
  out[out.length - 1] = recovery;
  return out;
}

/** The body of a decrypted plaintext, and who signed it when it is signed. */
export function openPlaintext(plaintext: Uint8Array, curve: Secp256k1): OpenedPlaintext {
  const sizeBytes = plaintext[0]! & SIZE_FIELD_MASK;
  if (plaintext.length === 0 || sizeBytes === 0) return { ok: false, reason: 'malformed' };
  const signed = (plaintext[0]! & SIGNED_FLAG) !== 0;
  const contentEnd = plaintext.length - (signed ? SIGNATURE_BYTES : 0);
  let size = 0;
  for (let i = sizeBytes; i >= 1; i--) size = size * 256 + (plaintext[i] ?? 0);
  const bodyStart = 1 + sizeBytes;
  if (bodyStart + size > contentEnd) return { ok: false, reason: 'malformed' };
  const body = plaintext.subarray(bodyStart, bodyStart + size);
  if (!signed) return { ok: true, body };
  const recovery = plaintext[plaintext.length - 1]!;
  if (recovery > 3) return { ok: false, reason: 'badSignature' };
  try {
    const signer = curve.recover(
      keccak256(plaintext.subarray(0, contentEnd)),
      plaintext.subarray(contentEnd, plaintext.length - 1),
      recovery,
    );
    return { ok: true, body, signer };
  } catch {
    return { ok: false, reason: 'badSignature' };
  }
}

/** ECIES keys from the shared x coordinate, as the stock scheme (go-ethereum's concatenation KDF, one round). */
function eciesKeys(sharedX: Uint8Array): { encryptionKey: Buffer; macKey: Buffer } {
  const derived = createHash('sha256')
    .update(Uint8Array.of(0, 0, 0, 1))
    .update(sharedX)
    .digest();
  return {
    encryptionKey: derived.subarray(0, 16),
    macKey: createHash('sha256').update(derived.subarray(16)).digest(),
  };
}

/** ECIES to a 65-byte public key: written in place, ephemeral public key ‖ IV ‖ ciphertext ‖ MAC. */
export function eciesEncrypt(recipientPublicKey: Uint8Array, plaintext: Uint8Array, curve: Secp256k1): Uint8Array {
  const ephemeralSecret = randomEphemeralKey();
  const { encryptionKey, macKey } = eciesKeys(curve.sharedX(ephemeralSecret, recipientPublicKey));
  const ivEnd = PUBLIC_KEY_BYTES + CTR_IV_BYTES;
  const macStart = ivEnd + plaintext.length;
  const out = new Uint8Array(macStart + MAC_BYTES);
  out.set(curve.publicKey(ephemeralSecret));
  const iv = out.subarray(PUBLIC_KEY_BYTES, ivEnd);
  fillRandom(iv);
  const cipher = createCipheriv('aes-128-ctr', encryptionKey, iv);
  writeAll(out, ivEnd, cipher.update(plaintext), cipher.final());
  out.set(createHmac('sha256', macKey).update(out.subarray(PUBLIC_KEY_BYTES, macStart)).digest(), macStart);
  return out;
}

/** The plaintext of an ECIES payload for `secretKey`, or undefined when it is not one (bad format or MAC). */
export function eciesDecrypt(secretKey: Uint8Array, payload: Uint8Array, curve: Secp256k1): Uint8Array | undefined {
  if (payload.length <= PUBLIC_KEY_BYTES + CTR_IV_BYTES + MAC_BYTES || payload[0] !== 4) return undefined;
  const ivStart = PUBLIC_KEY_BYTES;
  const macStart = payload.length - MAC_BYTES;
  let sharedX: Uint8Array;
  try {
    sharedX = curve.sharedX(secretKey, payload.subarray(0, PUBLIC_KEY_BYTES));
  } catch {
    return undefined; // not a point on the curve
  }
  const { encryptionKey, macKey } = eciesKeys(sharedX);
  const mac = createHmac('sha256', macKey).update(payload.subarray(ivStart, macStart)).digest();
  if (!timingSafeEqual(mac, payload.subarray(macStart))) return undefined;
  const decipher = createDecipheriv('aes-128-ctr', encryptionKey, payload.subarray(ivStart, ivStart + CTR_IV_BYTES));
  return joined(decipher.update(payload.subarray(ivStart + CTR_IV_BYTES, macStart)), decipher.final());
}

/** AES-256-GCM under a 32-byte key: written in place, ciphertext ‖ tag ‖ IV. */
export function symmetricEncrypt(key: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const tagStart = plaintext.length;
  const ivStart = tagStart + GCM_TAG_BYTES;
  const out = new Uint8Array(ivStart + GCM_IV_BYTES);
  const iv = out.subarray(ivStart);
  fillRandom(iv);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  writeAll(out, 0, cipher.update(plaintext), cipher.final());
  out.set(cipher.getAuthTag(), tagStart);
  return out;
}

/** The plaintext of an AES-256-GCM payload under `key`, or undefined when it does not authenticate. */
export function symmetricDecrypt(key: Uint8Array, payload: Uint8Array): Uint8Array | undefined {
  if (payload.length < GCM_TAG_BYTES + GCM_IV_BYTES) return undefined;
  const tagStart = payload.length - GCM_IV_BYTES - GCM_TAG_BYTES;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, payload.subarray(tagStart + GCM_TAG_BYTES));
    decipher.setAuthTag(payload.subarray(tagStart, tagStart + GCM_TAG_BYTES));
    return joined(decipher.update(payload.subarray(0, tagStart)), decipher.final());
  } catch {
    return undefined;
  }
}

/** Writes a cipher's output (what `update` and then `final` returned) into `out` at `offset`. */
function writeAll(out: Uint8Array, offset: number, head: Uint8Array, tail: Uint8Array): void {
  out.set(head, offset);
  out.set(tail, offset + head.length);
}

/** A cipher's whole output as a plain Uint8Array; AES in CTR and GCM modes returns it all from `update`. */
function joined(head: Buffer, tail: Buffer): Uint8Array {
  return asBytes(tail.length === 0 ? head : Buffer.concat([head, tail]));
}

/** The same bytes as a plain Uint8Array: callers compare and serialise bytes, and a Buffer is not equal to one. */
function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** A random secp256k1 secret key (32 random bytes are one with overwhelming probability; checked anyway). */
function randomEphemeralKey(): Uint8Array {
  for (;;) {
    const candidate = randomBytesFromPool(32);
    if (candidate.some((byte) => byte !== 0) && Buffer.compare(candidate, CURVE_ORDER) < 0) return candidate;
  }
}

const CURVE_ORDER = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
