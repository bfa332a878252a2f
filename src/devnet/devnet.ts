/**
 * `logos-a2a devnet`'s engine: a local LEZ sequencer emulator that speaks the real JSON-RPC (docs/lez.md §2), so
 * `SequencerClient` and anything built on it run against it unchanged.
 *
 * ```ts
 * const devnet = await startDevnet({ blockIntervalMs: 0 });   // 0: blocks only when asked
 * const client = new SequencerClient({ url: devnet.url });
 * // … sendTransaction …
 * devnet.produceBlock();
 * await devnet.stop();
 * ```
 *
 * State lives in memory, and with `dataDir` also on disk: a devnet started again on the same directory continues
 * the chain, having forgotten the tx hashes of earlier blocks as a restarted real sequencer has (block-log.ts).
 */
import { parseAccountId } from '../lez/account-id.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import { decodeBlock } from '../lez/block.ts';
import { stringifyJson } from '../lez/json.ts';
import { BlockLog } from './block-log.ts';
import { DevnetChain, type BlockSummary, type ChainConfig, type TransactionReceipt } from './chain.ts';
import { resolveGenesis, type GenesisAccount } from './genesis.ts';
import { listenRpcHttp } from './http-server.ts';
import { DevnetOptions } from './options.ts';
import { resolveProgramIds, type DevnetProgramIds } from './programs.ts';
import { handleRpcText } from './rpc.ts';

export { DEVNET_GENESIS, DEVNET_TESTNET_GENESIS, type DevnetGenesisKey } from './genesis.ts';
export type { BlockSummary, TransactionReceipt } from './chain.ts';
export type { DropReason, ExecutionFailure } from './failures.ts';
export type { DevnetOptions } from './options.ts';

export interface Devnet {
  /** e.g. http://127.0.0.1:40123: give it to `SequencerClient`. */
  url: string;
  host: string;
  port: number;
  programIds: DevnetProgramIds;
  genesis: readonly GenesisAccount[];
  /** Builds the next block now (also while the timer runs). Throws after stop(). */
  produceBlock(): BlockSummary;
  /** lee-v0.3 only: sets the base fees (execution, storage), as a busy market would move them. */
  setBaseFees(exec: bigint, stor: bigint): void;
  /** Called with every block; returns the unsubscribe function. */
  onBlock(listener: (block: BlockSummary) => void): () => void;
  /** Stops the block timer and the server, cutting open connections. Idempotent. */
  stop(): Promise<void>;
  /** The sequencer core, for anything the shortcuts below do not cover. */
  chain: DevnetChain;
  account(id: string | Uint8Array): LezAccount;
  balance(id: string | Uint8Array): bigint;
  nonce(id: string | Uint8Array): bigint;
  lastBlockId(): bigint;
  receipt(txHash: string): TransactionReceipt;
  mempoolSize(): number;
  totalSupply(): bigint;
}

function accountBytes(id: string | Uint8Array): Uint8Array {
  if (typeof id !== 'string') return id;
  const parsed = parseAccountId(id);
  if (!parsed.ok) throw new RangeError(`bad account id "${id}": ${parsed.reason}`);
  return parsed.id;
}

export async function startDevnet(input: DevnetOptions = {}): Promise<Devnet> {
  const options = DevnetOptions.parse(input);
  const log = options.log ?? (() => undefined);
  const programIds = resolveProgramIds(options.programIds);
  const genesis = resolveGenesis(options.genesis, options.debugAccounts, options.testnetAccounts);
  const config: ChainConfig = {
    profile: options.profile,
    transferGas: BigInt(options.transferGas),
    signingMode: options.signingMode,
    finalityDepth: options.finalityDepth,
    serveReceipts: options.receipts,
    admission: options.admission,
    limits: {
      maxTransactions: options.maxTransactionsPerBlock,
      maxBlockBytes: options.maxBlockBytes,
      holdFutureNonces: options.holdFutureNonces,
      nonceGapBlocks: options.nonceGapBlocks,
    },
    mempoolMaxSize: options.mempoolMaxSize,
    programIds,
    genesis,
    log,
    now: options.now ?? Date.now,
  };
  const chain = options.dataDir ? openStoredChain(options.dataDir, config) : new DevnetChain(config);

  const server = await listenRpcHttp({
    host: options.host,
    port: options.port,
    maxBodyBytes: options.maxBodyBytes,
    handle: (text) => handleRpcText(chain, text, log),
    log,
  }).catch((error: unknown) => {
    chain.close();
    throw error;
  });

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // A chain of timeouts, not an interval: a slow build never overlaps the next, and stop() has one handle to clear.
  const schedule = (): void => {
    if (stopped || options.blockIntervalMs === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      try {
        chain.produceBlock();
      } catch (error) {
        // Only a broken invariant throws; keep the evidence and stop building rather than build on it.
        log(`devnet: block production stopped: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      schedule();
    }, options.blockIntervalMs);
    // The server keeps a devnet process alive; the timer alone should not.
    timer.unref();
  };
  schedule();

  return {
    url: server.url,
    host: server.host,
    port: server.port,
    programIds,
    genesis: chain.config.genesis,
    chain,
    produceBlock: () => {
      if (stopped) throw new Error('the devnet is stopped');
      return chain.produceBlock();
    },
    setBaseFees: (exec, stor) => chain.setBaseFees(exec, stor),
    onBlock: (listener) => chain.onBlock(listener),
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await server.close();
      chain.close();
    },
    account: (id) => chain.account(accountBytes(id)),
    balance: (id) => chain.account(accountBytes(id)).balance,
    nonce: (id) => chain.account(accountBytes(id)).nonce,
    lastBlockId: () => chain.lastBlockId,
    receipt: (txHash) => chain.receipt(txHash),
    mempoolSize: () => chain.mempoolSize,
    totalSupply: () => chain.totalSupply(),
  };
}

/** The chain kept in `dir`: what defines it must match what is stored there (block-log.ts). */
function openStoredChain(dir: string, config: ChainConfig): DevnetChain {
  const identity = stringifyJson(
    {
      format: 'logos-a2a/devnet-chain',
      version: 1,
      signingMode: config.signingMode,
      // A chain kept before profiles existed is a v0.2 one, and opens as before.
      ...(config.profile === 'v0.2' ? {} : { profile: config.profile }),
      programIds: config.programIds,
      genesis: config.genesis.map((entry) => ({
        account: entry.account,
        balance: entry.balance,
        initialised: entry.initialised,
      })),
    },
    { bigints: 'string' },
  );
  const { log, stored } = BlockLog.open(dir, identity, (bytes) => decodeBlock(bytes, config.profile).ok);
  try {
    return new DevnetChain(config, { log, stored: stored.blocks });
  } catch (error) {
    log.close();
    throw error;
  }
}
