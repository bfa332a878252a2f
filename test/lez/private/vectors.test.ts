/**
 * docs/lez.md §11: private accounts, notes and privacy-preserving transactions against LEZ's own unit tests
 * (`nssa_core` encoding.rs, commitment.rs, nullifier.rs; `nssa` privacy_preserving_transaction/message.rs), and the
 * note cipher against Node's own ChaCha20 (OpenSSL), a second implementation of RFC 8439.
 */
import { createCipheriv } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { privateAccountId } from '../../../src/lez/account-id.ts';
import { BorshReader, BorshWriter } from '../../../src/lez/borsh.ts';
import { concatBytes, domainPrefix, toHex } from '../../../src/lez/bytes.ts';
import { nullifierPublicKey } from '../../../src/lez/private-keys.ts';
import { readAccountPlain, writeAccountPlain } from '../../../src/lez/private/account-bytes.ts';
import {
  accountCommitment,
  DUMMY_COMMITMENT,
  DUMMY_COMMITMENT_HASH,
  initializationNullifier,
  updateNullifier,
} from '../../../src/lez/private/commitment.ts';
import { decryptNote, encryptNote, noteKey, sharedSecret, viewTag } from '../../../src/lez/private/note.ts';
import {
  decodePrivacyPreservingTransaction,
  encodePrivacyPreservingMessage,
  encodePrivacyPreservingTransaction,
  privacyPreservingMessageHash,
  type PrivacyPreservingMessage,
} from '../../../src/lez/private/transaction.ts';
import type { LezAccount } from '../../../src/lez/sequencer-client.ts';

const bytes = (values: number[]) => Uint8Array.from(values);
const filled = (value: number, length = 32) => new Uint8Array(length).fill(value);
const DEFAULT_ACCOUNT: LezAccount = {
  programOwner: [0, 0, 0, 0, 0, 0, 0, 0],
  balance: 0n,
  data: new Uint8Array(0),
  nonce: 0n,
};
const UNBOUNDED = {};

describe('private accounts (nssa_core encoding.rs, commitment.rs, nullifier.rs)', () => {
  it('writes an account as Account::to_bytes does, and reads it back (enconding, account_to_bytes_roundtrip)', () => {
    const account: LezAccount = {
      programOwner: [1, 2, 3, 4, 5, 6, 7, 8],
      balance: 123_456_789_012_345_678_901_234_567_890_123_456n,
      nonce: 42n,
      data: new TextEncoder().encode('hola mundo'),
    };
    const w = new BorshWriter();
    writeAccountPlain(w, account);
    const encoded = w.finish();
    expect([...encoded]).toEqual([
      1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 192, 186, 220,
      114, 113, 65, 236, 234, 222, 15, 215, 191, 227, 198, 23, 0, 42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10,
      0, 0, 0, 104, 111, 108, 97, 32, 109, 117, 110, 100, 111,
    ]);
    expect(readAccountPlain(new BorshReader(encoded))).toEqual(account);
  });

  it('commits to the default account at the zero id as DUMMY_COMMITMENT, whose hash is DUMMY_COMMITMENT_HASH', () => {
    expect([...DUMMY_COMMITMENT]).toEqual([
      55, 228, 215, 207, 112, 221, 239, 49, 238, 79, 71, 135, 155, 15, 184, 45, 104, 74, 51, 211, 238, 42, 160, 243, 15,
      124, 253, 62, 3, 229, 90, 27,
    ]);
    expect([...DUMMY_COMMITMENT_HASH]).toEqual([
      250, 237, 192, 113, 155, 101, 119, 30, 235, 183, 20, 84, 26, 32, 196, 229, 154, 74, 254, 249, 129, 241, 118, 39,
      41, 253, 141, 171, 184, 71, 8, 41,
    ]);
  });

  it('derives nullifiers (constructor_for_account_update, constructor_for_account_initialization)', () => {
    const commitment = bytes([...Array(32).keys()]);
    expect([...updateNullifier(commitment, filled(0x42))]).toEqual([
      70, 162, 122, 15, 33, 237, 244, 216, 89, 223, 90, 50, 94, 184, 210, 144, 174, 64, 189, 254, 62, 255, 5, 1, 139,
      227, 194, 185, 16, 30, 55, 48,
    ]);
    const accountId = bytes([
      112, 188, 193, 129, 150, 55, 228, 67, 88, 168, 29, 151, 5, 92, 23, 190, 17, 162, 164, 255, 29, 105, 42, 186, 43,
      11, 157, 168, 132, 225, 17, 163,
    ]);
    expect([...initializationNullifier(accountId)]).toEqual([
      149, 59, 95, 181, 2, 194, 20, 143, 72, 233, 104, 243, 59, 70, 67, 243, 110, 77, 109, 132, 139, 111, 51, 125, 128,
      92, 107, 46, 252, 4, 20, 149,
    ]);
  });

  it('derives private account ids by identifier (account_id_from_nullifier_public_key*)', () => {
    const npk = nullifierPublicKey(
      bytes([
        57, 5, 64, 115, 153, 56, 184, 51, 207, 238, 99, 165, 147, 214, 213, 151, 30, 251, 30, 196, 134, 22, 224, 211,
        237, 120, 136, 225, 188, 220, 249, 28,
      ]),
    );
    expect([...npk]).toEqual([
      78, 20, 20, 5, 177, 198, 233, 100, 175, 134, 174, 200, 24, 205, 68, 215, 130, 74, 35, 54, 154, 184, 219, 42, 168,
      106, 126, 147, 133, 244, 18, 218,
    ]);
    expect([...privateAccountId(npk, 1n)]).toEqual([
      203, 201, 109, 245, 40, 54, 195, 12, 55, 33, 0, 86, 245, 65, 70, 156, 24, 249, 26, 95, 56, 247, 99, 121, 165, 182,
      234, 255, 19, 127, 191, 72,
    ]);
    expect([...privateAccountId(npk, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210n)]).toEqual([
      178, 16, 226, 206, 217, 38, 38, 45, 155, 240, 226, 253, 168, 87, 146, 70, 72, 32, 174, 19, 245, 25, 214, 162, 209,
      135, 252, 82, 27, 2, 174, 196,
    ]);
  });
});

