/**
 * The devnet's sequencer core, without HTTP: state, mempool, blocks, and the two things a sequencer does,
 * admitting transactions and building blocks. rpc-methods.ts puts the JSON-RPC face on it.
 *
 * Admission (`sendTransaction`) does what the real one does (docs/lez.md §2; `sequencer/service/src/service.rs`):
 * size, then signatures, then into the mempool, answering the hash at once. Execution happens at block build;
 * a failing transaction is dropped and `getTransaction` never finds it. `admission: 'strict'` adds a devnet-only
 * check at admission: the transaction is executed against the state the mempool will leave behind and refused
 * at once if it would fail, or if it is already pending or included. That fails fast in tests and demos, but a
 * client must not rely on it: a real sequencer answers every well-signed transaction with its hash.
 *
 * Privacy-preserving transactions (profile v0.2, `prehash-v0.3` signing only) are admitted with their signatures
 * checked and their risc0 proof NOT verified, as a sequencer started with `RISC0_DEV_MODE=1` does
 * (execute-private.ts); their public post-states, commitments and nullifiers are applied, and getTransaction and
 * getBlock return them byte for byte as submitted, notes included.
 *
 * Like `main`, every block ends with a clock transaction (clock.ts) and is hashed under its domain prefix; with
 * the `raw-borsh` signing mode the devnet is a v0.2.0-rc sequencer instead: no clock, the rc hash formula
 * (lez/block.ts). A block turns Finalized once `finalityDepth` blocks follow it (on the real chain, once Bedrock
 * finalizes it).
 *
 * State is in memory, and on disk when given a BlockLog (block-log.ts): the blocks are replayed at start, and the
 * tx-hash index starts empty, as the real sequencer's does. Every block's total supply is checked against genesis
 * before the block is committed.
 */
import { bytesEqual, toHex } from '../lez/bytes.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import { schnorrSign, verifyPublicTransactionSignatures, type SigningMode } from '../lez/signing.ts';
import { publicTransactionHashHex, type NssaTransaction } from '../lez/transaction.ts';
import {
  decodePrivacyPreservingTransaction,
  isPrivacyPreserving,
  privacyPreservingTransactionHashHex,
  verifyPrivacyPreservingSignatures,
} from '../lez/private/transaction.ts';
import { publicAccountId } from '../lez/account-id.ts';
import { MIN_BASE_FEE, type AdmissionRejection, type FeeStateQuote } from '../lez/fees.ts';
import type { ProtocolProfile } from '../lez/protocol-profile.ts';
import { xOnlyPublicKey } from '../lez/public-key.ts';
import { blockHash, decodeBlock, encodeBlock, type BlockHashFormula, type LezBlock } from '../lez/block.ts';
import { buildBlock, type BuildLimits } from './block-builder.ts';
import type { BlockLog } from './block-log.ts';
import { clockTransaction, genesisClockAccounts, isClockTransaction, runClock } from './clock.ts';
import { signerAccountIds, type FeeTerms } from './execute.ts';
import { applyOutcome, executeTransaction, type DevnetTransaction } from './execute-entry.ts';
import type { BlockPosition } from './execute-private.ts';
import { screenFee } from './fee-admission.ts';
import type { ExecutionFailure } from './failures.ts';
import type { GenesisAccount } from './genesis.ts';
import { Ledger } from './ledger.ts';
import { Mempool } from './mempool.ts';
import type { DevnetProgramIds } from './programs.ts';

export const ADMISSION_MODES = ['sequencer', 'strict'] as const;
export type AdmissionMode = (typeof ADMISSION_MODES)[number];

/** The real sendTransaction keeps ~200 bytes of a block for its header (`BLOCK_HEADER_OVERHEAD`). */
const BLOCK_HEADER_RESERVE = 200;

/** The debug config's sequencer signing key ([37; 32]); it signs block headers, nothing else. */
const SEQUENCER_KEY = new Uint8Array(32).fill(37);

/** The debug config's `genesis_id`: the chain starts with block 1, empty, timestamp 0. */
export const GENESIS_BLOCK_ID = 1n;

