/**
 * BIP-340 Schnorr signatures over public LEZ messages, in the two forms LEZ has used (docs/lez.md §3):
 *
 * - `prehash-v0.3` (`main`, after "Refactor signatures", 2026-04-30): the signer signs the 32-byte
 *   `SHA-256("/LEE/v0.3/Message/Public/" zero-padded to 32 ‖ borsh(Message))`, as k256's
 *   `sign_prehash_with_aux_rand`, which is plain BIP-340 over that 32-byte message.
 * - `raw-borsh` (`v0.1` … `v0.2.0-rc3`): BIP-340 directly over the variable-length borsh(Message), no prefix
 *   (k256's `sign_raw`).
 *
 * A sequencer rejects the wrong mode at once with -32602 InvalidSignature, so the mode is a configuration
 * setting, not something to guess per transaction. noble's `schnorr.sign` accepts messages of any length, so
 * both modes are exact BIP-340.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from 'node:crypto';
import { concatBytes, domainPrefix } from './bytes.ts';
import { isValidXOnlyPublicKey, xOnlyPublicKey } from './public-key.ts';
import { encodePublicMessage, type PublicMessage, type PublicTransaction, type Witness } from './transaction.ts';

export const SIGNING_MODES = ['prehash-v0.3', 'raw-borsh'] as const;
export type SigningMode = (typeof SIGNING_MODES)[number];

const PUBLIC_MESSAGE_PREFIX = domainPrefix('/LEE/v0.3/Message/Public/');

/** `Message::hash_message()` on `main`: SHA-256(prefix ‖ borsh(Message)). */
export function publicMessageHash(message: PublicMessage): Uint8Array {
  return sha256(concatBytes(PUBLIC_MESSAGE_PREFIX, encodePublicMessage(message)));
}

/** The exact bytes BIP-340 signs for this message under `mode`. */
export function signingPayload(message: PublicMessage, mode: SigningMode): Uint8Array {
  return mode === 'prehash-v0.3' ? publicMessageHash(message) : encodePublicMessage(message);
}

/** Plain BIP-340 over `payload`. `auxRand` (32 bytes) is fresh randomness unless a test pins it. */
export function schnorrSign(payload: Uint8Array, secretKey: Uint8Array, auxRand?: Uint8Array): Uint8Array {
  const aux = auxRand ?? randomBytes(32);
  if (aux.byteLength !== 32) throw new RangeError('auxRand must be 32 bytes');
  xOnlyPublicKey(secretKey); // throws a clear RangeError on an invalid key
  return schnorr.sign(payload, secretKey, aux);
}

/** Plain BIP-340 verification; false (never an exception) for malformed signatures or keys. */
export function schnorrVerify(signature: Uint8Array, payload: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.byteLength !== 64 || !isValidXOnlyPublicKey(publicKey)) return false;
  return schnorr.verify(signature, payload, publicKey);
}

/** One signer's witness for a message: its signature and x-only public key. */
export function signPublicMessage(
  message: PublicMessage,
  secretKey: Uint8Array,
  mode: SigningMode,
  auxRand?: Uint8Array,
): Witness {
  return {
    signature: schnorrSign(signingPayload(message, mode), secretKey, auxRand),
    publicKey: xOnlyPublicKey(secretKey),
  };
}

export function verifyWitness(message: PublicMessage, witness: Witness, mode: SigningMode): boolean {
  return schnorrVerify(witness.signature, signingPayload(message, mode), witness.publicKey);
}

/**
 * The sequencer's stateless signature check (`WitnessSet::is_valid_for`): every witness verifies. Like LEZ, an
 * empty witness set passes here; "one nonce per signature" and "the sender signed" are stateful rules checked
 * at execution, outside this function.
 */
export function verifyPublicTransactionSignatures(tx: PublicTransaction, mode: SigningMode): boolean {
  if (tx.witnesses.length === 0) return true;
  const payload = signingPayload(tx.message, mode);
  return tx.witnesses.every((w) => schnorrVerify(w.signature, payload, w.publicKey));
}
