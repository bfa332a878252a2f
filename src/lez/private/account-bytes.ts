/**
 * A LEZ account in the two byte forms private payments use (docs/lez.md §11.2):
 *
 * ```
 * plain (Account::to_bytes, a note's plaintext) = program_owner [u32; 8] ‖ balance u128 ‖ nonce u128 ‖ data_len u32 ‖ data
 * borsh (a public post-state in a message)      = program_owner [u32; 8] ‖ balance u128 ‖ data Vec<u8> ‖ nonce u128
 * ```
 *
 * The two orders differ (nonce before data, or after): LEZ writes the first by hand and derives the second. Data
 * is at most 100 KiB in both (`DATA_MAX_LENGTH`).
 */
import { BorshDecodeError, type BorshReader, type BorshWriter } from '../borsh.ts';
import type { LezAccount } from '../sequencer-client.ts';

export const ACCOUNT_DATA_MAX_BYTES = 100 * 1024;

function writeHead(w: BorshWriter, account: LezAccount): void {
  if (account.programOwner.length !== 8) throw new RangeError('a program owner is 8 u32 words');
  for (const word of account.programOwner) w.u32(word);
  w.u128(account.balance);
}

function readHead(r: BorshReader): Pick<LezAccount, 'programOwner' | 'balance'> {
  const programOwner: number[] = [];
  for (let i = 0; i < 8; i++) programOwner.push(r.u32('program_owner'));
  return { programOwner, balance: r.u128('balance') };
}

function readData(r: BorshReader): Uint8Array {
  const length = r.u32('data length');
  if (length > ACCOUNT_DATA_MAX_BYTES)
    throw new BorshDecodeError(`data: ${length} bytes, above the ${ACCOUNT_DATA_MAX_BYTES} an account may hold`);
  return r.fixedBytes(length, 'data');
}

export function writeAccountPlain(w: BorshWriter, account: LezAccount): void {
  writeHead(w, account);
  w.u128(account.nonce);
  w.bytes(account.data);
}

export function readAccountPlain(r: BorshReader): LezAccount {
  const head = readHead(r);
  const nonce = r.u128('nonce');
  return { ...head, nonce, data: readData(r) };
}

export function writeAccountBorsh(w: BorshWriter, account: LezAccount): void {
  writeHead(w, account);
  w.bytes(account.data);
  w.u128(account.nonce);
}

export function readAccountBorsh(r: BorshReader): LezAccount {
  const head = readHead(r);
  const data = readData(r);
  return { ...head, data, nonce: r.u128('nonce') };
}

/** The smallest borsh account: 32 + 16 + 4 + 16 bytes. */
export const MIN_ACCOUNT_BORSH_BYTES = 68;
