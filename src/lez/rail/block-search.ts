/**
 * Finding a transaction in the blocks themselves, for when the sequencer's hash index cannot say (docs/lez.md §2.3
 * item 6): a real sequencer keeps its tx-hash → transaction index in memory and rebuilds it from genesis only, so
 * after it restarts `getTransaction` answers null for transactions it included before. A null is then no evidence
 * that money did not move; the blocks are.
 *
 * The search walks back from the newest block with `getBlockRange`, reading the public transactions of each block
 * (block.ts). It answers with what the chain shows:
 * - `included`: a block holds the transaction;
 * - `nonce-taken`: a block holds another transaction signed by the same account with the same nonce, so the one
 *   looked for can never land (a positive proof, unlike a missing hash);
 * - `not-found`: neither, within the blocks searched; `complete` is false when some block could not be read
 *   through (a privacy-preserving transaction in it), so the answer proves nothing.
 * - `unavailable`: the sequencer did not answer; ask again later.
 *
 * A signer's nonces rise block by block, so a walk looking for a nonce stops at the first transaction of that
 * signer with a lower one. Blocks never change their transactions, so what was read is kept (a bounded cache).
 */
import { formatAccountId, publicAccountId } from '../account-id.ts';
import { decodeBlock, type BlockTransaction } from '../block.ts';
import type { MessageLayout } from '../transaction.ts';
import { sequencerProblem, type SequencerApi, type SequencerProblem } from './sequencer-api.ts';

export interface SearchTarget {
  txHash: string;
  /** The transaction's signer and nonce: lets the search prove that another transaction took the nonce. */
  signer?: { account: string; nonce: bigint };
  /** Blocks older than this (epoch ms) are not searched. */
  notBeforeMs?: number;
}

export type SearchOutcome =
  | { kind: 'included'; transaction: BlockTransaction; blockId: bigint }
  | { kind: 'nonce-taken'; byTxHash: string; blockId: bigint }
  | { kind: 'not-found'; complete: boolean; searchedBlocks: number }
  | { kind: 'unavailable'; problem: SequencerProblem };

export interface BlockSearchOptions {
  /** At most this many blocks back from the newest. */
  maxBlocks: number;
  /** Blocks per `getBlockRange` call. */
  rangeSize?: number;
  /** Decoded blocks kept. */
  cacheBlocks?: number;
}

type ReadTransaction = BlockTransaction & { signers: { account: string; nonce: bigint | undefined }[] };

interface ReadBlock {
  /** Undefined for a block that does not decode. */
  timestampMs: bigint | undefined;
  transactions: ReadTransaction[];
  complete: boolean;
}

/** The first block id of a LEZ chain (the debug configuration's `genesis_id`). */
const FIRST_BLOCK_ID = 1n;

export class BlockSearch {
  private readonly client: Pick<SequencerApi, 'getLastBlockId' | 'getBlockRange'> & { layout?: MessageLayout };
  private readonly maxBlocks: bigint;
  private readonly rangeSize: bigint;
  private readonly cacheBlocks: number;
  private readonly cache = new Map<bigint, ReadBlock>();

  /** `client.layout`: how the chain lays out its transactions (v0.2 when not said). */
  constructor(
    client: Pick<SequencerApi, 'getLastBlockId' | 'getBlockRange'> & { layout?: MessageLayout },
    options: BlockSearchOptions,
  ) {
    this.client = client;
    this.maxBlocks = BigInt(options.maxBlocks);
    this.rangeSize = BigInt(options.rangeSize ?? 100);
    this.cacheBlocks = options.cacheBlocks ?? 2_000;
  }

  async find(target: SearchTarget): Promise<SearchOutcome> {
    const txHash = target.txHash.toLowerCase();
    const signer = target.signer;
    return this.walk(target.notBeforeMs, (tx, blockId): SearchOutcome | undefined => {
      if (tx.hash === txHash) return { kind: 'included', transaction: tx, blockId };
      const own = signer && tx.signers.find((s) => s.account === signer.account);
      if (!signer || !own || own.nonce === undefined) return undefined;
      if (own.nonce === signer.nonce) return { kind: 'nonce-taken', byTxHash: tx.hash, blockId };
      // Earlier blocks hold only lower nonces of this signer: the nonce looked for cannot be there.
      if (own.nonce < signer.nonce) return { kind: 'not-found', complete: true, searchedBlocks: 0 };
      return undefined;
    });
  }

