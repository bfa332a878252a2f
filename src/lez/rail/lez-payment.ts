/**
 * One signed LEZ payment as the rail tracks it, and its two outside forms: the durable record (before
 * submission) and the receipt (for references). `fromRecord` is the way back after a restart; it trusts nothing
 * in the record it cannot recompute from the signed bytes.
 */
import { decodeBase64NssaTransaction, type MessageLayout, type ProgramId } from '../transaction.ts';
import { publicTransactionHashHex } from '../transaction.ts';
import { readNativeTransfer, type NativeTransfer } from '../native-transfer.ts';
import { verifyPublicTransactionSignatures, type SigningMode } from '../signing.ts';
import { formatU128Decimal } from '../json.ts';
import { RAIL_PAYMENT_RECORD_FORMAT, RAIL_PAYMENT_RECORD_VERSION, type RailPaymentRecord } from './payment-record.ts';
import type { TransferReceipt, TransferReceiptStatus } from './receipt.ts';

/** A transfer this rail signed for one payment. */
export interface SignedPayment extends NativeTransfer {
  paymentId: string;
  /** sha256(borsh(PublicTransaction)), lowercase hex. */
  txHash: string;
  /** base64(borsh(NSSATransaction)): the exact `sendTransaction` argument, resent byte for byte. */
  tx: string;
  signedAt: string;
}

export function toRecord(payment: SignedPayment, network: string): RailPaymentRecord {
  return {
    format: RAIL_PAYMENT_RECORD_FORMAT,
    version: RAIL_PAYMENT_RECORD_VERSION,
    rail: 'lez',
    network,
    paymentId: payment.paymentId,
    from: payment.from,
    to: payment.to,
    amount: formatU128Decimal(payment.amount),
    nonce: payment.nonce.toString(),
    txHash: payment.txHash,
    tx: payment.tx,
    signedAt: payment.signedAt,
    ...(payment.maxFee === undefined ? {} : { maxFee: formatU128Decimal(payment.maxFee) }),
  };
}

export function toReceipt(payment: SignedPayment, network: string, status: TransferReceiptStatus): TransferReceipt {
  return {
    rail: 'lez',
    network,
    txHash: payment.txHash,
    from: payment.from,
    to: payment.to,
    amount: formatU128Decimal(payment.amount),
    nonce: payment.nonce.toString(),
    status,
    ...(payment.maxFee === undefined ? {} : { maxFee: formatU128Decimal(payment.maxFee) }),
  };
}

export interface RecordContext {
  network: string;
  payer: string;
  programId: ProgramId;
  signingMode: SigningMode;
  layout: MessageLayout;
}

/**
 * A stored record back into a payment, if its bytes really are a transfer signed by our payer that says what the
 * record says. A record that fails here is never resubmitted: a corrupted or foreign record must not move money.
 */
export function fromRecord(
  record: RailPaymentRecord,
  context: RecordContext,
): { ok: true; payment: SignedPayment } | { ok: false; message: string } {
  if (record.rail !== 'lez') return { ok: false, message: `the record is for the ${record.rail} rail` };
  if (record.network !== context.network)
    return { ok: false, message: `the record is for network ${record.network}, this rail is on ${context.network}` };
  const decoded = decodeBase64NssaTransaction(record.tx, context.layout);
  if (!decoded.ok) return { ok: false, message: `the record's tx: ${decoded.reason}` };
  if (decoded.value.kind !== 'public') return { ok: false, message: "the record's tx is not a public transaction" };
  const transaction = decoded.value.transaction;
  if (publicTransactionHashHex(transaction) !== record.txHash)
    return { ok: false, message: "the record's txHash is not the hash of its tx" };
  const transfer = readNativeTransfer(transaction, context.programId);
  if (!transfer.ok) return { ok: false, message: `the record's tx: ${transfer.reason}` };
  if (!verifyPublicTransactionSignatures(transaction, context.signingMode)) {
    return { ok: false, message: `the record's tx is not validly signed (signing mode ${context.signingMode})` };
  }
  if (transfer.from !== context.payer)
    return { ok: false, message: `the record pays from ${transfer.from}, this rail pays from ${context.payer}` };
  const mismatch =
    transfer.to !== record.to
      ? 'to'
      : formatU128Decimal(transfer.amount) !== record.amount
        ? 'amount'
        : transfer.nonce.toString() !== record.nonce
          ? 'nonce'
          : record.maxFee !== undefined && record.maxFee !== formatU128Decimal(transfer.maxFee ?? 0n)
            ? 'maxFee'
            : undefined;
  if (mismatch) return { ok: false, message: `the record's ${mismatch} does not match its tx` };
  return {
    ok: true,
    payment: {
      paymentId: record.paymentId,
      from: transfer.from,
      to: transfer.to,
      amount: transfer.amount,
      nonce: transfer.nonce,
      txHash: record.txHash,
      tx: record.tx,
      signedAt: record.signedAt,
      ...(transfer.maxFee === undefined ? {} : { maxFee: transfer.maxFee }),
    },
  };
}
