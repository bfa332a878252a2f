/**
 * secp256k1 keys as LEZ uses them for public accounts: a 32-byte secret scalar, and the BIP-340 x-only public key
 * (the x coordinate of the point whose y is even). LEZ refuses to deserialize a public key that is not the x of
 * a curve point (`nssa/src/signature/public_key.rs`), so decoders here check that too.
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { concatBytes } from './bytes.ts';

/** True for a valid secret key: 32 bytes, 0 < d < n. */
export function isValidSecretKey(secretKey: Uint8Array): boolean {
  return secretKey.byteLength === 32 && secp256k1.utils.isValidSecretKey(secretKey);
}

/** The x-only public key of a secret key. An invalid secret key is a programming or config error. */
export function xOnlyPublicKey(secretKey: Uint8Array): Uint8Array {
  if (!isValidSecretKey(secretKey)) throw new RangeError('invalid secp256k1 secret key');
  return schnorr.getPublicKey(secretKey);
}

/** The 33-byte SEC1 compressed public key (BIP-32's non-hardened derivation hashes this form). */
export function compressedPublicKey(secretKey: Uint8Array): Uint8Array {
  if (!isValidSecretKey(secretKey)) throw new RangeError('invalid secp256k1 secret key');
  return secp256k1.getPublicKey(secretKey, true);
}

/** True when 32 bytes are the x coordinate of a point on secp256k1 (BIP-340 `lift_x` succeeds). */
export function isValidXOnlyPublicKey(publicKey: Uint8Array): boolean {
  if (publicKey.byteLength !== 32) return false;
  try {
    secp256k1.Point.fromBytes(concatBytes(Uint8Array.of(0x02), publicKey)).assertValidity();
    return true;
  } catch {
    return false;
  }
}
