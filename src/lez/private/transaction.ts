/**
 * Privacy-preserving transactions, byte-exact (docs/lez.md §11.1; `nssa/src/privacy_preserving_transaction/*`):
 * shielded (public → private), private, and deshielded transfers all travel as variant 1 of the transaction enum.
 *
 * ```
 * Message   = public_account_ids Vec<[u8; 32]> ‖ nonces Vec<u128> ‖ public_post_states Vec<Account (borsh)>
 *             ‖ encrypted_private_post_states Vec<EncryptedAccountData> ‖ new_commitments Vec<[u8; 32]>
 *             ‖ new_nullifiers Vec<([u8; 32] nullifier, [u8; 32] commitment-set digest)>
 *             ‖ block_validity_window (Option<u64>, Option<u64>) ‖ timestamp_validity_window (Option<u64>, Option<u64>)
 * EncryptedAccountData = ciphertext Vec<u8> ‖ epk Vec<u8> (a 33-byte compressed point) ‖ view_tag u8
 * WitnessSet = Vec<(signature [u8; 64], x-only public key [u8; 32])> ‖ proof Vec<u8> (borsh of the risc0 receipt)
 * PrivacyPreservingTransaction = Message ‖ WitnessSet
 * tx hash      = SHA-256(borsh(PrivacyPreservingTransaction))                 (without the enum tag, as public ones)
 * message hash = SHA-256(pad32("/LEE/v0.3/Message/Privacy/") ‖ borsh(Message)), what each witness signs (BIP-340)
 * ```
 *
 * This project reads these transactions and, for tests and the devnet, writes them; it never proves one.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshDecodeError, BorshReader, BorshWriter } from '../borsh.ts';
import { concatBytes, domainPrefix, toHex } from '../bytes.ts';
import type { LezAccount } from '../sequencer-client.ts';
import { schnorrVerify } from '../signing.ts';
import { readWitnesses, writeWitnesses, type DecodeResult, type Witness } from '../transaction.ts';
import { MIN_ACCOUNT_BORSH_BYTES, readAccountBorsh, writeAccountBorsh } from './account-bytes.ts';

const MESSAGE_PREFIX = domainPrefix('/LEE/v0.3/Message/Privacy/');

/** A validity window: `from` inclusive, `to` exclusive; undefined is unbounded. */
export interface ValidityWindow {
  from?: bigint;
  to?: bigint;
}

export interface EncryptedPostState {
  ciphertext: Uint8Array;
  /** The sender's ephemeral public key, 33 bytes compressed. */
  ephemeralPublicKey: Uint8Array;
  viewTag: number;
}

export interface PrivacyPreservingMessage {
  publicAccountIds: readonly Uint8Array[];
  /** One per signature, in witness order. */
  nonces: readonly bigint[];
  /** One per public account id, in the same order. */
  publicPostStates: readonly LezAccount[];
  /** One per new commitment, in the same order (the note at index i encrypts the account committed at i). */
  encryptedPrivatePostStates: readonly EncryptedPostState[];
  newCommitments: readonly Uint8Array[];
  newNullifiers: readonly { nullifier: Uint8Array; commitmentSetDigest: Uint8Array }[];
  blockValidityWindow: ValidityWindow;
  timestampValidityWindow: ValidityWindow;
}

export interface PrivacyPreservingTransaction {
  message: PrivacyPreservingMessage;
  witnesses: readonly Witness[];
  /** borsh of the risc0 receipt; opaque here. */
  proof: Uint8Array;
}

/** Tells the two kinds of transaction a devnet queues apart. */
export function isPrivacyPreserving(tx: { witnesses: readonly Witness[] }): tx is PrivacyPreservingTransaction {
  return 'proof' in tx;
}

/** The tag of the variant in the transaction enum. */
export const PRIVACY_PRESERVING_TAG = 1;

const EPK_BYTES = 33;

// ---- encoding -------------------------------------------------------------------------------------------------

function writeWindow(w: BorshWriter, window: ValidityWindow): void {
  w.option(window.from, (w, v) => w.u64(v)).option(window.to, (w, v) => w.u64(v));
}

function writeMessage(w: BorshWriter, m: PrivacyPreservingMessage): void {
  w.vec(m.publicAccountIds, (w, id) => w.fixedBytes(id, 32));
  w.vec(m.nonces, (w, nonce) => w.u128(nonce));
  w.vec(m.publicPostStates, writeAccountBorsh);
  w.vec(m.encryptedPrivatePostStates, (w, note) => {
    w.bytes(note.ciphertext);
    if (note.ephemeralPublicKey.byteLength !== EPK_BYTES) throw new RangeError('an epk is 33 bytes');
    w.bytes(note.ephemeralPublicKey);
    w.u8(note.viewTag);
  });
  w.vec(m.newCommitments, (w, c) => w.fixedBytes(c, 32));
  w.vec(m.newNullifiers, (w, n) => w.fixedBytes(n.nullifier, 32).fixedBytes(n.commitmentSetDigest, 32));
  writeWindow(w, m.blockValidityWindow);
  writeWindow(w, m.timestampValidityWindow);
}

