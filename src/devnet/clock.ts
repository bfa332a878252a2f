/**
 * The clock transaction that ends every block on LEZ `main` (`common/src/transaction.rs::clock_invocation`, the
 * clock program of `program_methods/guest/src/bin/clock.rs`; docs/lez.md §3.9):
 *
 * - a public transaction of the clock program over its three accounts (ids: the 32 ASCII bytes
 *   `/LEZ/ClockProgramAccount/0000001`, `…0000010`, `…0000050`), no nonces, no witnesses, and the block's
 *   timestamp as instruction (a u64 in risc0 serde: two little-endian u32 words);
 * - it writes `borsh(ClockAccountData { block_id u64, timestamp u64 })` into the first account every block, the
 *   second every 10th block, the third every 50th. The accounts belong to the clock program from genesis.
 *
 * Only the sequencer invokes it: a submitted transaction calling the clock program fails (unknown program here).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshWriter } from '../lez/borsh.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import {
  encodeNssaTransaction,
  programIdEquals,
  type MessageLayout,
  type ProgramId,
  type PublicTransaction,
} from '../lez/transaction.ts';
import type { AccountWrite, AccountView } from './ledger.ts';

/** The clock accounts, each updated when the block id is a multiple of its period. */
const CLOCK_ACCOUNTS = [1n, 10n, 50n].map((period) => ({
  period,
  id: new TextEncoder().encode(`/LEZ/ClockProgramAccount/${period.toString().padStart(7, '0')}`),
}));

/** A stand-in image id for the clock program, made like the devnet's other ones (programs.ts). */
export const DEVNET_CLOCK_PROGRAM_ID: ProgramId = (() => {
  const digest = new DataView(sha256(new TextEncoder().encode('logos-a2a/devnet/program/clock')).buffer);
  return Object.freeze(Array.from({ length: 8 }, (_, i) => digest.getUint32(i * 4, true)));
})();

function clockData(blockId: bigint, timestampMs: bigint): Uint8Array {
  return new BorshWriter().u64(blockId).u64(timestampMs).finish();
}

/** The clock accounts as genesis creates them: owned by the clock program, at block `genesisBlockId`. */
export function genesisClockAccounts(genesisBlockId: bigint): AccountWrite[] {
  return CLOCK_ACCOUNTS.map(({ id }) => ({
    id,
    account: { programOwner: DEVNET_CLOCK_PROGRAM_ID, balance: 0n, data: clockData(genesisBlockId, 0n), nonce: 0n },
  }));
}

/** The block's clock transaction, as borsh(NSSATransaction). */
export function clockTransaction(
  timestampMs: bigint,
  layout: MessageLayout,
): { transaction: PublicTransaction; bytes: Uint8Array } {
  const base = { programId: DEVNET_CLOCK_PROGRAM_ID, accountIds: CLOCK_ACCOUNTS.map(({ id }) => id), nonces: [] };
  const transaction: PublicTransaction = {
    // A system transaction: fee-exempt (`fee: None`) where messages carry fees; the timestamp as the program's
    // instruction (u64: two risc0 words, or 8 borsh bytes).
    message:
      layout === 'v0.2'
        ? { ...base, instructionData: [Number(timestampMs & 0xffff_ffffn), Number(timestampMs >> 32n)] }
        : { ...base, instructionData: [...new BorshWriter().u64(timestampMs).finish()], fee: null },
    witnesses: [],
  };
  return { transaction, bytes: encodeNssaTransaction({ kind: 'public', transaction }) };
}

/** What the clock transaction of block `blockId` writes. */
export function runClock(state: AccountView, blockId: bigint, timestampMs: bigint): AccountWrite[] {
  const data = clockData(blockId, timestampMs);
  return CLOCK_ACCOUNTS.filter(({ period }) => blockId % period === 0n).map(({ id }) => {
    const account: LezAccount = { ...state.get(id), data };
    return { id, account };
  });
}

/** Whether a public transaction is a clock transaction (when a stored chain is replayed). */
export function isClockTransaction(transaction: PublicTransaction): boolean {
  return programIdEquals(transaction.message.programId, DEVNET_CLOCK_PROGRAM_ID);
}
