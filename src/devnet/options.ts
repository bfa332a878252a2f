/**
 * Everything `startDevnet` can be told, as one zod schema with the defaults. Bad options are a configuration
 * error and throw with zod's message naming the option.
 */
import { z } from 'zod';
import { PROTOCOL_PROFILES } from '../lez/protocol-profile.ts';
import { SIGNING_MODES } from '../lez/signing.ts';
import { ADMISSION_MODES } from './chain.ts';
import { GenesisAccountInput } from './genesis.ts';
import { PROGRAM_NAMES } from './programs.ts';

const programId = z.array(z.number().int().min(0).max(0xffff_ffff)).length(8);

export const DevnetOptions = z
  .object({
    /** 0 picks a free port. The real sequencer's default is 3040. */
    port: z.number().int().min(0).max(65535).default(0),
    host: z.string().min(1).default('127.0.0.1'),
    /** Time between blocks (the real debug config: 15 s). 0: no timer, blocks only from `produceBlock()`. */
    blockIntervalMs: z.number().int().min(0).default(1000),
    /**
     * The protocol: `v0.2` as the public testnet today (no fees; a transfer to an account never initialised is
     * dropped), `lee-v0.3` as the fees revision (getFeeState, signed fee declarations, admission errors; docs/lez.md §10).
     */
    profile: z.enum(PROTOCOL_PROFILES).default('v0.2'),
    /** lee-v0.3: the gas metered for a native transfer (the fee is this × the base fee, plus bytes × the storage fee). */
    transferGas: z.number().int().min(0).default(10_000),
    /** What signatures must sign: `prehash-v0.3` as on LEZ `main`, `raw-borsh` as up to v0.2.0-rc3 (docs/lez.md §3). */
    signingMode: z.enum(SIGNING_MODES).default('prehash-v0.3'),
    /** `sequencer`: admit like the real one, drop failures at block time. `strict`: also refuse them at once (chain.ts). */
    admission: z.enum(ADMISSION_MODES).default('sequencer'),
    maxTransactionsPerBlock: z.number().int().positive().default(10_000),
    /** A block's borsh size cap (the debug config's 1 MiB); a transaction may use it all but 200 bytes. */
    maxBlockBytes: z
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    mempoolMaxSize: z.number().int().positive().default(10_000),
    /** Devnet-only: hold a transaction whose nonce is ahead for its turn instead of dropping it (block-builder.ts). */
    holdFutureNonces: z.boolean().default(false),
    /** With holdFutureNonces: extra block builds such a transaction waits before it is dropped. */
    nonceGapBlocks: z.number().int().min(0).default(0),
    /** A block is Finalized once this many blocks follow it. */
    finalityDepth: z.number().int().min(0).default(2),
    /** Serve the devnet-only `getTransactionReceipt` method (rpc-methods.ts). */
    receipts: z.boolean().default(false),
    /** Keep the chain in this directory and continue it at the next start (block-log.ts). */
    dataDir: z.string().min(1).optional(),
    /** The real sequencer's body limit: 10 MiB. */
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024),
    /** Fund the two debug genesis accounts (DEVNET_GENESIS). */
    debugAccounts: z.boolean().default(true),
    /** Fund the two testnet initial accounts (DEVNET_TESTNET_GENESIS), as a real debug sequencer on `main` does. */
    testnetAccounts: z.boolean().default(false),
    /** Further funded (or unfunded, uninitialised) accounts at genesis. */
    genesis: z.array(GenesisAccountInput).default([]),
    /** Pin program ids, e.g. to a real deployment's image ids; the others keep their devnet stand-ins. */
    programIds: z.partialRecord(z.enum(PROGRAM_NAMES), programId).default({}),
    /** Where dropped transactions and block summaries are reported; silent by default. */
    log: z.custom<(line: string) => void>((value) => typeof value === 'function', 'log must be a function').optional(),
    /** The clock behind block timestamps (ms); tests may pin it. */
    now: z.custom<() => number>((value) => typeof value === 'function', 'now must be a function').optional(),
  })
  .strict();

export type DevnetOptions = z.input<typeof DevnetOptions>;
