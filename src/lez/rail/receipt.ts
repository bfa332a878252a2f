/**
 * A rail's receipt for one transfer (`TransferReceipt`, docs/lez.md §7.5), and the reference `verify` accepts
 * (`TransferReference`: a receipt of which only the hash is required). What a refund receipt points back to.
 *
 * ```json
 * { "rail": "lez", "network": "<sequencer URL or chain label>", "txHash": "<64 hex>",
 *   "from": "<account>", "to": "<account>", "amount": "<u128 decimal>", "nonce": "<decimal>",
 *   "status": "submitted|included|refunded", "refundOf": "<txHash>"? }
 * ```
 *
 * Amounts and nonces are decimal strings, never JS numbers (u128). `txHash` is the dedup key. The memory rail uses
 * the same shape with `rail: "memory"`. Not to be confused with the payment reference on the wire between gateway
 * and agent (`WirePaymentReference`, logos/envelope.ts, snake_case), nor with a task's receipt in `metadata.lez`
 * (`TaskReceipt`, bridge/task-metadata.ts).
 */
import { z } from 'zod';
import { formatU128Decimal, parseU128Decimal, U128Decimal } from '../json.ts';
import { TxHash } from '../tx-hash.ts';

export const RAIL_KINDS = ['lez', 'memory'] as const;
export type RailKind = (typeof RAIL_KINDS)[number];

/** `submitted`: sent, not yet seen in a block. `included`: in a block. `refunded`: the payee paid it back. */
export const TRANSFER_RECEIPT_STATUSES = ['submitted', 'included', 'refunded'] as const;
export type TransferReceiptStatus = (typeof TRANSFER_RECEIPT_STATUSES)[number];

/** A rail's receipt for one transfer. */
export interface TransferReceipt {
  rail: RailKind;
  network: string;
  txHash: string;
  from: string;
  to: string;
  amount: string;
  nonce: string;
  status: TransferReceiptStatus;
  /** Set on a refund: the hash of the payment it gives back. */
  refundOf?: string;
  /** On a chain with fees: the max_fee the transfer declared, the most its fee took beyond `amount`. */
  maxFee?: string;
}

// Accounts stay loosely typed here: base58 on the LEZ rail, any label on the memory rail. Each rail checks its own.
const Account = z.string().min(1).max(128);
const Decimal = U128Decimal.transform(formatU128Decimal);

export const TransferReceiptSchema = z.object({
  rail: z.enum(RAIL_KINDS),
  network: z.string().min(1).max(512),
  txHash: TxHash,
  from: Account,
  to: Account,
  amount: Decimal,
  nonce: Decimal,
  status: z.enum(TRANSFER_RECEIPT_STATUSES),
  refundOf: TxHash.optional(),
  maxFee: Decimal.optional(),
}) satisfies z.ZodType<TransferReceipt, unknown>;

/**
 * What a verifier may be handed: at least the hash. Every other field, when present, must match what the chain
 * says, so a reference cannot claim more than its transaction pays.
 */
export const TransferReferenceSchema = TransferReceiptSchema.partial().required({ txHash: true });
export type TransferReference = z.infer<typeof TransferReferenceSchema>;

/** An amount as callers hand it in: a bigint or the decimal string of a price. Never throws. */
export function parseAmount(amount: bigint | string): { ok: true; value: bigint } | { ok: false; reason: string } {
  if (typeof amount === 'string') return parseU128Decimal(amount);
  if (amount < 0n || amount >= 1n << 128n) return { ok: false, reason: 'not a u128' };
  return { ok: true, value: amount };
}
