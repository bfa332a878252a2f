/**
 * LEZ blocks in borsh, as `getBlock`/`getBlockRange` return them (base64 of these bytes), in the layout of
 * `common/src/block.rs` (docs/lez.md §3.9):
 *
 * ```
 * Block             = header ‖ body ‖ bedrock_status u8 (0 Pending, 1 Safe, 2 Finalized) ‖ bedrock_parent_id [u8; 32]
 * header            = block_id u64 ‖ prev_block_hash [u8; 32] ‖ hash [u8; 32] ‖ timestamp u64 (ms) ‖ signature [u8; 64]
 * body              = transactions Vec<NSSATransaction>
 * HashableBlockData = block_id u64 ‖ prev_block_hash [u8; 32] ‖ timestamp u64 ‖ transactions Vec<NSSATransaction>
 * hash (main)       = SHA-256(pad32("/LEE/v0.3/Message/Block/") ‖ borsh(HashableBlockData))
 * hash (v0.2.0-rc*) = SHA-256(borsh(HashableBlockData))
 * ```
 *
 * The hash formula tells the two versions apart, and with them the signing mode (sequencer-probe.ts).
 *
 * Reading: public and privacy-preserving transactions are decoded (the latter in the v0.2 layout, private/transaction.ts),
 * a program deployment (a bare `Vec<u8>` of bytecode) is skipped. A privacy-preserving transaction that does not
 * decode (another revision's layout) cannot be skipped, so reading stops there and the block says how many
 * transactions it could not read: a reader that looks for something must then treat the block as not searched,
 * rather than reject it. The trailer (status, parent id) is read from the end, so it is known either way.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshDecodeError, BorshReader, BorshWriter } from './borsh.ts';
import { bytesEqual, concatBytes, domainPrefix } from './bytes.ts';
import {
  privacyPreservingTransactionHashHex,
  readPrivacyPreservingTransaction,
  type PrivacyPreservingTransaction,
} from './private/transaction.ts';
import {
  decodePublicTransaction,
  type MessageLayout,
  publicTransactionHashHex,
  type DecodeResult,
  type PublicTransaction,
} from './transaction.ts';

export const BEDROCK_STATUSES = ['pending', 'safe', 'finalized'] as const;
export type BedrockStatus = (typeof BEDROCK_STATUSES)[number];

/** `main` hashes blocks under a domain prefix; the v0.2.0-rc tags hash the data alone. */
export const BLOCK_HASH_FORMULAS = ['main', 'rc'] as const;
export type BlockHashFormula = (typeof BLOCK_HASH_FORMULAS)[number];

const BLOCK_PREFIX = domainPrefix('/LEE/v0.3/Message/Block/');

export interface HashableBlockData {
  blockId: bigint;
  prevBlockHash: Uint8Array;
  timestampMs: bigint;
  /** Each borsh(NSSATransaction), exactly as submitted. */
  transactions: readonly Uint8Array[];
}

export interface LezBlock extends HashableBlockData {
  hash: Uint8Array;
  /** The sequencer's signature over the block hash. */
  signature: Uint8Array;
  bedrockStatus: BedrockStatus;
  bedrockParentId: Uint8Array;
}

/** A public transaction as found in a block. */
export interface BlockTransaction {
  /** Its position among the block's transactions. */
  index: number;
  /** sha256(borsh(PublicTransaction)), lowercase hex: what `getTransaction` is asked with. */
  hash: string;
  transaction: PublicTransaction;
  /** borsh(NSSATransaction). */
  bytes: Uint8Array;
}

/** A privacy-preserving transaction as found in a block. */
export interface PrivateBlockTransaction {
  index: number;
  /** sha256(borsh(PrivacyPreservingTransaction)), lowercase hex. */
  hash: string;
  transaction: PrivacyPreservingTransaction;
  /** borsh(NSSATransaction). */
  bytes: Uint8Array;
}

export interface DecodedBlock extends Omit<LezBlock, 'transactions'> {
  /** The public transactions read, in block order. */
  publicTransactions: BlockTransaction[];
  /** The privacy-preserving transactions read, in block order. */
  privacyPreservingTransactions: PrivateBlockTransaction[];
  /** Transactions that could not be read (from the first privacy-preserving one on); 0 for a fully read block. */
  unreadTransactions: number;
}

const HEADER_BYTES = 8 + 32 + 32 + 8 + 64;
const TRAILER_BYTES = 1 + 32;
/** Header, body length, status and parent id: a block's size without its transactions. */
export const BLOCK_OVERHEAD_BYTES = HEADER_BYTES + 4 + TRAILER_BYTES;

export function encodeHashableBlockData(data: HashableBlockData): Uint8Array {
  return new BorshWriter()
    .u64(data.blockId)
    .fixedBytes(data.prevBlockHash, 32)
    .u64(data.timestampMs)
    .vec(data.transactions, (w, tx) => w.raw(tx))
    .finish();
}