export interface ChainConfig {
  /** `v0.2`: today's testnet, no fees. `lee-v0.3`: fees (fee-admission.ts, execute.ts) and the lee-v0.3 layout. */
  profile: ProtocolProfile;
  /** lee-v0.3: the gas the devnet meters for a native transfer. */
  transferGas: bigint;
  /** Also picks the version: `prehash-v0.3` is `main` (clock transactions, prefixed block hash), `raw-borsh` rc. */
  signingMode: SigningMode;
  /** Blocks after which a block is Finalized. */
  finalityDepth: number;
  /** Serve the devnet-only `getTransactionReceipt` (rpc-methods.ts). */
  serveReceipts: boolean;
  admission: AdmissionMode;
  limits: BuildLimits;
  mempoolMaxSize: number;
  programIds: DevnetProgramIds;
  genesis: readonly GenesisAccount[];
  log: (line: string) => void;
  now: () => number;
}

export type SubmitOutcome =
  | { ok: true; hash: string; status: 'queued' | 'already-pending' | 'already-included' }
  | { ok: false; reason: 'unsupported-kind'; kind: 'privacy-preserving' | 'program-deployment' }
  /** A privacy-preserving transaction whose body does not decode. */
  | { ok: false; reason: 'malformed'; message: string }
  | { ok: false; reason: 'too-large'; size: number; max: number }
  | { ok: false; reason: 'invalid-signature' }
  /** lee-v0.3: refused at the fee-admission door. */
  | { ok: false; reason: 'fee-rejected'; rejection: AdmissionRejection }
  | { ok: false; reason: 'mempool-full'; maxSize: number }
  /** strict admission only: */
  | { ok: false; reason: 'already-known'; hash: string }
  | { ok: false; reason: 'rejected'; hash: string; failure: ExecutionFailure };

export type TransactionReceipt =
  | { status: 'unknown' }
  | { status: 'pending' }
  | { status: 'included'; blockId: bigint; timestampMs: bigint }
  /** `blockId` is the block whose build dropped it. */
  | { status: 'dropped'; failure: ExecutionFailure; blockId: bigint; timestampMs: bigint };

export interface BlockSummary {
  blockId: bigint;
  hash: string;
  timestampMs: bigint;
  /** Hashes of the included transactions, in block order. */
  transactions: string[];
  dropped: { hash: string; failure: ExecutionFailure }[];
}

interface StoredBlock {
  block: LezBlock;
  bytes: Uint8Array;
}

export class DevnetChain {
  readonly config: ChainConfig;
  readonly genesisSupply: bigint;
  private ledger = new Ledger();
  /** strict admission: the state after every queued transaction; rebuilt lazily after each block. */
  private projection: Ledger | undefined;
  private readonly mempool: Mempool;
  private readonly blocks: StoredBlock[] = [];
  private readonly includedTxs = new Map<string, { bytes: Uint8Array; blockId: bigint; timestampMs: bigint }>();
  private readonly receipts = new Map<string, TransactionReceipt>();
  private readonly listeners = new Set<(block: BlockSummary) => void>();

  private readonly hashFormula: BlockHashFormula;
  private readonly log: BlockLog | undefined;
  /**
   * lee-v0.3 only. The base fees stay at the protocol minimum: the market moves them up only for blocks above half
   * full, which a devnet does not build, and never below the minimum.
   */
  fees: FeeTerms | undefined;

  /** `stored`: the blocks after genesis of a chain kept on disk, replayed; `log` takes every new block. */
  constructor(config: ChainConfig, persistence?: { log: BlockLog; stored: readonly Uint8Array[] }) {
    this.config = config;
    this.fees =
      config.profile === 'lee-v0.3'
        ? {
            baseFeeExec: MIN_BASE_FEE,
            baseFeeStor: MIN_BASE_FEE,
            transferGas: config.transferGas,
            collector: publicAccountId(xOnlyPublicKey(SEQUENCER_KEY)),
          }
        : undefined;
    this.hashFormula = config.signingMode === 'raw-borsh' ? 'rc' : 'main';
    this.mempool = new Mempool(config.mempoolMaxSize);
    if (this.hashFormula === 'main') this.ledger.apply(genesisClockAccounts(GENESIS_BLOCK_ID));
    this.ledger.apply(
      config.genesis.map((entry) => ({
        id: entry.id,
        account: {
          programOwner: entry.initialised ? config.programIds.authenticated_transfer : [0, 0, 0, 0, 0, 0, 0, 0],
          balance: entry.balance,
          data: new Uint8Array(0),
          nonce: 0n,
        },
      })),
    );
    this.genesisSupply = this.ledger.totalSupply();
    this.commitBlock({
      blockId: GENESIS_BLOCK_ID,
      prevBlockHash: new Uint8Array(32),
      timestampMs: 0n,
      transactions: [],
    });
    for (const bytes of persistence?.stored ?? []) this.replay(bytes);
    this.log = persistence?.log;
  }