describe('the privacy-preserving message (message.rs hash_privacy_pinned)', () => {
  const message: PrivacyPreservingMessage = {
    publicAccountIds: [filled(42)],
    nonces: [5n],
    publicPostStates: [],
    encryptedPrivatePostStates: [],
    newCommitments: [],
    newNullifiers: [],
    blockValidityWindow: UNBOUNDED,
    timestampValidityWindow: UNBOUNDED,
  };
  const expected = bytes([
    1,
    0,
    0,
    0,
    ...filled(42),
    1,
    0,
    0,
    0,
    5,
    ...new Array<number>(15).fill(0),
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);

  it('encodes in the pinned field order', () => {
    expect(toHex(encodePrivacyPreservingMessage(message))).toBe(toHex(expected));
  });

  it('is signed as SHA-256 of its domain prefix and its bytes', () => {
    const hash = privacyPreservingMessageHash(message);
    expect(toHex(hash)).toBe(toHex(sha256(concatBytes(domainPrefix('/LEE/v0.3/Message/Privacy/'), expected))));
    expect(toHex(hash)).toBe('e5609435d707d935db05be63a2eaa2f7573422041c033e5926e8339014d5aa1e');
  });
});

describe('notes (encryption/mod.rs, message.rs encrypted_account_data_constructor)', () => {
  // The test's inputs: npk from nsk [1; 32], vpk = [2; 32]·G, the default account at (npk, 0), esk [3; 32], index 2.
  const npk = nullifierPublicKey(filled(1));
  const vpk = secp256k1.Point.BASE.multiply(BigInt(`0x${'02'.repeat(32)}`)).toBytes(true);
  const accountId = privateAccountId(npk, 0n);
  const commitment = accountCommitment(accountId, DEFAULT_ACCOUNT);
  const esk = filled(3);
  const epk = secp256k1.Point.BASE.multiply(BigInt(`0x${'03'.repeat(32)}`)).toBytes(true);

  it('agrees on the shared secret from both sides: x(esk·vpk) = x(vsk·epk)', () => {
    expect(toHex(sharedSecret(esk, vpk))).toBe(toHex(sharedSecret(filled(2), epk)));
  });

  it('computes the view tag as the first byte of SHA-256("/LEE/v0.3/ViewTag/" ‖ npk ‖ vpk)', () => {
    const tag = viewTag(npk, vpk);
    expect(tag).toBe(sha256(concatBytes(new TextEncoder().encode('/LEE/v0.3/ViewTag/'), npk, vpk))[0]);
    expect(tag).toBe(VECTOR.viewTag);
  });

  it('encrypts identifier ‖ account with ChaCha20 (zero nonce, counter 0) under the KDF key, as OpenSSL does', () => {
    const shared = sharedSecret(esk, vpk);
    const ciphertext = encryptNote({ identifier: 0n, account: DEFAULT_ACCOUNT }, shared, commitment, 2);
    const w = new BorshWriter().u128(0n);
    writeAccountPlain(w, DEFAULT_ACCOUNT);
    const openssl = createCipheriv('chacha20', noteKey(shared, commitment, 2), new Uint8Array(16));
    expect(toHex(ciphertext)).toBe(toHex(new Uint8Array(openssl.update(w.finish()))));
    expect({ shared: toHex(shared), commitment: toHex(commitment), ciphertext: toHex(ciphertext) }).toEqual({
      shared: VECTOR.shared,
      commitment: VECTOR.commitment,
      ciphertext: VECTOR.ciphertext,
    });
    expect(decryptNote(ciphertext, sharedSecret(filled(2), epk), commitment, 2)).toEqual({
      identifier: 0n,
      account: DEFAULT_ACCOUNT,
    });
  });

  it('does not decrypt under another index (another key stream)', () => {
    const ciphertext = encryptNote(
      { identifier: 7n, account: { ...DEFAULT_ACCOUNT, balance: 10n } },
      sharedSecret(esk, vpk),
      commitment,
      0,
    );
    expect(decryptNote(ciphertext, sharedSecret(esk, vpk), commitment, 1)?.identifier).not.toBe(7n);
  });
});

describe('privacy-preserving transactions', () => {
  it('round-trip through borsh, and refuse trailing bytes and an epk that is not 33 bytes', () => {
    const tx = {
      message: {
        publicAccountIds: [filled(1)],
        nonces: [3n],
        publicPostStates: [{ ...DEFAULT_ACCOUNT, balance: 90n, data: bytes([1, 2]) }],
        encryptedPrivatePostStates: [{ ciphertext: bytes([9, 9, 9]), ephemeralPublicKey: filled(2, 33), viewTag: 200 }],
        newCommitments: [filled(4)],
        newNullifiers: [{ nullifier: filled(5), commitmentSetDigest: DUMMY_COMMITMENT_HASH }],
        blockValidityWindow: { from: 3n },
        timestampValidityWindow: { to: 1_000n },
      },
      witnesses: [],
      proof: bytes([1, 2, 3, 4, 5]),
    };
    const encoded = encodePrivacyPreservingTransaction(tx);
    expect(decodePrivacyPreservingTransaction(encoded)).toEqual({ ok: true, value: tx });
    expect(decodePrivacyPreservingTransaction(concatBytes(encoded, bytes([0])))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/trailing/),
    });
    const shortEpk = {
      ...tx,
      message: {
        ...tx.message,
        encryptedPrivatePostStates: [
          { ...tx.message.encryptedPrivatePostStates[0]!, ephemeralPublicKey: filled(2, 32) },
        ],
      },
    };
    expect(() => encodePrivacyPreservingTransaction(shortEpk)).toThrow(/33 bytes/);
  });
});

/** Produced by these tests from the inputs of encrypted_account_data_constructor; docs/lez.md §11.5 shows them. */
const VECTOR = {
  viewTag: 183,
  shared: 'aca78f27d5f23b2e7254a0bb8df128e7c0f922d47ccac72814501e07b7291886',
  commitment: 'f7bbc16192943c14fde00b538bdc3b1c1a208654c6db9fa73b81576cd9595691',
  ciphertext:
    'e5b427a88d240d562da015882a5fc09324c24758242f5501fd18d7669e3f0b6e0501b75eb17cd51af91adea40ab4b805d226d66875645d0322a7cc0972638d549b9966b36faf1817f311fa8161424e6c4aca58c6',
};
