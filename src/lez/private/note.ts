/**
 * Notes: a private account's new state, encrypted to its owner's viewing key (docs/lez.md §11.4; `nssa_core`
 * encryption, `EncryptedAccountData::compute_view_tag`):
 *
 * ```
 * view_tag  = SHA-256("/LEE/v0.3/ViewTag/" ‖ npk ‖ vpk)[0]           (no padding: the bare ASCII tag)
 * shared    = x(esk · vpk) = x(vsk · epk)                              (secp256k1 ECDH, the 32-byte x coordinate)
 * key       = SHA-256("NSSA/v0.2/KDF-SHA256/" ‖ shared ‖ commitment ‖ u32le(index))
 * cipher    = ChaCha20(key, nonce 0×12, counter 0) over identifier u128le ‖ account (plain form, account-bytes.ts)
 * ```
 *
 * `index` is the note's position among the transaction's encrypted post-states, and `commitment` the new
 * commitment at the same position. ChaCha20 has no tag: a wrong key decrypts to noise, so a reader keeps a note
 * only when it parses as an account AND recomputing its commitment gives the one on chain (receive.ts).
 */
import { chacha20 } from '@noble/ciphers/chacha.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshDecodeError, BorshReader, BorshWriter } from '../borsh.ts';
import { concatBytes } from '../bytes.ts';
import type { LezAccount } from '../sequencer-client.ts';
import { readAccountPlain, writeAccountPlain } from './account-bytes.ts';

const VIEW_TAG_PREFIX = new TextEncoder().encode('/LEE/v0.3/ViewTag/');
const KDF_PREFIX = new TextEncoder().encode('NSSA/v0.2/KDF-SHA256/');
const ZERO_NONCE = new Uint8Array(12);
const N = secp256k1.Point.Fn.ORDER;

export function viewTag(nullifierPublicKey: Uint8Array, viewingPublicKey: Uint8Array): number {
  return sha256(concatBytes(VIEW_TAG_PREFIX, nullifierPublicKey, viewingPublicKey))[0]!;
}

/** x(scalar · point): a 32-byte scalar (a viewing or ephemeral secret key) and a 33-byte compressed point. */
export function sharedSecret(secretScalar: Uint8Array, compressedPoint: Uint8Array): Uint8Array {
  const scalar = BigInt(`0x${Buffer.from(secretScalar).toString('hex')}`);
  if (scalar === 0n || scalar >= N) throw new RangeError('not a valid secp256k1 scalar');
  const point = secp256k1.Point.fromBytes(compressedPoint);
  return point.multiply(scalar).toBytes(true).slice(1);
}

export function noteKey(shared: Uint8Array, commitment: Uint8Array, index: number): Uint8Array {
  const w = new BorshWriter().raw(KDF_PREFIX).fixedBytes(shared, 32).fixedBytes(commitment, 32).u32(index);
  return sha256(w.finish());
}

export interface NotePlaintext {
  identifier: bigint;
  account: LezAccount;
}

export function encryptNote(
  note: NotePlaintext,
  shared: Uint8Array,
  commitment: Uint8Array,
  index: number,
): Uint8Array {
  const w = new BorshWriter().u128(note.identifier);
  writeAccountPlain(w, note.account);
  return chacha20(noteKey(shared, commitment, index), ZERO_NONCE, w.finish());
}

/** The note, or undefined when the bytes do not decrypt to one under this key (as LEZ's `decrypt`). */
export function decryptNote(
  ciphertext: Uint8Array,
  shared: Uint8Array,
  commitment: Uint8Array,
  index: number,
): NotePlaintext | undefined {
  const plain = chacha20(noteKey(shared, commitment, index), ZERO_NONCE, ciphertext);
  try {
    const r = new BorshReader(plain);
    const identifier = r.u128('identifier');
    return { identifier, account: readAccountPlain(r) };
  } catch (error) {
    if (error instanceof BorshDecodeError) return undefined;
    throw error;
  }
}
