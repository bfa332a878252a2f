import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { formatAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { concatBytes, hexToBytes, toHex } from '../../src/lez/bytes.ts';
import { buildAccountInitialisation, buildNativeTransfer, readNativeTransfer } from '../../src/lez/native-transfer.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { publicMessageHash, verifyPublicTransactionSignatures } from '../../src/lez/signing.ts';
import {
  decodeBase64NssaTransaction,
  decodeNssaTransaction,
  decodePublicMessage,
  decodePublicTransaction,
  encodeNssaTransaction,
  encodePublicMessage,
  encodePublicTransaction,
  encodeWitnessSet,
  nativeTransferAmount,
  nativeTransferInstruction,
  nssaTransactionToBase64,
  publicTransactionHash,
  publicTransactionHashHex,
  type NssaTransaction,
  type PublicMessage,
  type PublicTransaction,
} from '../../src/lez/transaction.ts';

const fill = (n: number, length = 32) => new Uint8Array(length).fill(n);

// The genesis keys of LEZ's debug configs (docs/lez.md §2; full values from wallet/configs/debug/wallet_config.json).
const GENESIS_1 = hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32);
const GENESIS_2_ACCOUNT = '2RHZhw9h534Zr3eq2RGhQete2Hh667foECzXPmSkGni2';
const AUTH_TRANSFER: readonly number[] = [0xdeadbeef, 1, 2, 3, 4, 5, 6, 0xffffffff];

describe('public message layout (docs/lez.md §3, the repo test `hash_public_pinned`)', () => {
  // program_id [1u32; 8], account_ids [[42; 32]], nonces [5], instruction_data [].
  const pinned: PublicMessage = {
    programId: [1, 1, 1, 1, 1, 1, 1, 1],
    accountIds: [fill(42)],
    nonces: [5n],
    instructionData: [],
  };
  const expected = Uint8Array.from([
    ...[1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], // program_id: 8 × u32 LE
    ...[1, 0, 0, 0], // account_ids: u32 count
    ...fill(42), // AccountId([42; 32])
    ...[1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], // nonces: count, then Nonce(5) as u128 LE
    ...[0, 0, 0, 0], // instruction_data: u32 count 0
  ]);

  it('encodes byte for byte', () => {
    expect(toHex(encodePublicMessage(pinned))).toBe(toHex(expected));
  });

  it('hashes as SHA-256 of the 32-byte padded prefix and those bytes', () => {
    const prefix = Uint8Array.from([...new TextEncoder().encode('/LEE/v0.3/Message/Public/'), 0, 0, 0, 0, 0, 0, 0]);
    expect(prefix.byteLength).toBe(32);
    expect(toHex(publicMessageHash(pinned))).toBe(toHex(sha256(concatBytes(prefix, expected))));
  });

  it('decodes back to the same message', () => {
    expect(decodePublicMessage(expected)).toEqual({ ok: true, value: pinned });
  });
});

describe('native transfer instruction (docs/lez.md §3: risc0 serde u128 = 4 LE words)', () => {
  it('is 04 00 00 00 ‖ amount as 16 little-endian bytes in borsh', () => {
    const amount = 0x0102030405060708090a0b0c0d0e0f10n;
    const words = nativeTransferInstruction(amount);
    expect(words).toEqual([0x0d0e0f10, 0x090a0b0c, 0x05060708, 0x01020304]);
    const message: PublicMessage = {
      programId: [0, 0, 0, 0, 0, 0, 0, 0],
      accountIds: [],
      nonces: [],
      instructionData: words,
    };
    const tail = encodePublicMessage(message).slice(32 + 4 + 4);
    expect(toHex(tail)).toBe('04000000' + '100f0e0d0c0b0a090807060504030201');
  });

  it('reads the amount back, and nothing that is not one u128', () => {
    for (const amount of [0n, 1n, 150n, 2n ** 64n + 7n, 2n ** 128n - 1n]) {
      expect(nativeTransferAmount(nativeTransferInstruction(amount))).toBe(amount);
    }
    expect(nativeTransferAmount([1, 2, 3])).toBeUndefined();
    expect(nativeTransferAmount([1, 2, 3, 2 ** 32])).toBeUndefined();
    expect(() => nativeTransferInstruction(-1n)).toThrow(RangeError);
    expect(() => nativeTransferInstruction(2n ** 128n)).toThrow(RangeError);
  });
});

