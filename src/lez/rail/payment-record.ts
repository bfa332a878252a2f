/**
 * The rail's payment record (`RailPaymentRecord`), the durability hook's unit: what a rail hands its caller (through
 * `onSigned`) BEFORE a signed transfer is first submitted, and what `resume` takes back after a restart. (The
 * gateway keeps it inside its own record of paying for a task, `TaskPaymentRecord` in store/payment-store.ts.) The rail owns no storage; the caller keeps this record
 * next to whatever the payment is for (the task), so a gateway killed between recording and submitting, or
 * between submitting and inclusion, can finish the payment exactly once: `resume(record)` looks on chain and
 * resubmits the very same bytes if they have not landed, and never signs anything new.
 *
 * ```json
 * { "format": "logos-a2a/rail-payment", "version": 1,
 *   "rail": "lez", "network": "http://127.0.0.1:3040", "paymentId": "task:…",
 *   "from": "<payer account>", "to": "<payee account>", "amount": "150", "nonce": "7",
 *   "txHash": "<64 hex: sha256(borsh(PublicTransaction))>",
 *   "tx": "<base64(borsh(NSSATransaction)): exactly what sendTransaction takes>",
 *   "signedAt": "2026-05-06T10:00:00.000Z" }
 * ```
 *
 * Rules for the caller:
 * - Store the record before `onSigned` returns; if storing fails, throw: the rail then submits nothing.
 * - A payment may be signed more than once only when an earlier signature provably never reached the sequencer
 *   (see nonce-pipeline.ts); each `onSigned` call for a `paymentId` supersedes the previous record.
 * - When `pay` answers `failed`, any record it produced is void (nothing of it can land unless you resubmit it).
 *   When it answers `in-doubt`, keep the record and `resume` it later.
 * - After a restart, `resume` every unresolved record (together, in any order) before paying anything new.
 */
import { z } from 'zod';
import { RAIL_KINDS, type RailKind } from './receipt.ts';
import { TxHash } from '../tx-hash.ts';
import { formatU128Decimal, U128Decimal } from '../json.ts';

export const RAIL_PAYMENT_RECORD_FORMAT = 'logos-a2a/rail-payment';
export const RAIL_PAYMENT_RECORD_VERSION = 1;

export interface RailPaymentRecord {
  format: typeof RAIL_PAYMENT_RECORD_FORMAT;
  version: typeof RAIL_PAYMENT_RECORD_VERSION;
  rail: RailKind;
  network: string;
  paymentId: string;
  from: string;
  to: string;
  amount: string;
  nonce: string;
  txHash: string;
  tx: string;
  signedAt: string;
  /**
   * On a chain with fees: the max_fee the signed transfer declares, the most it may cost beyond `amount`. Written so
   * the gateway's spending sums can count it without decoding `tx`; checked against `tx` when the record is resumed.
   */
  maxFee?: string;
}

const Decimal = U128Decimal.transform(formatU128Decimal);

export const RailPaymentRecordSchema = z.object({
  format: z.literal(RAIL_PAYMENT_RECORD_FORMAT),
  version: z.literal(RAIL_PAYMENT_RECORD_VERSION),
  rail: z.enum(RAIL_KINDS),
  network: z.string().min(1).max(512),
  paymentId: z.string().min(1).max(256),
  from: z.string().min(1).max(128),
  to: z.string().min(1).max(128),
  amount: Decimal,
  nonce: Decimal,
  txHash: TxHash,
  // 1 MiB of base64 is far above any transfer; the bound keeps a corrupted record from being huge.
  tx: z
    .string()
    .min(4)
    .max(1 << 20)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'tx must be standard base64'),
  signedAt: z.iso.datetime(),
  maxFee: Decimal.optional(),
}) satisfies z.ZodType<RailPaymentRecord, unknown>;

/** Called with each record before its bytes are first submitted. May be sync or async; throwing stops the payment. */
export type OnSigned = (record: RailPaymentRecord) => void | Promise<void>;

/** A record as it comes back from storage (any JSON). Never throws. */
export function parseRailPaymentRecord(
  input: unknown,
): { ok: true; record: RailPaymentRecord } | { ok: false; message: string } {
  const parsed = RailPaymentRecordSchema.safeParse(input);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  return { ok: false, message: `not a payment record${where}: ${issue?.message ?? 'invalid'}` };
}
