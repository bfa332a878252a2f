/**
 * Reads one transaction from the sequencer as transfer facts for verification.ts (docs/lez.md §7.3): it must be
 * included (`getTransaction` is non-null only for included, successfully executed transactions; when it is null,
 * the recent blocks are searched: transaction-location.ts), public, a call
 * of `authenticated_transfer` with accounts [from, to] and one u128, signed by `from`, and its signatures must
 * hold under our signing mode (the sequencer checked them already; checking again costs little and means a
 * misbehaving sequencer cannot hand us a forged transfer).
 */
import { publicAccountId } from '../account-id.ts';
import { bytesEqual } from '../bytes.ts';
import { readNativeTransfer } from '../native-transfer.ts';
import { verifyPublicTransactionSignatures, type SigningMode } from '../signing.ts';
import { programIdEquals, type PublicTransaction } from '../transaction.ts';
import type { BlockSearch } from './block-search.ts';
import { locateTransaction } from './transaction-location.ts';
import type { AuthenticatedTransferProgram } from './transfer-program-id.ts';
import { sequencerProblem, type SequencerApi } from './sequencer-api.ts';
import type { TransferLookup } from './verification.ts';

export async function lookupLezTransfer(
  client: SequencerApi,
  program: AuthenticatedTransferProgram,
  search: BlockSearch,
  signingMode: SigningMode,
  txHash: string,
): Promise<TransferLookup> {
  const programId = await program.id();
  if (programId.kind !== 'result') return { kind: 'unconfirmed', ...sequencerProblem(programId) };
  const located = await locateTransaction(client, search, { txHash });
  if (located.kind === 'unavailable') return { kind: 'unconfirmed', ...located.problem };
  let tx: PublicTransaction;
  if (located.kind === 'indexed') {
    const nssa = located.transaction;
    if (nssa.kind !== 'public')
      return {
        kind: 'rejected',
        reason: 'not-a-transfer',
        message: `transaction ${txHash} is ${nssa.kind}, not a public transfer`,
      };
    tx = nssa.transaction;
  } else if (located.kind === 'included') {
    tx = located.transaction.transaction;
  } else {
    return {
      kind: 'unconfirmed',
      reason: 'not-included',
      message: `transaction ${txHash} is not included (yet): neither the sequencer's index nor its last ${located.kind === 'not-found' ? located.searchedBlocks : 0} block(s) hold it`,
    };
  }
  if (
    programIdEquals(tx.message.programId, programId.value) &&
    tx.message.accountIds.length === 2 &&
    !senderSigned(tx)
  ) {
    return {
      kind: 'rejected',
      reason: 'wrong-signer',
      message: `transaction ${txHash} is not signed by its sending account`,
    };
  }
  const transfer = readNativeTransfer(tx, programId.value);
  if (!transfer.ok)
    return { kind: 'rejected', reason: 'not-a-transfer', message: `transaction ${txHash}: ${transfer.reason}` };
  if (!verifyPublicTransactionSignatures(tx, signingMode)) {
    return {
      kind: 'rejected',
      reason: 'bad-signature',
      message: `transaction ${txHash} carries a signature that does not verify`,
    };
  }
  return {
    kind: 'found',
    facts: { txHash, from: transfer.from, to: transfer.to, amount: transfer.amount, nonce: transfer.nonce },
  };
}

function senderSigned(tx: PublicTransaction): boolean {
  const first = tx.witnesses[0];
  const from = tx.message.accountIds[0];
  return first !== undefined && from !== undefined && bytesEqual(publicAccountId(first.publicKey), from);
}