  /** Re-executes a stored block; a block that does not follow or does not execute means a corrupted chain. */
  private replay(bytes: Uint8Array): void {
    const decoded = decodeBlock(bytes, this.config.profile);
    if (!decoded.ok) throw new Error(`stored chain: ${decoded.reason}`);
    const block = decoded.value;
    const previous = this.blocks.at(-1)!.block;
    if (block.blockId !== previous.blockId + 1n || !bytesEqual(block.prevBlockHash, previous.hash))
      throw new Error(`stored chain: block ${block.blockId} does not follow block ${previous.blockId}`);
    if (block.unreadTransactions > 0) throw new Error(`stored chain: block ${block.blockId} cannot be read whole`);
    const txs = [...block.publicTransactions, ...block.privacyPreservingTransactions].sort((a, b) => a.index - b.index);
    const at = { blockId: block.blockId, timestampMs: block.timestampMs };
    for (const tx of txs) {
      if (!isPrivacyPreserving(tx.transaction) && isClockTransaction(tx.transaction)) {
        this.ledger.apply(runClock(this.ledger, block.blockId, block.timestampMs));
        continue;
      }
      const outcome = executeTransaction(
        tx.transaction,
        this.ledger,
        this.config.programIds,
        at,
        this.charge(tx.bytes),
      );
      if (!outcome.ok) throw new Error(`stored chain: block ${block.blockId}: ${tx.hash}: ${outcome.failure.message}`);
      applyOutcome(this.ledger, outcome);
    }
    if (this.ledger.totalSupply() !== this.genesisSupply)
      throw new Error(`stored chain: block ${block.blockId} changes the total supply`);
    this.pushBlock({ ...block, transactions: txs.map((tx) => tx.bytes) });
  }

  // ---- admission ------------------------------------------------------------------------------------------------

  /** `bytes` is the borsh(NSSATransaction) that decoded to `tx`. */
  submit(tx: NssaTransaction, bytes: Uint8Array): SubmitOutcome {
    const admitted = this.admit(tx, bytes);
    if (!admitted.ok) return admitted;
    const { transaction, hash } = admitted;

    const known = this.includedTxs.has(hash)
      ? 'already-included'
      : this.mempool.has(hash)
        ? 'already-pending'
        : undefined;
    if (known) {
      // The real sequencer queues the copy and drops it at block time (its nonce is spent); not queueing it
      // shows the client the same thing, without a second receipt overwriting the first.
      if (this.config.admission === 'strict') return { ok: false, reason: 'already-known', hash };
      return { ok: true, hash, status: known };
    }
    if (this.mempool.isFull) return { ok: false, reason: 'mempool-full', maxSize: this.mempool.maxSize };

    if (this.config.admission === 'strict') {
      const projected = this.projected();
      const outcome = executeTransaction(
        transaction,
        projected,
        this.config.programIds,
        this.nextBlockPosition(),
        this.charge(bytes),
      );
      if (!outcome.ok) return { ok: false, reason: 'rejected', hash, failure: outcome.failure };
      applyOutcome(projected, outcome);
    }
    this.mempool.push({ hash, bytes, tx: transaction, signers: signerAccountIds(transaction) });
    this.receipts.set(hash, { status: 'pending' });
    return { ok: true, hash, status: 'queued' };
  }

  /** sendTransaction's stateless checks: decodable, supported, small enough, well signed; fees on lee-v0.3. */
  private admit(
    tx: NssaTransaction,
    bytes: Uint8Array,
  ): { ok: true; transaction: DevnetTransaction; hash: string } | Exclude<SubmitOutcome, { ok: true }> {
    if (tx.kind === 'program-deployment') return { ok: false, reason: 'unsupported-kind', kind: tx.kind };
    // Privacy-preserving transactions in the v0.2 layout only, and signed as `main` signs them.
    if (tx.kind === 'privacy-preserving' && (this.config.profile !== 'v0.2' || this.hashFormula !== 'main'))
      return { ok: false, reason: 'unsupported-kind', kind: tx.kind };
    const max = Math.max(0, this.config.limits.maxBlockBytes - BLOCK_HEADER_RESERVE);
    if (bytes.byteLength > max) return { ok: false, reason: 'too-large', size: bytes.byteLength, max };
    if (tx.kind === 'privacy-preserving') {
      const decoded = decodePrivacyPreservingTransaction(tx.body);
      if (!decoded.ok) return { ok: false, reason: 'malformed', message: decoded.reason };
      if (!verifyPrivacyPreservingSignatures(decoded.value)) return { ok: false, reason: 'invalid-signature' };
      return { ok: true, transaction: decoded.value, hash: privacyPreservingTransactionHashHex(decoded.value) };
    }
    if (!verifyPublicTransactionSignatures(tx.transaction, this.config.signingMode))
      return { ok: false, reason: 'invalid-signature' };
    if (this.fees) {
      const rejection = screenFee(tx.transaction, bytes.byteLength, this.ledger, this.fees);
      if (rejection) return { ok: false, reason: 'fee-rejected', rejection };
    }
    return { ok: true, transaction: tx.transaction, hash: publicTransactionHashHex(tx.transaction) };
  }

