/**
 * Reading the notes a privacy-preserving transaction holds for one private receiver (docs/lez.md §11.4), as the
 * wallet's sync does: keep the encrypted post-states whose view tag is the receiver's, derive the shared secret
 * with the viewing secret key, decrypt against the commitment at the same index. Unlike the wallet, a note is kept
 * only when its account, under the id it names, commits to exactly that commitment: ChaCha20 alone would let noise
 * from a note for someone else pass as an account now and then, and the commitment binds the note to this
 * receiver's nullifier public key.
 */
import { privateAccountId } from '../account-id.ts';
import { bytesEqual, hexToBytes, toHex } from '../bytes.ts';
import type { LezAccount } from '../sequencer-client.ts';
import { nullifierPublicKey as derivePublicNullifierKey, viewingPublicKey } from '../private-keys.ts';
import { accountCommitment, initialPrivateNonce, initializationNullifier } from './commitment.ts';
import { decryptNote, sharedSecret, viewTag } from './note.ts';
import type { PrivacyPreservingTransaction } from './transaction.ts';

/** What a receiver needs: the two public keys payers send to, and the viewing secret key that reads the notes. */
export interface PrivateReceiveKeys {
  nullifierPublicKey: Uint8Array;
  /** 33 bytes, compressed. */
  viewingPublicKey: Uint8Array;
  viewingSecretKey: Uint8Array;
}

/** The keys from the two secrets the wallet derives (private-keys.ts): NSK gives the NPK, VSK the VPK. */
export function receiveKeys(nullifierSecretKey: Uint8Array, viewingSecretKey: Uint8Array): PrivateReceiveKeys {
  return {
    nullifierPublicKey: derivePublicNullifierKey(nullifierSecretKey),
    viewingPublicKey: viewingPublicKey(viewingSecretKey),
    viewingSecretKey,
  };
}

/** How a card and a payment reference write the keys: lowercase hex, as the wallet's `--to-npk`/`--to-vpk` take them. */
export interface PrivatePaymentKeys {
  npk: string;
  vpk: string;
}

export function paymentKeys(keys: PrivateReceiveKeys): PrivatePaymentKeys {
  return { npk: toHex(keys.nullifierPublicKey), vpk: toHex(keys.viewingPublicKey) };
}

/** The `to` of a payment reference that pays these keys privately (docs/payments.md §10). */
export function privatePayee(keys: PrivatePaymentKeys): string {
  return `private:${keys.npk}`;
}

export function parsePrivatePayee(to: string): Uint8Array | undefined {
  const match = /^private:([0-9a-f]{64})$/.exec(to);
  return match ? hexToBytes(match[1]!) : undefined;
}

export interface ReceivedNote {
  /** Position among the transaction's encrypted post-states (and new commitments). */
  index: number;
  identifier: bigint;
  accountId: Uint8Array;
  account: LezAccount;
  commitment: Uint8Array;
  /**
   * The transaction creates this account (its initial nonce and initialisation nullifier): its balance is what this
   * transaction paid. An update of an account already held carries the old balance plus whatever moved.
   */
  fresh: boolean;
}

export function notesFor(tx: PrivacyPreservingTransaction, keys: PrivateReceiveKeys): ReceivedNote[] {
  const tag = viewTag(keys.nullifierPublicKey, keys.viewingPublicKey);
  const nullifiers = new Set(tx.message.newNullifiers.map((n) => toHex(n.nullifier)));
  const notes: ReceivedNote[] = [];
  for (const [index, encrypted] of tx.message.encryptedPrivatePostStates.entries()) {
    const commitment = tx.message.newCommitments[index];
    if (encrypted.viewTag !== tag || !commitment) continue;
    let shared: Uint8Array;
    try {
      shared = sharedSecret(keys.viewingSecretKey, encrypted.ephemeralPublicKey);
    } catch {
      continue; // an epk that is not a curve point: LEZ's receiver would panic; this one skips the note
    }
    const note = decryptNote(encrypted.ciphertext, shared, commitment, index);
    if (!note) continue;
    const accountId = privateAccountId(keys.nullifierPublicKey, note.identifier);
    if (!bytesEqual(accountCommitment(accountId, note.account), commitment)) continue;
    const fresh =
      note.account.nonce === initialPrivateNonce(accountId) &&
      nullifiers.has(toHex(initializationNullifier(accountId)));
    notes.push({ index, identifier: note.identifier, accountId, account: note.account, commitment, fresh });
  }
  return notes;
}
