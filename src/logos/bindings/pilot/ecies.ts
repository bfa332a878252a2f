/**
 * pilot's own ECIES, inside the Waku payload (no Waku-level encryption): a fresh secp256k1 key per message, ECDH
 * with the recipient's key, the shared point's 32-byte x-coordinate hashed with SHA-256 as an AES-256-GCM key,
 * a 12-byte random IV, no associated data, a 16-byte tag. On the wire: ASCII
 * `hex(ephemeral public key, uncompressed):hex(ciphertext):hex(iv):hex(tag)`, lowercase.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

const TAG_BYTES = 16;
const IV_BYTES = 12;

function sharedKey(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return sha256(secp256k1.getSharedSecret(secretKey, publicKey, true).slice(1));
}

/** Encrypts `plaintext` to `recipient` (its SEC1 public key in hex, any form). */
export function encrypt(recipient: string, plaintext: Uint8Array): string {
  const ephemeral = secp256k1.utils.randomSecretKey();
  const iv = randomBytes(IV_BYTES);
  const sealed = gcm(sharedKey(ephemeral, hexToBytes(recipient)), iv).encrypt(plaintext);
  const ciphertext = sealed.subarray(0, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  return [secp256k1.getPublicKey(ephemeral, false), ciphertext, iv, tag].map((part) => bytesToHex(part)).join(':');
}

const WIRE = /^([0-9a-fA-F]+):([0-9a-fA-F]*):([0-9a-fA-F]{24}):([0-9a-fA-F]{32})$/;

/** The plaintext, or undefined for anything that is not this format or not for `secretKey` (the tag fails). */
export function decrypt(secretKey: Uint8Array, wire: string): Uint8Array | undefined {
  const match = WIRE.exec(wire.trim());
  if (!match) return undefined;
  try {
    const [ephemeral, ciphertext, iv, tag] = match.slice(1).map((hex) => hexToBytes(hex.toLowerCase()));
    const sealed = new Uint8Array(ciphertext!.length + TAG_BYTES);
    sealed.set(ciphertext!);
    sealed.set(tag!, ciphertext!.length);
    return gcm(sharedKey(secretKey, ephemeral!), iv!).decrypt(sealed);
  } catch {
    return undefined; // not a point, odd hex, or the tag does not match: not ours to read
  }
}