describe('witness set, transaction and NSSATransaction wrapping (docs/lez.md §3)', () => {
  const message: PublicMessage = {
    programId: AUTH_TRANSFER,
    accountIds: [fill(1), fill(2)],
    nonces: [0n, 7n],
    instructionData: nativeTransferInstruction(1337n),
  };
  const witnesses = [
    { signature: fill(0xaa, 64), publicKey: xOnlyPublicKey(fill(1)) },
    { signature: fill(0xbb, 64), publicKey: xOnlyPublicKey(fill(2)) },
  ];
  const tx: PublicTransaction = { message, witnesses };

  it('writes the witness set as u32 count ‖ (sig64 ‖ xonly32)*', () => {
    expect(toHex(encodeWitnessSet(witnesses))).toBe(
      '02000000' + 'aa'.repeat(64) + toHex(witnesses[0]!.publicKey) + 'bb'.repeat(64) + toHex(witnesses[1]!.publicKey),
    );
  });

  it('writes PublicTransaction = Message ‖ WitnessSet, and NSSATransaction = 0x00 ‖ that', () => {
    const body = encodePublicTransaction(tx);
    expect(toHex(body)).toBe(toHex(concatBytes(encodePublicMessage(message), encodeWitnessSet(witnesses))));
    expect(toHex(encodeNssaTransaction({ kind: 'public', transaction: tx }))).toBe('00' + toHex(body));
  });

  it('hashes the transaction without the enum tag, as the sequencer does', () => {
    const body = encodePublicTransaction(tx);
    expect(toHex(publicTransactionHash(tx))).toBe(toHex(sha256(body)));
    expect(publicTransactionHashHex(tx)).toMatch(/^[0-9a-f]{64}$/);
    expect(publicTransactionHashHex(tx)).not.toBe(
      toHex(sha256(encodeNssaTransaction({ kind: 'public', transaction: tx }))),
    );
  });

  it('base64 for sendTransaction is standard and padded, and decodes back to the same transaction', () => {
    const text = nssaTransactionToBase64({ kind: 'public', transaction: tx });
    expect(text).toBe(Buffer.from(encodeNssaTransaction({ kind: 'public', transaction: tx })).toString('base64'));
    expect(decodeBase64NssaTransaction(text)).toEqual({ ok: true, value: { kind: 'public', transaction: tx } });
    expect(decodePublicTransaction(encodePublicTransaction(tx))).toEqual({ ok: true, value: tx });
  });

  it('carries the other variants as opaque bodies under tags 1 and 2', () => {
    for (const [kind, tag] of [
      ['privacy-preserving', 1],
      ['program-deployment', 2],
    ] as const) {
      const wrapped: NssaTransaction = { kind, body: Uint8Array.of(9, 8, 7) };
      const bytes = encodeNssaTransaction(wrapped);
      expect(Array.from(bytes)).toEqual([tag, 9, 8, 7]);
      expect(decodeNssaTransaction(bytes)).toEqual({ ok: true, value: wrapped });
    }
  });

  it.each([
    ['an unknown variant', () => Uint8Array.of(3)],
    ['an empty input', () => new Uint8Array(0)],
    ['a truncated transaction', () => encodeNssaTransaction({ kind: 'public', transaction: tx }).slice(0, -1)],
    ['trailing bytes', () => concatBytes(encodeNssaTransaction({ kind: 'public', transaction: tx }), Uint8Array.of(0))],
    [
      'an absurd account count',
      () => concatBytes(Uint8Array.of(0), new Uint8Array(32), Uint8Array.of(0xff, 0xff, 0xff, 0x7f)),
    ],
    [
      'a witness key that is not a curve point (BIP-340 vector 5)',
      () =>
        encodeNssaTransaction({
          kind: 'public',
          transaction: {
            message,
            witnesses: [
              {
                signature: fill(1, 64),
                publicKey: hexToBytes('EEFDEA4CDB677750A420FEE807EACF21EB9898AE79B9768766E4FAA04A2D4A34'),
              },
            ],
          },
        }),
    ],
  ])('refuses %s with a reason', (_, bytes) => {
    const decoded = decodeNssaTransaction(bytes());
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toMatch(/^NSSATransaction: /);
  });

  it('refuses text that is not standard padded base64', () => {
    const text = nssaTransactionToBase64({ kind: 'public', transaction: tx });
    expect(decodeBase64NssaTransaction(text.replace(/=+$/, '') + '!')).toMatchObject({ ok: false });
    expect(decodeBase64NssaTransaction('%%%')).toMatchObject({ ok: false, reason: expect.stringContaining('base64') });
  });

  it('refuses to encode malformed values (programming errors)', () => {
    expect(() => encodePublicMessage({ ...message, programId: [1, 2, 3] })).toThrow(RangeError);
    expect(() => encodePublicMessage({ ...message, accountIds: [fill(1, 31)] })).toThrow(RangeError);
    expect(() => encodePublicMessage({ ...message, nonces: [-1n] })).toThrow(RangeError);
    expect(() => encodeWitnessSet([{ signature: fill(1, 63), publicKey: fill(1) }])).toThrow(RangeError);
  });
});

