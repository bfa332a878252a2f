/**
 * The rail-independent half of verifying a transfer (docs/lez.md §7.3): parse the reference, ask the rail what the
 * transaction really does, compare that with what is expected and with what the reference claims, then claim
 * the hash so it cannot pay for two things. Each rail supplies only `lookup`: how to read one transaction.
 */
import { formatU128Decimal } from '../json.ts';
import type {
  VerifyExpectation,
  VerifyOutcome,
  VerifyRefundOutcome,
  VerifyRejection,
  VerifyUncertainty,
} from './payment-rail.ts';
import {
  parseAmount,
  TransferReferenceSchema,
  type TransferReceipt,
  type TransferReference,
  type RailKind,
} from './receipt.ts';
import { TxHash } from '../tx-hash.ts';
import type { UsedTxHashes } from './used-tx-hashes.ts';
import type { NativeTransfer } from '../native-transfer.ts';

/** What an included transfer does, as read from the chain (or the memory ledger). */
export interface TransferFacts extends NativeTransfer {
  txHash: string;
}

export type TransferLookup =
  | { kind: 'found'; facts: TransferFacts }
  | { kind: 'rejected'; reason: VerifyRejection; message: string }
  | { kind: 'unconfirmed'; reason: VerifyUncertainty; message: string };

export interface VerifierContext {
  rail: RailKind;
  network: string;
  usedTxHashes: UsedTxHashes;
  /** The rail's account syntax; a reason when `text` is not an account on this rail. */
  checkAccount(text: string): string | undefined;
  lookup(txHash: string): Promise<TransferLookup>;
}

const reject = (reason: VerifyRejection, message: string): VerifyOutcome => ({ kind: 'rejected', reason, message });

export async function verifyTransfer(
  context: VerifierContext,
  ref: TransferReference | string,
  expect: VerifyExpectation,
): Promise<VerifyOutcome> {
  const parsedRef = TransferReferenceSchema.safeParse(typeof ref === 'string' ? { txHash: ref } : ref);
  if (!parsedRef.success)
    return reject('invalid-reference', `bad payment reference: ${parsedRef.error.issues[0]?.message ?? 'invalid'}`);
  const reference = parsedRef.data;
  if (reference.rail !== undefined && reference.rail !== context.rail) {
    return reject('wrong-rail', `the reference is on the ${reference.rail} rail, this is the ${context.rail} rail`);
  }
  if (reference.network !== undefined && reference.network !== context.network) {
    return reject('wrong-rail', `the reference is on network ${reference.network}, this rail is on ${context.network}`);
  }

  const amount = parseAmount(expect.amount);
  if (!amount.ok) return reject('invalid-request', `expected amount: ${amount.reason}`);
  for (const account of [expect.to, ...(expect.from === undefined ? [] : [expect.from])]) {
    const problem = context.checkAccount(account);
    if (problem) return reject('invalid-request', `expected account ${account}: ${problem}`);
  }

  const found = await context.lookup(reference.txHash);
  if (found.kind !== 'found') return found;
  const facts = found.facts;

  if (expect.from !== undefined && facts.from !== expect.from) {
    return reject('wrong-payer', `transaction ${facts.txHash} is paid by ${facts.from}, expected ${expect.from}`);
  }
  if (facts.to !== expect.to)
    return reject('wrong-payee', `transaction ${facts.txHash} pays ${facts.to}, expected ${expect.to}`);
  if (facts.amount !== amount.value) {
    return reject('wrong-amount', `transaction ${facts.txHash} pays ${facts.amount}, expected exactly ${amount.value}`);
  }
  // A reference that claims more than its transaction does is not taken at its word for the rest either.
  const claims: [keyof TransferReference, string | undefined, string][] = [
    ['from', reference.from, facts.from],
    ['to', reference.to, facts.to],
    ['amount', reference.amount, formatU128Decimal(facts.amount)],
    ['nonce', reference.nonce, facts.nonce.toString()],
  ];
  for (const [field, claimed, actual] of claims) {
    if (claimed !== undefined && claimed !== actual) {
      return reject('reference-mismatch', `the reference says ${field} ${claimed}, the transaction has ${actual}`);
    }
  }

  if (expect.purpose !== undefined) {
    const claim = await context.usedTxHashes.claim(facts.txHash, expect.purpose);
    if (claim.kind === 'taken')
      return reject('reused', `transaction ${facts.txHash} was already accepted for ${claim.claimedFor}`);
  }

  const receipt: TransferReceipt = {
    rail: context.rail,
    network: context.network,
    txHash: facts.txHash,
    from: facts.from,
    to: facts.to,
    amount: formatU128Decimal(facts.amount),
    nonce: facts.nonce.toString(),
    status: 'included',
  };
  return { kind: 'verified', receipt };
}

/**
 * A refund is a new transfer from the original payee back to the original payer. It is claimed under
 * `refund:<original hash>`, so one refund cannot settle two payments, nor be passed off as a payment.
 */
export async function verifyRefundTransfer(
  context: VerifierContext,
  original: TransferReceipt,
  refundTxHash: string,
  options: { amount?: bigint | string } = {},
): Promise<VerifyRefundOutcome> {
  const originalHash = TxHash.safeParse(original.txHash);
  if (!originalHash.success)
    return reject('invalid-reference', 'the original payment has no valid tx hash') as VerifyRefundOutcome;
  if (original.rail !== context.rail) {
    return reject('wrong-rail', `the original payment is on the ${original.rail} rail`) as VerifyRefundOutcome;
  }
  const outcome = await verifyTransfer(context, refundTxHash, {
    from: original.to,
    to: original.from,
    amount: options.amount ?? original.amount,
    purpose: `refund:${originalHash.data}`,
  });
  if (outcome.kind !== 'verified') return outcome;
  return {
    kind: 'verified',
    refund: { ...outcome.receipt, refundOf: originalHash.data },
    original: { ...original, status: 'refunded' },
  };
}
