/**
 * LEZ blocks in borsh, as `getBlock`/`getBlockRange` return them (base64 of these bytes). The layout is
 * `common/src/block.rs` on `main` (docs/lez.md §8.4):
 *
 * ```
 * Block             = header ‖ body ‖ bedrock_status u8 (0 Pending, 1 Safe, 2 Finalized) ‖ bedrock_parent_id [u8; 32]
 * header            = block_id u64 ‖ prev_block_hash [u8; 32] ‖ hash [u8; 32] ‖ timestamp u64 (ms) ‖ signature [u8; 64]
 * body              = transactions Vec<NSSATransaction>
 * HashableBlockData = block_id u64 ‖ prev_block_hash [u8; 32] ‖ timestamp u64 ‖ transactions Vec<NSSATransaction>
 * hash              = SHA-256(borsh(HashableBlockData))
 * ```
 *
 * The decoder can read blocks of public transactions only: transaction.ts carries the other two variants as
 * opaque "rest of the buffer" bodies, so where one of them ends inside a block cannot be known here.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshDecodeError, BorshReader, BorshWriter } from '../lez/borsh.ts';
import { decodeNssaTransaction, type DecodeResult, type NssaTransaction } from '../lez/transaction.ts';

export const BEDROCK_STATUSES = ['pending', 'safe', 'finalized'] as const;
export type BedrockStatus = (typeof BEDROCK_STATUSES)[number];

export interface HashableBlockData {
  blockId: bigint;
  prevBlockHash: Uint8Array;
  timestampMs: bigint;
  /** Each borsh(NSSATransaction), exactly as submitted. */
  transactions: readonly Uint8Array[];
}

export interface LezBlock extends HashableBlockData {
  hash: Uint8Array;
  /** The sequencer's signature over the block. */
  signature: Uint8Array;
  bedrockStatus: BedrockStatus;
  bedrockParentId: Uint8Array;
}

export interface DecodedBlock extends LezBlock {
  decodedTransactions: NssaTransaction[];
}

/** Header, body length, status and parent id: a block's size without its transactions. */
export const BLOCK_OVERHEAD_BYTES = 8 + 32 + 32 + 8 + 64 + 4 + 1 + 32;

export function encodeHashableBlockData(data: HashableBlockData): Uint8Array {
  return new BorshWriter()
    .u64(data.blockId)
    .fixedBytes(data.prevBlockHash, 32)
    .u64(data.timestampMs)
    .vec(data.transactions, (w, tx) => w.raw(tx))
    .finish();
}

export function blockHash(data: HashableBlockData): Uint8Array {
  return sha256(encodeHashableBlockData(data));
}

export function encodeBlock(block: LezBlock): Uint8Array {
  return new BorshWriter()
    .u64(block.blockId)
    .fixedBytes(block.prevBlockHash, 32)
    .fixedBytes(block.hash, 32)
    .u64(block.timestampMs)
    .fixedBytes(block.signature, 64)
    .vec(block.transactions, (w, tx) => w.raw(tx))
    .enumTag(BEDROCK_STATUSES.indexOf(block.bedrockStatus))
    .fixedBytes(block.bedrockParentId, 32)
    .finish();
}

/**
 * Where the public transaction starting at the reader's position ends: walks the counts of its five vectors
 * (docs/lez.md §3.4–3.5) without interpreting them. The bytes are then decoded by transaction.ts.
 */
function skipPublicTransaction(r: BorshReader): void {
  r.fixedBytes(32, 'program_id');
  for (const [what, size] of [
    ['account_ids', 32],
    ['nonces', 16],
    ['instruction_data', 4],
    ['witness set', 96],
  ] as const) {
    const count = r.u32(`${what} length`);
    if (count * size > r.remaining)
      throw new BorshDecodeError(`${what}: ${count} items cannot fit in the ${r.remaining} bytes left`);
    r.fixedBytes(count * size, what);
  }
}

export function decodeBlock(bytes: Uint8Array): DecodeResult<DecodedBlock> {
  try {
    const r = new BorshReader(bytes);
    const blockId = r.u64('block_id');
    const prevBlockHash = r.fixedBytes(32, 'prev_block_hash');
    const hash = r.fixedBytes(32, 'hash');
    const timestampMs = r.u64('timestamp');
    const signature = r.fixedBytes(64, 'signature');
    const transactions: Uint8Array[] = [];
    const decodedTransactions: NssaTransaction[] = [];
    r.vec(
      1,
      (r, i) => {
        const start = r.position;
        const tag = r.enumTag('NSSATransaction tag');
        if (tag !== 0)
          throw new BorshDecodeError(
            `transaction ${i}: only public transactions (tag 0) can be read inside a block, got ${tag}`,
          );
        skipPublicTransaction(r);
        const txBytes = bytes.slice(start, r.position);
        const decoded = decodeNssaTransaction(txBytes);
        if (!decoded.ok) throw new BorshDecodeError(`transaction ${i}: ${decoded.reason}`);
        transactions.push(txBytes);
        decodedTransactions.push(decoded.value);
      },
      'transactions',
    );
    const statusTag = r.enumTag('bedrock_status');
    const bedrockStatus = BEDROCK_STATUSES[statusTag];
    if (bedrockStatus === undefined) throw new BorshDecodeError(`bedrock_status: unknown variant ${statusTag}`);
    const bedrockParentId = r.fixedBytes(32, 'bedrock_parent_id');
    r.end('block');
    return {
      ok: true,
      value: {
        blockId,
        prevBlockHash,
        hash,
        timestampMs,
        signature,
        transactions,
        decodedTransactions,
        bedrockStatus,
        bedrockParentId,
      },
    };
  } catch (error) {
    if (error instanceof BorshDecodeError) return { ok: false, reason: `block: ${error.message}` };
    throw error;
  }
}
