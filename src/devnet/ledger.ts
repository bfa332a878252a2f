/**
 * The devnet's state: account id → account, and the private state privacy-preserving transactions leave (the
 * commitments and nullifiers, and how much of the supply is held privately). In memory; a devnet kept on disk
 * rebuilds it by replaying its blocks (block-log.ts).
 *
 * Accounts are stored as frozen values and replaced, never edited, so a clone is a cheap copy of the map: block
 * building works on a clone and commits it only once the block is known good (see chain.ts).
 */
import { toHex } from '../lez/bytes.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import type { ProgramId } from '../lez/transaction.ts';

export const DEFAULT_PROGRAM_OWNER: ProgramId = Object.freeze([0, 0, 0, 0, 0, 0, 0, 0]);

const DEFAULT_ACCOUNT: LezAccount = Object.freeze({
  programOwner: DEFAULT_PROGRAM_OWNER,
  balance: 0n,
  data: new Uint8Array(0),
  nonce: 0n,
});

/** What an id no one has touched holds (LEZ's `Account::default()`). */
export function defaultAccount(): LezAccount {
  return DEFAULT_ACCOUNT;
}

export function isDefaultOwner(owner: ProgramId): boolean {
  return owner.every((word) => word === 0);
}

/** `Account::default()` in full: unowned, empty, no balance, nonce 0. */
export function isDefaultAccount(account: LezAccount): boolean {
  return (
    isDefaultOwner(account.programOwner) &&
    account.balance === 0n &&
    account.nonce === 0n &&
    account.data.byteLength === 0
  );
}

export function accountsEqual(a: LezAccount, b: LezAccount): boolean {
  return (
    a.balance === b.balance &&
    a.nonce === b.nonce &&
    a.programOwner.every((word, i) => word === b.programOwner[i]) &&
    a.data.byteLength === b.data.byteLength &&
    a.data.every((byte, i) => byte === b.data[i])
  );
}

/** Read access, which is all execution needs. */
export interface AccountView {
  get(id: Uint8Array): LezAccount;
}

export interface AccountWrite {
  id: Uint8Array;
  account: LezAccount;
}

/** What a privacy-preserving transaction adds to the private state (execute-private.ts). */
export interface PrivateWrites {
  commitments: readonly Uint8Array[];
  nullifiers: readonly Uint8Array[];
  /** How much moved from public balances into private accounts (negative when deshielded). */
  shielded: bigint;
}

export class Ledger implements AccountView {
  private readonly accounts: Map<string, LezAccount>;
  private readonly commitments: Set<string>;
  private readonly nullifiers: Set<string>;
  /** The supply held in private accounts: only the net of what entered and left them is known. */
  private shieldedSupply: bigint;

  constructor(
    accounts: Map<string, LezAccount> = new Map(),
    commitments = new Set<string>(),
    nullifiers = new Set<string>(),
    shieldedSupply = 0n,
  ) {
    this.accounts = accounts;
    this.commitments = commitments;
    this.nullifiers = nullifiers;
    this.shieldedSupply = shieldedSupply;
  }

  hasCommitment(commitment: Uint8Array): boolean {
    return this.commitments.has(toHex(commitment));
  }

  hasNullifier(nullifier: Uint8Array): boolean {
    return this.nullifiers.has(toHex(nullifier));
  }

  get shielded(): bigint {
    return this.shieldedSupply;
  }

  applyPrivate(writes: PrivateWrites): void {
    for (const commitment of writes.commitments) this.commitments.add(toHex(commitment));
    for (const nullifier of writes.nullifiers) this.nullifiers.add(toHex(nullifier));
    this.shieldedSupply += writes.shielded;
  }

  get(id: Uint8Array): LezAccount {
    return this.accounts.get(toHex(id)) ?? DEFAULT_ACCOUNT;
  }

  apply(writes: readonly AccountWrite[]): void {
    for (const { id, account } of writes) {
      this.accounts.set(
        toHex(id),
        Object.freeze({ ...account, programOwner: Object.freeze([...account.programOwner]) }),
      );
    }
  }

  clone(): Ledger {
    return new Ledger(new Map(this.accounts), new Set(this.commitments), new Set(this.nullifiers), this.shieldedSupply);
  }

  /** Every public balance and the private supply: constant from genesis on, since transfers only move tokens. */
  totalSupply(): bigint {
    let total = this.shieldedSupply;
    for (const account of this.accounts.values()) total += account.balance;
    return total;
  }
}