describe('native transfers end to end', () => {
  const to = publicAccountId(
    xOnlyPublicKey(hexToBytes('f434f8741720014586ae43356d2aec6257da086222f604ddb75d69733b86fc4c', 32)),
  );

  it('builds a signed transfer from genesis account 1 to genesis account 2 that decodes and verifies', () => {
    const built = buildNativeTransfer({
      programId: AUTH_TRANSFER,
      secretKey: GENESIS_1,
      to,
      amount: 150n,
      nonce: 3n,
      mode: 'prehash-v0.3',
    });
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(formatAccountId(built.from)).toBe('CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r');
    expect(formatAccountId(to)).toBe(GENESIS_2_ACCOUNT);
    const decoded = decodeBase64NssaTransaction(built.base64);
    expect(decoded.ok && decoded.value.kind === 'public').toBe(true);
    if (!decoded.ok || decoded.value.kind !== 'public') return;
    const tx = decoded.value.transaction;
    expect(tx).toEqual(built.transaction);
    expect(publicTransactionHashHex(tx)).toBe(built.hashHex);
    expect(verifyPublicTransactionSignatures(tx, 'prehash-v0.3')).toBe(true);
    expect(verifyPublicTransactionSignatures(tx, 'raw-borsh')).toBe(false);
    expect(readNativeTransfer(tx, AUTH_TRANSFER)).toEqual({
      ok: true,
      from: 'CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r',
      to: GENESIS_2_ACCOUNT,
      amount: 150n,
      nonce: 3n,
    });
  });

  it('pins the exact bytes when the aux randomness is pinned', () => {
    const input = {
      programId: AUTH_TRANSFER,
      secretKey: GENESIS_1,
      to,
      amount: 1n,
      nonce: 0n,
      mode: 'raw-borsh' as const,
      auxRand: fill(0),
    };
    const a = buildNativeTransfer(input);
    const b = buildNativeTransfer(input);
    expect(a.ok && b.ok && a.base64 === b.base64).toBe(true);
  });

  it('refuses paying yourself and non-positive amounts', () => {
    const self = publicAccountId(xOnlyPublicKey(GENESIS_1));
    expect(
      buildNativeTransfer({
        programId: AUTH_TRANSFER,
        secretKey: GENESIS_1,
        to: self,
        amount: 1n,
        nonce: 0n,
        mode: 'prehash-v0.3',
      }),
    ).toMatchObject({ ok: false });
    expect(
      buildNativeTransfer({
        programId: AUTH_TRANSFER,
        secretKey: GENESIS_1,
        to,
        amount: 0n,
        nonce: 0n,
        mode: 'prehash-v0.3',
      }),
    ).toMatchObject({ ok: false });
  });

  it('builds the initialisation of your own account: one account, amount 0', () => {
    const init = buildAccountInitialisation({
      programId: AUTH_TRANSFER,
      secretKey: GENESIS_1,
      nonce: 0n,
      mode: 'prehash-v0.3',
    });
    expect(init.transaction.message.accountIds).toEqual([publicAccountId(xOnlyPublicKey(GENESIS_1))]);
    expect(nativeTransferAmount(init.transaction.message.instructionData)).toBe(0n);
    expect(verifyPublicTransactionSignatures(init.transaction, 'prehash-v0.3')).toBe(true);
  });

  it('reading a transfer refuses other programs, shapes, and a first signer that is not the sender', () => {
    const built = buildNativeTransfer({
      programId: AUTH_TRANSFER,
      secretKey: GENESIS_1,
      to,
      amount: 5n,
      nonce: 0n,
      mode: 'prehash-v0.3',
    });
    if (!built.ok) throw new Error('unreachable');
    const tx = built.transaction;
    expect(readNativeTransfer(tx, [0, 0, 0, 0, 0, 0, 0, 0])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('program'),
    });
    expect(readNativeTransfer({ ...tx, message: { ...tx.message, accountIds: [to] } }, AUTH_TRANSFER)).toMatchObject({
      ok: false,
    });
    expect(
      readNativeTransfer({ ...tx, message: { ...tx.message, instructionData: [1] } }, AUTH_TRANSFER),
    ).toMatchObject({ ok: false });
    const stranger = { signature: tx.witnesses[0]!.signature, publicKey: xOnlyPublicKey(fill(9)) };
    expect(readNativeTransfer({ ...tx, witnesses: [stranger] }, AUTH_TRANSFER)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signer'),
    });
    expect(readNativeTransfer({ ...tx, witnesses: [] }, AUTH_TRANSFER)).toMatchObject({ ok: false });
  });

  it('survives a round trip of many varied messages', () => {
    for (let n = 0; n < 20; n++) {
      const message: PublicMessage = {
        programId: Array.from({ length: 8 }, (_, i) => (n * 2654435761 + i) >>> 0),
        accountIds: Array.from({ length: n % 4 }, (_, i) => fill(n + i)),
        nonces: Array.from({ length: n % 3 }, (_, i) => (1n << BigInt(n * 6)) + BigInt(i)),
        instructionData: Array.from({ length: n }, (_, i) => (i * 0x9e3779b9) >>> 0),
      };
      const tx: PublicTransaction = {
        message,
        witnesses: [{ signature: fill(n, 64), publicKey: xOnlyPublicKey(fill(n + 1)) }],
      };
      const bytes = encodeNssaTransaction({ kind: 'public', transaction: tx });
      const decoded = decodeNssaTransaction(bytes);
      expect(decoded).toEqual({ ok: true, value: { kind: 'public', transaction: tx } });
      if (decoded.ok) expect(encodeNssaTransaction(decoded.value)).toEqual(bytes);
    }
  });
});
