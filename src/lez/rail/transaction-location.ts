/**
 * Where a transaction is: asked of the sequencer's hash index (`getTransaction`) first and, when the index does not
 * know the hash, of the blocks themselves (block-search.ts), since a restarted sequencer's index forgets what its
 * earlier blocks hold. The one lookup behind verifying a transfer and settling a payment the nonce pipeline sent.
 */
import type { NssaTransaction } from '../transaction.ts';
import type { BlockSearch, SearchOutcome, SearchTarget } from './block-search.ts';
import { sequencerProblem, type SequencerApi } from './sequencer-api.ts';

export type TransactionLocation =
  /** The index holds it: included and executed (any kind of transaction). */
  | { kind: 'indexed'; transaction: NssaTransaction }
  /** What the blocks show (block-search.ts); `unavailable` also when the index did not answer. */
  | SearchOutcome;

export async function locateTransaction(
  client: Pick<SequencerApi, 'getTransaction'>,
  search: BlockSearch,
  target: SearchTarget,
): Promise<TransactionLocation> {
  const fetched = await client.getTransaction(target.txHash);
  if (fetched.kind !== 'result') return { kind: 'unavailable', problem: sequencerProblem(fetched) };
  if (fetched.value !== null) return { kind: 'indexed', transaction: fetched.value.transaction };
  return search.find(target);
}
