/**
 * An in-process ledger with LEZ's rules for public native transfers (docs/lez.md §3), for the MemoryRail: balances,
 * one nonce per sender that must match and then goes up by one, a recipient that must be initialised, no
 * overdraft. Transactions are serialised as JSON (no signatures: every account here is trusted in-process) and
 * hashed with SHA-256, so references and records have the same shape as on the LEZ rail.
 */
import { base64 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod';
import { toHex } from '../bytes.ts';
import { parseJson, stringifyJson, U128Decimal } from '../json.ts';
import type { NativeTransfer } from '../native-transfer.ts';

export interface IncludedMemoryTransfer extends NativeTransfer {
  txHash: string;
  /** Position in the ledger: the n-th transaction applied. */
  sequence: number;
}

export type ApplyOutcome =
  | { kind: 'applied'; transfer: IncludedMemoryTransfer }
  | {
      kind: 'refused';
      reason: 'insufficient-funds' | 'payee-uninitialised' | 'bad-nonce' | 'invalid-request';
      message: string;
    };

interface AccountState {
  balance: bigint;
  nonce: bigint;
  initialised: boolean;
}

const MemoryTransferJson = z.object({
  kind: z.literal('memory-transfer'),
  from: z.string().min(1),
  to: z.string().min(1),
  amount: U128Decimal,
  nonce: U128Decimal,
});

/** The signed-transaction stand-in: base64 of canonical JSON, and its hash. */
export function encodeMemoryTransfer(transfer: NativeTransfer): { tx: string; txHash: string } {
  const json = stringifyJson({ kind: 'memory-transfer', ...transfer }, { bigints: 'string' });
  const bytes = new TextEncoder().encode(json);
  return { tx: base64.encode(bytes), txHash: toHex(sha256(bytes)) };
}

export function decodeMemoryTransfer(
  tx: string,
): { ok: true; transfer: NativeTransfer; txHash: string } | { ok: false; message: string } {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(tx);
  } catch {
    return { ok: false, message: 'tx is not base64' };
  }
  const json = parseJson(new TextDecoder().decode(bytes));
  const parsed = json.ok ? MemoryTransferJson.safeParse(json.value) : undefined;
  if (!parsed?.success) return { ok: false, message: 'tx is not a memory transfer' };
  const { from, to, amount, nonce } = parsed.data;
  return { ok: true, transfer: { from, to, amount, nonce }, txHash: toHex(sha256(bytes)) };
}

export class MemoryLedger {
  private readonly accounts = new Map<string, AccountState>();
  private readonly transactions = new Map<string, IncludedMemoryTransfer>();

  private state(account: string): AccountState {
    return this.accounts.get(account) ?? { balance: 0n, nonce: 0n, initialised: false };
  }

  /** Test setup: mints `amount` into an account and initialises it (as genesis accounts are). */
  fund(account: string, amount: bigint): void {
    const state = this.state(account);
    this.accounts.set(account, { ...state, balance: state.balance + amount, initialised: true });
  }

  /** `wallet auth-transfer init`: lets others pay this account. */
  initialise(account: string): void {
    this.accounts.set(account, { ...this.state(account), initialised: true });
  }

  balanceOf(account: string): bigint {
    return this.state(account).balance;
  }

  nonceOf(account: string): bigint {
    return this.state(account).nonce;
  }

  isInitialised(account: string): boolean {
    return this.state(account).initialised;
  }

  /** Every transfer applied, oldest first. */
  transfers(): IncludedMemoryTransfer[] {
    return [...this.transactions.values()];
  }

  transaction(txHash: string): IncludedMemoryTransfer | undefined {
    return this.transactions.get(txHash.toLowerCase());
  }

  /** Applies a transfer all or nothing, as a LEZ block applies one transaction. */
  apply(transfer: NativeTransfer): ApplyOutcome {
    const { from, to, amount, nonce } = transfer;
    if (from === to)
      return { kind: 'refused', reason: 'invalid-request', message: 'sender and recipient are the same account' };
    if (amount <= 0n)
      return { kind: 'refused', reason: 'invalid-request', message: 'a transfer amount must be positive' };
    const sender = this.state(from);
    const recipient = this.state(to);
    if (nonce !== sender.nonce)
      return {
        kind: 'refused',
        reason: 'bad-nonce',
        message: `nonce ${nonce} is not ${from}'s current nonce ${sender.nonce}`,
      };
    if (!recipient.initialised)
      return { kind: 'refused', reason: 'payee-uninitialised', message: `account ${to} is not initialised` };
    if (sender.balance < amount) {
      return {
        kind: 'refused',
        reason: 'insufficient-funds',
        message: `${from} holds ${sender.balance}, the transfer needs ${amount}`,
      };
    }
    const { txHash } = encodeMemoryTransfer(transfer);
    this.accounts.set(from, { ...sender, balance: sender.balance - amount, nonce: sender.nonce + 1n });
    this.accounts.set(to, { ...recipient, balance: recipient.balance + amount });
    const included = { ...transfer, txHash, sequence: this.transactions.size + 1 };
    this.transactions.set(txHash, included);
    return { kind: 'applied', transfer: included };
  }
}
