/**
 * The lee-v0.3 layout and its fee declaration, byte for byte: the pinned layouts of
 * `lee/state_machine/src/public_transaction/message.rs` (fees revision), the native transfer instruction, the hex
 * vectors docs/lez.md §9.15 shows (asserted here), and the admission errors as the sequencer renders them.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { publicAccountId } from '../../src/lez/account-id.ts';
import { concatBytes, domainPrefix, hexToBytes, toHex } from '../../src/lez/bytes.ts';
import {
  ADMISSION_CODES,
  admissionError,
  admissionRejectionOf,
  feeReserve,
  reserveFromRejectionData,
} from '../../src/lez/fees.ts';
import { buildNativeTransfer, readNativeTransfer } from '../../src/lez/native-transfer.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { publicMessageHash } from '../../src/lez/signing.ts';
import {
  decodeBase64NssaTransaction,
  decodePublicMessage,
  encodePublicMessage,
  nativeTransferAmount,
  nativeTransferInstruction,
  type PublicMessage,
} from '../../src/lez/transaction.ts';

const PROGRAM_ID_BYTES = '01000000'.repeat(8);
const ACCOUNT_IDS_BYTES = '01000000' + '2a'.repeat(32);
const NONCES_BYTES = '01000000' + '05' + '00'.repeat(15);

function pinned(instructionData: number[], fee: PublicMessage['fee']): PublicMessage {
  return {
    programId: [1, 1, 1, 1, 1, 1, 1, 1],
    accountIds: [new Uint8Array(32).fill(42)],
    nonces: [5n],
    instructionData,
    fee,
  };
}

describe('the lee-v0.3 public message', () => {
  it('fee-exempt, empty instruction: the Rust pinned layout (hash_public_pinned_exempt)', () => {
    const message = pinned([], null);
    const expected = PROGRAM_ID_BYTES + ACCOUNT_IDS_BYTES + NONCES_BYTES + '00000000' + '00';
    expect(toHex(encodePublicMessage(message))).toBe(expected);
    expect(publicMessageHash(message)).toEqual(
      sha256(concatBytes(domainPrefix('/LEE/v0.3/Message/Public/'), hexToBytes(expected))),
    );
  });

  it('instruction data is bytes, one wire byte each (hash_public_pinned_nonempty_instruction)', () => {
    const expected = PROGRAM_ID_BYTES + ACCOUNT_IDS_BYTES + NONCES_BYTES + '03000000070809' + '00';
    expect(toHex(encodePublicMessage(pinned([7, 8, 9], null)))).toBe(expected);
  });

  it('charged: Some ‖ payer ‖ gas_limit u64 ‖ tip u64 ‖ max_fee u128 (hash_public_pinned_charged)', () => {
    const fee = { payer: new Uint8Array(32).fill(7), gasLimit: 9n, tip: 3n, maxFee: 100n };
    const feeHex = '01' + '07'.repeat(32) + '0900000000000000' + '0300000000000000' + '64' + '00'.repeat(15);
    const expected = PROGRAM_ID_BYTES + ACCOUNT_IDS_BYTES + NONCES_BYTES + '00000000' + feeHex;
    const bytes = encodePublicMessage(pinned([], fee));
    expect(toHex(bytes)).toBe(expected);
    const back = decodePublicMessage(bytes, 'lee-v0.3');
    expect(back).toMatchObject({ ok: true, value: { fee: { gasLimit: 9n, tip: 3n, maxFee: 100n } } });
    // The same bytes are no v0.2 message: the layouts do not mix.
    expect(decodePublicMessage(bytes, 'v0.2').ok).toBe(false);
  });

  it('the native transfer instruction is borsh Transfer { amount }: tag 0 ‖ u128', () => {
    const data = nativeTransferInstruction(150n, 'lee-v0.3');
    expect(toHex(Uint8Array.from(data))).toBe('00' + '96' + '00'.repeat(15));
    expect(nativeTransferAmount(data, 'lee-v0.3')).toBe(150n);
    expect(nativeTransferAmount([1, ...data.slice(1)], 'lee-v0.3')).toBeUndefined();
  });

  it('a signed fee-bearing transfer: the vector docs/lez.md §9.15 shows', () => {
    const secretKey = new Uint8Array(32).fill(1);
    const built = buildNativeTransfer({
      programId: [1, 2, 3, 4, 5, 6, 7, 8],
      secretKey,
      to: new Uint8Array(32).fill(2),
      amount: 150n,
      nonce: 0n,
      mode: 'prehash-v0.3',
      fee: { gasLimit: 1_000n, tip: 0n, maxFee: 20_000n },
      auxRand: new Uint8Array(32),
    });
    if (!built.ok) throw new Error(built.reason);
    const from = publicAccountId(xOnlyPublicKey(secretKey));
    expect(built.transaction.message.fee).toEqual({ payer: from, gasLimit: 1_000n, tip: 0n, maxFee: 20_000n });
    expect(toHex(encodePublicMessage(built.transaction.message))).toBe(
      '0100000002000000030000000400000005000000060000000700000008000000' +
        '02000000' +
        toHex(from) +
        '02'.repeat(32) +
        '01000000' +
        '00'.repeat(16) +
        '11000000' +
        '00' +
        '96' +
        '00'.repeat(15) +
        '01' +
        toHex(from) +
        'e803000000000000' +
        '0000000000000000' +
        '204e' +
        '00'.repeat(14),
    );
    expect(toHex(publicMessageHash(built.transaction.message))).toBe(
      '8d70ce718bd3b06d46c1e00a2130a2470a24804e6c75779fe82ff6d9c00222c4',
    );
    expect(toHex(built.transaction.witnesses[0]!.signature)).toBe(
      '5b55ddf8540d3de7fc0308d22a8268045da2d49f364a046b4ef7136b6d523ee64e3c90710d47795ebee2276477ffac7f58757a4710050fdf4f6564c2f862fd2f',
    );
    expect(built.hashHex).toBe('bc835b697e8a2a7437b4ab82d75ed0f869a350d16c99bf02733e8f2665835a4c');
    const decoded = decodeBase64NssaTransaction(built.base64, 'lee-v0.3');
    if (!decoded.ok || decoded.value.kind !== 'public') throw new Error('no public transaction');
    expect(readNativeTransfer(decoded.value.transaction, [1, 2, 3, 4, 5, 6, 7, 8])).toMatchObject({
      ok: true,
      amount: 150n,
      maxFee: 20_000n,
    });
  });
});

describe('fee admission errors', () => {
  it('codes -31980…-31986, one per refusal, as the protocol crate defines them', () => {
    expect(Object.values(ADMISSION_CODES).sort((a, b) => a - b)).toEqual([
      -31986, -31985, -31984, -31983, -31982, -31981, -31980,
    ]);
    expect(ADMISSION_CODES.MissingFeeDeclaration).toBe(-31986);
    expect(ADMISSION_CODES.PayerCannotFund).toBe(-31984);
    expect(admissionRejectionOf(-31982)).toBe('MaxFeeBelowReserve');
    expect(admissionRejectionOf(-32602)).toBeUndefined();
  });

  it('the rendered reasons and data are the Rust ones', () => {
    expect(admissionError({ kind: 'MissingFeeDeclaration' })).toEqual({
      code: -31986,
      message: 'a public transaction must declare a fee',
      data: 'MissingFeeDeclaration',
    });
    const below = admissionError({ kind: 'MaxFeeBelowReserve', feeReserve: 401_600n, maxFee: 1n });
    expect(below.message).toBe('max_fee 1 below the fee reserve 401600');
    expect(reserveFromRejectionData(below.data)).toBe(401_600n);
    expect(admissionError({ kind: 'GasLimitExceedsMax', gasLimit: 10_000_001n, max: 10_000_000n }).message).toBe(
      'gas_limit 10000001 above the block cap 10000000',
    );
  });

  it('the reserve is gas_limit·exec + data_bytes·stor + tip (fee_core: 60,000 gas, 200 bytes, tip 100 at 8)', () => {
    expect(feeReserve({ gasLimit: 60_000n, tip: 100n }, 200n, 8n, 8n)).toBe(60_000n * 8n + 200n * 8n + 100n);
  });
});