  /** Every transaction, within the blocks searched, for which `matches` holds, newest first. */
  async findAll(
    matches: (tx: BlockTransaction) => boolean,
    notBeforeMs?: number,
  ): Promise<
    | { kind: 'found'; transactions: BlockTransaction[]; complete: boolean }
    | Extract<SearchOutcome, { kind: 'unavailable' }>
  > {
    const found: BlockTransaction[] = [];
    // The visitor never answers, so the walk ends not-found (or unavailable) with every match collected.
    const walked = await this.walk<never>(notBeforeMs, (tx) => void (matches(tx) && found.push(tx)));
    if (walked.kind === 'unavailable') return walked;
    return { kind: 'found', transactions: found, complete: walked.complete };
  }

  /**
   * Visits the public transactions from the newest block back, newest first, until `visit` answers. A `not-found`
   * answer from `visit` ends the walk early; its `complete` and `searchedBlocks` are then filled in here.
   */
  private async walk<T extends SearchOutcome>(
    notBeforeMs: number | undefined,
    visit: (tx: ReadTransaction, blockId: bigint) => T | undefined,
  ): Promise<T | Extract<SearchOutcome, { kind: 'not-found' | 'unavailable' }>> {
    const last = await this.client.getLastBlockId();
    if (last.kind !== 'result') return { kind: 'unavailable', problem: sequencerProblem(last) };
    const lowest =
      last.value - this.maxBlocks + 1n > FIRST_BLOCK_ID ? last.value - this.maxBlocks + 1n : FIRST_BLOCK_ID;
    let complete = true;
    let searched = 0;
    for (let end = last.value; end >= lowest; end -= this.rangeSize) {
      const start = end - this.rangeSize + 1n > lowest ? end - this.rangeSize + 1n : lowest;
      const blocks = await this.read(start, end);
      if (!Array.isArray(blocks)) return { kind: 'unavailable', problem: blocks };
      for (let i = blocks.length - 1; i >= 0; i--) {
        const block = blocks[i]!;
        const blockId = start + BigInt(i);
        searched++;
        complete &&= block.complete;
        if (notBeforeMs !== undefined && block.timestampMs !== undefined && block.timestampMs < BigInt(notBeforeMs))
          return { kind: 'not-found', complete, searchedBlocks: searched };
        for (let t = block.transactions.length - 1; t >= 0; t--) {
          const answer = visit(block.transactions[t]!, blockId);
          if (answer?.kind === 'not-found') return { kind: 'not-found', complete, searchedBlocks: searched };
          if (answer) return answer;
        }
      }
    }
    return { kind: 'not-found', complete, searchedBlocks: searched };
  }

  /** Blocks `start..=end`, from the cache where possible; a problem when the sequencer did not answer. */
  private async read(start: bigint, end: bigint): Promise<ReadBlock[] | SequencerProblem> {
    const missing: bigint[] = [];
    for (let id = start; id <= end; id++) if (!this.cache.has(id)) missing.push(id);
    if (missing.length > 0) {
      const fetched = await this.client.getBlockRange(missing[0]!, missing.at(-1)!);
      if (fetched.kind !== 'result') return sequencerProblem(fetched);
      fetched.value.forEach((bytes, i) =>
        this.remember(missing[0]! + BigInt(i), readBlock(bytes, this.client.layout ?? 'v0.2')),
      );
    }
    const blocks: ReadBlock[] = [];
    for (let id = start; id <= end; id++) {
      const block = this.cache.get(id);
      if (!block) return { reason: 'bad-response', message: `getBlockRange did not return block ${id}` };
      blocks.push(block);
    }
    return blocks;
  }

  private remember(id: bigint, block: ReadBlock): void {
    this.cache.set(id, block);
    if (this.cache.size > this.cacheBlocks) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** A block that does not decode is kept as unreadable: it proves nothing either way. */
function readBlock(bytes: Uint8Array, layout: MessageLayout): ReadBlock {
  const decoded = decodeBlock(bytes, layout);
  if (!decoded.ok) return { timestampMs: undefined, transactions: [], complete: false };
  return {
    timestampMs: decoded.value.timestampMs,
    complete: decoded.value.unreadTransactions === 0,
    transactions: decoded.value.publicTransactions.map((tx) => ({
      ...tx,
      signers: tx.transaction.witnesses.map((witness, i) => ({
        account: formatAccountId(publicAccountId(witness.publicKey)),
        nonce: tx.transaction.message.nonces[i],
      })),
    })),
  };
}
