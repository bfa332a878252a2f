/**
 * pilot's ES256K: ECDSA on secp256k1 over SHA-256 of a JSON object's compact form with its members sorted at every
 * level (RFC 8785 for the ASCII text this project writes, jcs.ts), the signature DER-encoded in hex. pilot's signer
 * does not normalise S, so a signature with a high S is as valid as its low twin: verification allows both.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalize } from '../../jcs.ts';

export function signObject(value: unknown, secretKey: Uint8Array): string {
  return bytesToHex(secp256k1.sign(utf8ToBytes(canonicalize(value)), secretKey, { format: 'der', prehash: true }));
}

/** Whether `signatureHex` (DER) by `publicKeyHex` (SEC1, any form) signs `value`; false for anything unparsable. */
export function verifyObject(value: unknown, signatureHex: string, publicKeyHex: string): boolean {
  try {
    return secp256k1.verify(hexToBytes(signatureHex), utf8ToBytes(canonicalize(value)), hexToBytes(publicKeyHex), {
      format: 'der',
      prehash: true,
      lowS: false,
    });
  } catch {
    return false;
  }
}

/** The SEC1 uncompressed public key of `secretKey` in hex, as pilot writes its keys (`04…`, 130 characters). */
export function publicKeyHex(secretKey: Uint8Array): string {
  return bytesToHex(secp256k1.getPublicKey(secretKey, false));
}

/** Two spellings of one secp256k1 key (compressed or not, any case) compare equal; anything unparsable does not. */
export function sameKey(a: string, b: string): boolean {
  try {
    return secp256k1.Point.fromHex(a.toLowerCase()).equals(secp256k1.Point.fromHex(b.toLowerCase()));
  } catch {
    return false;
  }
}