  /** Where the next block will stand (for validity windows at strict admission). */
  private nextBlockPosition(): BlockPosition {
    const last = this.blocks.at(-1)!.block;
    return { blockId: last.blockId + 1n, timestampMs: BigInt(Math.max(this.config.now(), Number(last.timestampMs))) };
  }

  private projected(): Ledger {
    if (!this.projection) {
      const projection = this.ledger.clone();
      const at = this.nextBlockPosition();
      for (const entry of this.mempool.list()) {
        const outcome = executeTransaction(entry.tx, projection, this.config.programIds, at, this.charge(entry.bytes));
        if (outcome.ok) applyOutcome(projection, outcome);
      }
      this.projection = projection;
    }
    return this.projection;
  }

  /** What a transaction of `bytes` (borsh(NSSATransaction)) is charged under, on a chain with fees. */
  private charge(bytes: Uint8Array): { terms: FeeTerms; dataBytes: number } | undefined {
    return this.fees && { terms: this.fees, dataBytes: bytes.byteLength };
  }

  /**
   * lee-v0.3, devnet-only: moves the base fees as a busy market would, so a client can meet a fee that rose after
   * it quoted one. Never below the protocol minimum.
   */
  setBaseFees(exec: bigint, stor: bigint): void {
    if (!this.fees) throw new Error('this devnet has no fees (profile v0.2)');
    // A replay of the blocks would not know the fees they were built under.
    if (this.log) throw new Error('base fees cannot be set on a chain kept on disk');
    if (exec < MIN_BASE_FEE || stor < MIN_BASE_FEE) throw new RangeError(`base fees are at least ${MIN_BASE_FEE}`);
    this.fees = { ...this.fees, baseFeeExec: exec, baseFeeStor: stor };
  }

  /** `getFeeState`'s quote (lee-v0.3): the base fees, and the band the next block's lie in. */
  feeQuote(): FeeStateQuote | undefined {
    if (!this.fees) return undefined;
    const { baseFeeExec: exec, baseFeeStor: stor } = this.fees;
    // One step of ±1/8 (fee_core's D = 8), never below the minimum: an empty block and a full one.
    return {
      height: this.lastBlockId,
      base_fee_exec: exec,
      base_fee_stor: stor,
      next_base_fee_exec_floor: exec - exec / 8n < MIN_BASE_FEE ? MIN_BASE_FEE : exec - exec / 8n,
      next_base_fee_exec_ceiling: exec + exec / 8n,
      next_base_fee_stor_floor: stor - stor / 8n < MIN_BASE_FEE ? MIN_BASE_FEE : stor - stor / 8n,
      next_base_fee_stor_ceiling: stor + stor / 8n,
      max_gas_exec: 10_000_000n,
      max_gas_stor: 1_000_000n,
    };
  }

  // ---- block production -----------------------------------------------------------------------------------------

