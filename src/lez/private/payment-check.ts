/**
 * "Does transaction H pay this receiver at least N, privately?" (docs/payments.md §10): the check a paid agent makes
 * before it works for a payment into its private account. The transaction is read by hash from the sequencer, which
 * returns only included, executed ones; its notes are read with the receiver's viewing key (receive.ts).
 *
 * Accepted: a note that creates a new private account of this receiver holding at least the amount, in a
 * transaction signed by the public account the reference names as payer (a shielded transfer from it: a refund goes
 * back there, publicly). Not accepted: a note updating an account the receiver already held (its balance is not
 * what this transaction paid), and private-to-private payments, which have no public payer to refund.
 */
import { formatAccountId, publicAccountId } from '../account-id.ts';
import { sequencerProblem, type SequencerApi } from '../rail/sequencer-api.ts';
import { notesFor, type PrivateReceiveKeys, type ReceivedNote } from './receive.ts';
import { decodePrivacyPreservingTransaction, verifyPrivacyPreservingSignatures } from './transaction.ts';

export type PrivatePaymentCheck =
  | { kind: 'verified'; note: ReceivedNote }
  /** A public transaction: the caller checks it as a public transfer. */
  | { kind: 'not-private' }
  | { kind: 'rejected'; message: string }
  /** Not decidable now: the sequencer is away, or the transaction is not included (yet). */
  | { kind: 'unconfirmed'; message: string };

export async function checkPrivatePayment(
  sequencer: Pick<SequencerApi, 'getTransaction'>,
  txHash: string,
  keys: PrivateReceiveKeys,
  expect: { from: string; amount: bigint },
): Promise<PrivatePaymentCheck> {
  const fetched = await sequencer.getTransaction(txHash);
  if (fetched.kind !== 'result') return { kind: 'unconfirmed', message: sequencerProblem(fetched).message };
  if (fetched.value === null)
    return { kind: 'unconfirmed', message: `transaction ${txHash} is not included (yet) on the sequencer` };
  const { transaction } = fetched.value;
  if (transaction.kind !== 'privacy-preserving') return { kind: 'not-private' };
  const decoded = decodePrivacyPreservingTransaction(transaction.body);
  if (!decoded.ok) return { kind: 'rejected', message: `transaction ${txHash} cannot be read: ${decoded.reason}` };
  const tx = decoded.value;
  if (!verifyPrivacyPreservingSignatures(tx))
    return { kind: 'rejected', message: `transaction ${txHash} carries a signature that does not verify` };

  const signers = tx.witnesses.map((witness) => formatAccountId(publicAccountId(witness.publicKey)));
  if (!signers.includes(expect.from)) {
    return {
      kind: 'rejected',
      message:
        signers.length === 0
          ? `transaction ${txHash} has no public payer (a private-to-private transfer); this agent takes shielded transfers from a public account, which it can refund`
          : `transaction ${txHash} is not signed by ${expect.from} (its signers: ${signers.join(', ')})`,
    };
  }
  const notes = notesFor(tx, keys);
  if (notes.length === 0)
    return { kind: 'rejected', message: `transaction ${txHash} holds no note for this agent's private keys` };
  const paying = notes.find((note) => note.fresh && note.account.balance >= expect.amount);
  if (paying) return { kind: 'verified', note: paying };
  const fresh = notes.filter((note) => note.fresh);
  if (fresh.length === 0) {
    return {
      kind: 'rejected',
      message: `transaction ${txHash} only updates a private account this agent already holds; pay into a new one (a new --to-identifier)`,
    };
  }
  const best = fresh.reduce((a, b) => (b.account.balance > a.account.balance ? b : a));
  return {
    kind: 'rejected',
    message: `transaction ${txHash} pays ${best.account.balance} privately to this agent, not ${expect.amount}`,
  };
}

/** An agent's way into its private account: its keys, and a sequencer to read transactions from. */
export interface PrivateReceiving {
  keys: PrivateReceiveKeys;
  sequencer: Pick<SequencerApi, 'getTransaction'>;
}

export type PaymentCheckOutcome = { kind: 'verified' } | { kind: 'rejected' | 'unconfirmed'; message: string };

/**
 * A payment check that reads a privacy-preserving transaction's notes itself and hands every public transaction to
 * `checkPublic` (the rail's transfer check): what the transaction is decides how it is checked, not what its
 * reference claims.
 */
export function privateFirst(
  receiving: PrivateReceiving,
  checkPublic: (txHash: string, from: string, amount: bigint | string) => Promise<PaymentCheckOutcome>,
): (txHash: string, from: string, amount: bigint | string) => Promise<PaymentCheckOutcome> {
  return async (txHash, from, amount) => {
    const expect = { from, amount: BigInt(amount) };
    const checked = await checkPrivatePayment(receiving.sequencer, txHash, receiving.keys, expect);
    if (checked.kind === 'not-private') return checkPublic(txHash, from, amount);
    return checked.kind === 'verified' ? { kind: 'verified' } : checked;
  };
}
