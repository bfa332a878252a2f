/**
 * The block codec (common/src/block.rs layout): encoding, both hash formulas, and reading blocks that hold
 * transactions of other kinds.
 */
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { buildNativeTransfer } from '../../src/lez/native-transfer.ts';
import { encodeNssaTransaction } from '../../src/lez/transaction.ts';
import {
  BLOCK_OVERHEAD_BYTES,
  blockHash,
  blockHashFormulaOf,
  decodeBlock,
  encodeBlock,
  encodeHashableBlockData,
  type LezBlock,
} from '../../src/lez/block.ts';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { DEVNET_PROGRAM_IDS } from '../../src/devnet/programs.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { shieldedTransfer } from '../support/shielded-transfer.ts';

function transferBytes(nonce: bigint): Uint8Array {
  const built = buildNativeTransfer({
    programId: DEVNET_PROGRAM_IDS.authenticated_transfer,
    secretKey: hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32),
    to: new Uint8Array(32).fill(2),
    amount: 3n,
    nonce,
    mode: 'prehash-v0.3',
  });
  if (!built.ok) throw new Error(built.reason);
  return encodeNssaTransaction({ kind: 'public', transaction: built.transaction });
}

function block(transactions: Uint8Array[]): LezBlock {
  const data = {
    blockId: 7n,
    prevBlockHash: new Uint8Array(32).fill(1),
    timestampMs: 1_700_000_000_000n,
    transactions,
  };
  return {
    ...data,
    hash: blockHash(data, 'main'),
    signature: new Uint8Array(64).fill(9),
    bedrockStatus: 'safe',
    bedrockParentId: new Uint8Array(32).fill(4),
  };
}

describe('block codec', () => {
  it('lays a block out as header ‖ body ‖ status ‖ parent id', () => {
    const empty = encodeBlock(block([]));
    expect(empty.byteLength).toBe(BLOCK_OVERHEAD_BYTES);
    expect([...empty.subarray(0, 8)]).toEqual([7, 0, 0, 0, 0, 0, 0, 0]); // block_id u64 LE
    expect(empty[8 + 32 + 32 + 8 + 64 + 4]).toBe(1); // BedrockStatus::Safe
    // The hash covers block_id ‖ prev ‖ timestamp ‖ transactions, not the header's own hash or signature.
    expect(encodeHashableBlockData(block([])).byteLength).toBe(8 + 32 + 8 + 4);
  });

  it('round-trips blocks of public transactions', () => {
    const txs = [transferBytes(0n), transferBytes(1n)];
    const decoded = decodeBlock(encodeBlock(block(txs)));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.value).toMatchObject({
      blockId: 7n,
      timestampMs: 1_700_000_000_000n,
      bedrockStatus: 'safe',
      unreadTransactions: 0,
    });
    expect(decoded.value.publicTransactions.map((tx) => tx.bytes)).toEqual(txs);
  });

  it('tells main’s prefixed block hash from the rc formula', () => {
    const data = { blockId: 3n, prevBlockHash: new Uint8Array(32), timestampMs: 5n, transactions: [transferBytes(0n)] };
    const signature = new Uint8Array(64);
    const parentId = new Uint8Array(32);
    const as = (formula: 'main' | 'rc') =>
      encodeBlock({
        ...data,
        hash: blockHash(data, formula),
        signature,
        bedrockStatus: 'pending',
        bedrockParentId: parentId,
      });
    expect(blockHashFormulaOf(as('main'))).toBe('main');
    expect(blockHashFormulaOf(as('rc'))).toBe('rc');
    const forged = as('main');
    forged[8 + 32]! ^= 1;
    expect(blockHashFormulaOf(forged)).toBeUndefined();
  });

  it('reads privacy-preserving transactions in place, with their hash, between public ones', () => {
    const shielded = shieldedTransfer({
      senderKey: hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32),
      sender: {
        programOwner: DEVNET_PROGRAM_IDS.authenticated_transfer,
        balance: 100n,
        data: new Uint8Array(0),
        nonce: 1n,
      },
      npk: new Uint8Array(32).fill(3),
      vpk: secp256k1.getPublicKey(new Uint8Array(32).fill(4), true),
      amount: 5n,
      transferProgram: DEVNET_PROGRAM_IDS.authenticated_transfer,
    });
    const decoded = decodeBlock(encodeBlock(block([transferBytes(0n), shielded.bytes, transferBytes(2n)])));
    expect(decoded).toMatchObject({ ok: true, value: { unreadTransactions: 0 } });
    if (!decoded.ok) return;
    expect(decoded.value.publicTransactions.map((tx) => tx.index)).toEqual([0, 2]);
    expect(decoded.value.privacyPreservingTransactions).toMatchObject([{ index: 1, hash: shielded.hash }]);
    expect(decoded.value.privacyPreservingTransactions[0]!.bytes).toEqual(shielded.bytes);
  });

  it('skips program deployments and stops, without failing, at a privacy-preserving transaction it cannot read', () => {
    const deployment = Uint8Array.from([2, 3, 0, 0, 0, 9, 8, 7]);
    const privacy = Uint8Array.from([1, 0xde, 0xad]);
    const withDeployment = decodeBlock(encodeBlock(block([deployment, transferBytes(0n)])));
    expect(withDeployment).toMatchObject({ ok: true, value: { unreadTransactions: 0 } });
    if (withDeployment.ok) expect(withDeployment.value.publicTransactions).toHaveLength(1);
    const withPrivacy = decodeBlock(encodeBlock(block([transferBytes(0n), privacy, transferBytes(1n)])));
    expect(withPrivacy).toMatchObject({ ok: true, value: { unreadTransactions: 2, bedrockStatus: 'safe' } });
    if (withPrivacy.ok) expect(withPrivacy.value.publicTransactions).toHaveLength(1);
  });

  it('refuses trailing bytes, truncation, hostile counts and unknown statuses', () => {
    const bytes = encodeBlock(block([transferBytes(0n)]));
    expect(decodeBlock(Uint8Array.from([...bytes, 0]))).toMatchObject({ ok: false });
    expect(decodeBlock(bytes.subarray(0, bytes.byteLength - 1))).toMatchObject({ ok: false });
    const hostile = bytes.slice(0, BLOCK_OVERHEAD_BYTES - 33);
    new DataView(hostile.buffer).setUint32(hostile.byteLength - 4, 0xffff_ffff, true);
    expect(decodeBlock(hostile)).toMatchObject({ ok: false });
    const badStatus = encodeBlock(block([]));
    badStatus[BLOCK_OVERHEAD_BYTES - 33] = 3;
    expect(decodeBlock(badStatus)).toMatchObject({ ok: false, reason: expect.stringContaining('bedrock_status') });
  });
});