  /**
   * Builds the next block from the mempool (possibly empty, as the real sequencer does every interval). Throws
   * only when an invariant is broken (supply changed), and then commits nothing.
   */
  produceBlock(): BlockSummary {
    const previous = this.blocks.at(-1)!.block;
    const timestampMs = BigInt(Math.max(this.config.now(), Number(previous.timestampMs)));
    const blockId = previous.blockId + 1n;
    const clock = this.hashFormula === 'main' ? clockTransaction(timestampMs, this.config.profile) : undefined;
    const working = this.ledger.clone();
    // The clock transaction is the block's last, and its room is kept (as build_block_from_mempool does).
    const limits = {
      ...this.config.limits,
      maxBlockBytes: this.config.limits.maxBlockBytes - (clock?.bytes.byteLength ?? 0),
    };
    const result = buildBlock(
      working,
      this.mempool.list(),
      this.config.programIds,
      limits,
      { blockId, timestampMs },
      this.fees,
    );
    if (clock) working.apply(runClock(working, blockId, timestampMs));
    const supply = working.totalSupply();
    if (supply !== this.genesisSupply) {
      throw new Error(
        `devnet invariant broken: total supply would be ${supply} after block ${blockId}, genesis had ${this.genesisSupply}`,
      );
    }

    const included = [
      ...result.included.map((entry) => ({ hash: entry.hash, bytes: entry.bytes })),
      ...(clock ? [{ hash: publicTransactionHashHex(clock.transaction), bytes: clock.bytes }] : []),
    ];
    this.commitBlock({
      blockId,
      prevBlockHash: previous.hash,
      timestampMs,
      transactions: included.map((entry) => entry.bytes),
    });
    this.ledger = working;
    this.projection = undefined;
    this.mempool.replace(result.remaining);

    for (const entry of included) {
      this.includedTxs.set(entry.hash, { bytes: entry.bytes, blockId, timestampMs });
      this.receipts.set(entry.hash, { status: 'included', blockId, timestampMs });
    }
    for (const { entry, failure } of result.dropped) {
      if (!this.includedTxs.has(entry.hash))
        this.receipts.set(entry.hash, { status: 'dropped', failure, blockId, timestampMs });
      this.config.log(`devnet: dropped transaction ${entry.hash}: ${failure.message}`);
    }

    const summary: BlockSummary = {
      blockId,
      hash: toHex(this.blocks.at(-1)!.block.hash),
      timestampMs,
      transactions: result.included.map((entry) => entry.hash),
      dropped: result.dropped.map(({ entry, failure }) => ({ hash: entry.hash, failure })),
    };
    if (summary.transactions.length > 0 || summary.dropped.length > 0) {
      this.config.log(
        `devnet: block ${blockId} with ${summary.transactions.length} transaction(s), ${summary.dropped.length} dropped`,
      );
    }
    for (const listener of this.listeners) {
      try {
        listener(summary);
      } catch (error) {
        this.config.log(`devnet: a block listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return summary;
  }

  private commitBlock(data: Omit<LezBlock, 'hash' | 'signature' | 'bedrockStatus' | 'bedrockParentId'>): void {
    const hash = blockHash(data, this.hashFormula);
    const block: LezBlock = {
      ...data,
      hash,
      signature: schnorrSign(hash, SEQUENCER_KEY, new Uint8Array(32)),
      bedrockStatus: 'pending',
      bedrockParentId: new Uint8Array(32),
    };
    // On disk before anyone hears of it: a devnet killed now restarts with this block or without it, never half.
    this.log?.append(encodeBlock(block));
    this.pushBlock(block);
  }

  private pushBlock(block: LezBlock): void {
    this.blocks.push({ block, bytes: encodeBlock(block) });
    const final = this.blocks.at(-1 - this.config.finalityDepth);
    if (final && final.block.bedrockStatus !== 'finalized') {
      final.block = { ...final.block, bedrockStatus: 'finalized' };
      final.bytes = encodeBlock(final.block);
    }
  }

  /** Stops writing blocks to disk. */
  close(): void {
    this.log?.close();
  }

  /** Called with every block built after genesis; returns the unsubscribe function. */
  onBlock(listener: (block: BlockSummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- queries --------------------------------------------------------------------------------------------------

  get lastBlockId(): bigint {
    return this.blocks.at(-1)!.block.blockId;
  }

  private stored(blockId: bigint): StoredBlock | undefined {
    const index = blockId - GENESIS_BLOCK_ID;
    return index >= 0n && index < BigInt(this.blocks.length) ? this.blocks[Number(index)] : undefined;
  }

  block(blockId: bigint): LezBlock | undefined {
    return this.stored(blockId)?.block;
  }

  /** borsh(Block), what getBlock returns in base64. */
  blockBytes(blockId: bigint): Uint8Array | undefined {
    return this.stored(blockId)?.bytes;
  }

  account(id: Uint8Array): LezAccount {
    return this.ledger.get(id);
  }

  /** borsh(NSSATransaction) of an included transaction. */
  transactionBytes(hash: string): Uint8Array | undefined {
    return this.includedTxs.get(hash.toLowerCase())?.bytes;
  }

  receipt(hash: string): TransactionReceipt {
    return this.receipts.get(hash.toLowerCase()) ?? { status: 'unknown' };
  }

  get mempoolSize(): number {
    return this.mempool.size;
  }

  totalSupply(): bigint {
    return this.ledger.totalSupply();
  }
}