export function blockHash(data: HashableBlockData, formula: BlockHashFormula): Uint8Array {
  const bytes = encodeHashableBlockData(data);
  return sha256(formula === 'main' ? concatBytes(BLOCK_PREFIX, bytes) : bytes);
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
 * Which formula the header's hash was made with, from the raw block alone (no transaction is decoded: the
 * hashable data is the header fields and the body's bytes as they are). Undefined when neither matches.
 */
export function blockHashFormulaOf(bytes: Uint8Array): BlockHashFormula | undefined {
  if (bytes.byteLength < BLOCK_OVERHEAD_BYTES) return undefined;
  const hashable = concatBytes(
    bytes.subarray(0, 8 + 32),
    bytes.subarray(8 + 32 + 32, 8 + 32 + 32 + 8),
    bytes.subarray(HEADER_BYTES, bytes.byteLength - TRAILER_BYTES),
  );
  const stated = bytes.subarray(8 + 32, 8 + 32 + 32);
  if (bytesEqual(sha256(concatBytes(BLOCK_PREFIX, hashable)), stated)) return 'main';
  if (bytesEqual(sha256(hashable), stated)) return 'rc';
  return undefined;
}

/**
 * Where the public transaction starting at the reader's position ends: walks the counts of its five vectors
 * (docs/lez.md §3.4–3.5) without interpreting them.
 */
function skipPublicTransaction(r: BorshReader, layout: MessageLayout): void {
  r.fixedBytes(32, 'program_id');
  const skipVec = (what: string, size: number) => {
    const count = r.u32(`${what} length`);
    if (count * size > r.remaining)
      throw new BorshDecodeError(`${what}: ${count} items cannot fit in the ${r.remaining} bytes left`);
    r.fixedBytes(count * size, what);
  };
  skipVec('account_ids', 32);
  skipVec('nonces', 16);
  skipVec('instruction_data', layout === 'v0.2' ? 4 : 1);
  // lee-v0.3: Option<FeeDeclaration> = 0, or 1 ‖ payer 32 ‖ gas_limit 8 ‖ tip 8 ‖ max_fee 16.
  if (layout === 'lee-v0.3') r.option((r) => r.fixedBytes(64, 'fee'), 'fee');
  skipVec('witness set', 96);
}

export function decodeBlock(bytes: Uint8Array, layout: MessageLayout = 'v0.2'): DecodeResult<DecodedBlock> {
  try {
    if (bytes.byteLength < BLOCK_OVERHEAD_BYTES)
      throw new BorshDecodeError(`${bytes.byteLength} bytes are too few for a block`);
    const trailer = new BorshReader(bytes.subarray(bytes.byteLength - TRAILER_BYTES));
    const statusTag = trailer.enumTag('bedrock_status');
    const bedrockStatus = BEDROCK_STATUSES[statusTag];
    if (bedrockStatus === undefined) throw new BorshDecodeError(`bedrock_status: unknown variant ${statusTag}`);
    const bedrockParentId = trailer.fixedBytes(32, 'bedrock_parent_id');

    const body = bytes.subarray(0, bytes.byteLength - TRAILER_BYTES);
    const r = new BorshReader(body);
    const blockId = r.u64('block_id');
    const prevBlockHash = r.fixedBytes(32, 'prev_block_hash');
    const hash = r.fixedBytes(32, 'hash');
    const timestampMs = r.u64('timestamp');
    const signature = r.fixedBytes(64, 'signature');
    const count = r.u32('transactions length');
    if (count > r.remaining) throw new BorshDecodeError(`transactions: ${count} cannot fit in ${r.remaining} bytes`);
    const publicTransactions: BlockTransaction[] = [];
    const privacyPreservingTransactions: PrivateBlockTransaction[] = [];
    let unreadTransactions = 0;
    for (let i = 0; i < count; i++) {
      const start = r.position;
      const tag = r.enumTag(`transaction ${i} tag`);
      if (tag === 0) {
        skipPublicTransaction(r, layout);
        const txBytes = body.slice(start, r.position);
        const decoded = decodePublicTransaction(txBytes.subarray(1), layout);
        if (!decoded.ok) throw new BorshDecodeError(`transaction ${i}: ${decoded.reason}`);
        publicTransactions.push({
          index: i,
          hash: publicTransactionHashHex(decoded.value),
          transaction: decoded.value,
          bytes: txBytes,
        });
      } else if (tag === 2) {
        r.bytes(`transaction ${i} bytecode`);
      } else if (tag === 1) {
        const read = readPrivate(body.subarray(r.position));
        if (!read) {
          unreadTransactions = count - i;
          break;
        }
        r.fixedBytes(read.length, `transaction ${i}`);
        privacyPreservingTransactions.push({
          index: i,
          hash: privacyPreservingTransactionHashHex(read.transaction),
          transaction: read.transaction,
          bytes: body.slice(start, r.position),
        });
      } else {
        throw new BorshDecodeError(`transaction ${i}: unknown NSSATransaction tag ${tag}`);
      }
    }
    if (unreadTransactions === 0) r.end('block');
    return {
      ok: true,
      value: {
        blockId,
        prevBlockHash,
        hash,
        timestampMs,
        signature,
        publicTransactions,
        privacyPreservingTransactions,
        unreadTransactions,
        bedrockStatus,
        bedrockParentId,
      },
    };
  } catch (error) {
    if (error instanceof BorshDecodeError) return { ok: false, reason: `block: ${error.message}` };
    throw error;
  }
}

/** A privacy-preserving transaction at the start of `bytes`, and its length; undefined when it does not decode. */
function readPrivate(bytes: Uint8Array): { transaction: PrivacyPreservingTransaction; length: number } | undefined {
  const r = new BorshReader(bytes);
  try {
    const transaction = readPrivacyPreservingTransaction(r);
    return { transaction, length: r.position };
  } catch (error) {
    if (error instanceof BorshDecodeError) return undefined;
    throw error;
  }
}