export function encodePrivacyPreservingMessage(message: PrivacyPreservingMessage): Uint8Array {
  const w = new BorshWriter();
  writeMessage(w, message);
  return w.finish();
}

function writeTransaction(w: BorshWriter, tx: PrivacyPreservingTransaction): void {
  writeMessage(w, tx.message);
  writeWitnesses(w, tx.witnesses);
  w.bytes(tx.proof);
}

export function encodePrivacyPreservingTransaction(tx: PrivacyPreservingTransaction): Uint8Array {
  const w = new BorshWriter();
  writeTransaction(w, tx);
  return w.finish();
}

/** borsh(NSSATransaction) of the variant: what sendTransaction takes (in base64) and blocks hold. */
export function encodePrivacyPreservingNssaTransaction(tx: PrivacyPreservingTransaction): Uint8Array {
  const w = new BorshWriter().enumTag(PRIVACY_PRESERVING_TAG);
  writeTransaction(w, tx);
  return w.finish();
}

export function privacyPreservingTransactionHashHex(tx: PrivacyPreservingTransaction): string {
  return toHex(sha256(encodePrivacyPreservingTransaction(tx)));
}

/** What every witness signs. */
export function privacyPreservingMessageHash(message: PrivacyPreservingMessage): Uint8Array {
  return sha256(concatBytes(MESSAGE_PREFIX, encodePrivacyPreservingMessage(message)));
}

export function verifyPrivacyPreservingSignatures(tx: PrivacyPreservingTransaction): boolean {
  const hash = privacyPreservingMessageHash(tx.message);
  return tx.witnesses.every((witness) => schnorrVerify(witness.signature, hash, witness.publicKey));
}

// ---- decoding -------------------------------------------------------------------------------------------------

function readWindow(r: BorshReader, what: string): ValidityWindow {
  const from = r.option((r) => r.u64(`${what}.from`), `${what}.from`);
  const to = r.option((r) => r.u64(`${what}.to`), `${what}.to`);
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function readMessage(r: BorshReader): PrivacyPreservingMessage {
  const publicAccountIds = r.vec(32, (r) => r.fixedBytes(32, 'account id'), 'public_account_ids');
  const nonces = r.vec(16, (r) => r.u128('nonce'), 'nonces');
  const publicPostStates = r.vec(MIN_ACCOUNT_BORSH_BYTES, readAccountBorsh, 'public_post_states');
  const encryptedPrivatePostStates = r.vec(
    4 + 4 + EPK_BYTES + 1,
    (r, i) => {
      const ciphertext = r.bytes('ciphertext');
      const ephemeralPublicKey = r.bytes('epk');
      // LEZ's Secp256k1Point is a Vec<u8> that must hold 33 bytes; anything else panics where it is used.
      if (ephemeralPublicKey.byteLength !== EPK_BYTES)
        throw new BorshDecodeError(`encrypted post-state ${i}: epk of ${ephemeralPublicKey.byteLength} bytes, not 33`);
      return { ciphertext, ephemeralPublicKey, viewTag: r.u8('view_tag') };
    },
    'encrypted_private_post_states',
  );
  const newCommitments = r.vec(32, (r) => r.fixedBytes(32, 'commitment'), 'new_commitments');
  const newNullifiers = r.vec(
    64,
    (r) => ({ nullifier: r.fixedBytes(32, 'nullifier'), commitmentSetDigest: r.fixedBytes(32, 'digest') }),
    'new_nullifiers',
  );
  return {
    publicAccountIds,
    nonces,
    publicPostStates,
    encryptedPrivatePostStates,
    newCommitments,
    newNullifiers,
    blockValidityWindow: readWindow(r, 'block_validity_window'),
    timestampValidityWindow: readWindow(r, 'timestamp_validity_window'),
  };
}

/** Reads one transaction (after its enum tag) from a longer buffer, e.g. a block; throws BorshDecodeError. */
export function readPrivacyPreservingTransaction(r: BorshReader): PrivacyPreservingTransaction {
  const message = readMessage(r);
  const witnesses = readWitnesses(r);
  return { message, witnesses, proof: r.bytes('proof') };
}

/** borsh(PrivacyPreservingTransaction), without the enum tag (e.g. the body `decodeNssaTransaction` leaves). */
export function decodePrivacyPreservingTransaction(bytes: Uint8Array): DecodeResult<PrivacyPreservingTransaction> {
  try {
    const r = new BorshReader(bytes);
    const value = readPrivacyPreservingTransaction(r);
    r.end('privacy-preserving transaction');
    return { ok: true, value };
  } catch (error) {
    if (error instanceof BorshDecodeError)
      return { ok: false, reason: `privacy-preserving transaction: ${error.message}` };
    throw error;
  }
}
