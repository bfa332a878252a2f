/**
 * A shielded transfer (public → new private account) built as the official wallet builds
 * `wallet auth-transfer send --from Public/<id> --to-npk … --to-vpk … [--to-identifier n] --amount N`, except for the
 * proof: the devnet does not verify it (docs/lez.md §8.5), so a few marker bytes stand where the wallet puts its
 * risc0 receipt, which takes minutes of CPU to make. Everything a receiver reads is exact (docs/lez.md §11):
 *
 * - the recipient's account is `(npk, identifier)` (the wallet draws a random u128 when no identifier is given), its
 *   post-state owned by the transfer program, holding `amount`, at its initial private nonce;
 * - its commitment, the initialisation nullifier paired with the dummy commitment's hash;
 * - the note: esk = SHA-256(npk ‖ 16 random bytes) (`EphemeralKeyHolder::new`), epk = esk·G, the view tag, and the
 *   ciphertext of identifier ‖ account under x(esk·vpk), at output index 0;
 * - the sender's public post-state (its balance less `amount`), its nonce, and its BIP-340 signature over the
 *   prefixed message hash.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { privateAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { concatBytes } from '../../src/lez/bytes.ts';
import { xOnlyPublicKey, compressedPublicKey } from '../../src/lez/public-key.ts';
import {
  accountCommitment,
  DUMMY_COMMITMENT_HASH,
  initialPrivateNonce,
  initializationNullifier,
} from '../../src/lez/private/commitment.ts';
import { encryptNote, sharedSecret, viewTag } from '../../src/lez/private/note.ts';
import {
  encodePrivacyPreservingNssaTransaction,
  privacyPreservingMessageHash,
  privacyPreservingTransactionHashHex,
  type PrivacyPreservingMessage,
  type PrivacyPreservingTransaction,
} from '../../src/lez/private/transaction.ts';
import type { LezAccount } from '../../src/lez/sequencer-client.ts';
import { schnorrSign } from '../../src/lez/signing.ts';
import type { ProgramId } from '../../src/lez/transaction.ts';

/** Stands where a risc0 receipt goes; the devnet, like a RISC0_DEV_MODE=1 sequencer, does not check it. */
export const DEV_MODE_PROOF = new TextEncoder().encode('devnet: no risc0 receipt');

export interface ShieldedTransferInput {
  /** The paying public account's secret key, and its account as the sequencer has it now. */
  senderKey: Uint8Array;
  sender: LezAccount;
  /** The receiver's keys as the wallet's --to-npk and --to-vpk take them (32 and 33 bytes). */
  npk: Uint8Array;
  vpk: Uint8Array;
  amount: bigint;
  identifier?: bigint;
  /** The authenticated-transfer program, which takes ownership of the new private account. */
  transferProgram: ProgramId;
}

export interface ShieldedTransfer {
  transaction: PrivacyPreservingTransaction;
  /** borsh(NSSATransaction), what sendTransaction takes in base64. */
  bytes: Uint8Array;
  hash: string;
  identifier: bigint;
  recipient: LezAccount;
}

function randomU128(): bigint {
  return BigInt(`0x${randomBytes(16).toString('hex')}`);
}

export function shieldedTransfer(input: ShieldedTransferInput): ShieldedTransfer {
  if (input.sender.balance < input.amount) throw new RangeError('the sender cannot pay that much');
  const identifier = input.identifier ?? randomU128();
  const recipientId = privateAccountId(input.npk, identifier);
  const recipient: LezAccount = {
    programOwner: input.transferProgram,
    balance: input.amount,
    data: new Uint8Array(0),
    nonce: initialPrivateNonce(recipientId),
  };
  const commitment = accountCommitment(recipientId, recipient);
  const esk = sha256(concatBytes(input.npk, randomBytes(16)));
  const ciphertext = encryptNote({ identifier, account: recipient }, sharedSecret(esk, input.vpk), commitment, 0);
  const senderId = publicAccountId(xOnlyPublicKey(input.senderKey));
  const message: PrivacyPreservingMessage = {
    publicAccountIds: [senderId],
    nonces: [input.sender.nonce],
    publicPostStates: [{ ...input.sender, balance: input.sender.balance - input.amount }],
    encryptedPrivatePostStates: [
      { ciphertext, ephemeralPublicKey: compressedPublicKey(esk), viewTag: viewTag(input.npk, input.vpk) },
    ],
    newCommitments: [commitment],
    newNullifiers: [{ nullifier: initializationNullifier(recipientId), commitmentSetDigest: DUMMY_COMMITMENT_HASH }],
    blockValidityWindow: {},
    timestampValidityWindow: {},
  };
  const signature = schnorrSign(privacyPreservingMessageHash(message), input.senderKey);
  const transaction: PrivacyPreservingTransaction = {
    message,
    witnesses: [{ signature, publicKey: xOnlyPublicKey(input.senderKey) }],
    proof: DEV_MODE_PROOF,
  };
  return {
    transaction,
    bytes: encodePrivacyPreservingNssaTransaction(transaction),
    hash: privacyPreservingTransactionHashHex(transaction),
    identifier,
    recipient,
  };
}
