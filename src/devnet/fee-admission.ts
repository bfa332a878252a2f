/**
 * The fee-admission door of a sequencer with fees (`lee-v0.3`; `lez/sequencer/service/src/fees.rs`): a charged
 * transaction no block could include is refused at `sendTransaction`, with the rule it broke, instead of sitting in the
 * mempool. The checks, in the sequencer's order: a fee is declared; `data_bytes` within 1..=MAX_GAS_STOR; `gas_limit`
 * within the block cap; `max_fee` covers the reserve; the designated payer signed; the payer can fund the reserve.
 * The last two are judged against the head state and may go stale either way: the block build checks the reserve
 * again (execute.ts).
 */
import { publicAccountId } from '../lez/account-id.ts';
import { bytesEqual } from '../lez/bytes.ts';
import { feeReserve, MAX_GAS_EXEC, MAX_GAS_STOR, type AdmissionRejection } from '../lez/fees.ts';
import type { PublicTransaction } from '../lez/transaction.ts';
import type { FeeTerms } from './execute.ts';
import type { AccountView } from './ledger.ts';

export function screenFee(
  tx: PublicTransaction,
  dataBytes: number,
  state: AccountView,
  terms: FeeTerms,
): AdmissionRejection | undefined {
  const fee = tx.message.fee;
  if (!fee) return { kind: 'MissingFeeDeclaration' };
  const size = BigInt(dataBytes);
  if (size < 1n || size > MAX_GAS_STOR) return { kind: 'DataBytesOutOfRange', dataBytes: size, max: MAX_GAS_STOR };
  if (fee.gasLimit > MAX_GAS_EXEC) return { kind: 'GasLimitExceedsMax', gasLimit: fee.gasLimit, max: MAX_GAS_EXEC };
  const reserve = feeReserve(fee, size, terms.baseFeeExec, terms.baseFeeStor);
  if (reserve > fee.maxFee) return { kind: 'MaxFeeBelowReserve', feeReserve: reserve, maxFee: fee.maxFee };
  // Signatures were verified before this door; the payer's is one of them or it authorized nothing.
  if (!tx.witnesses.some((witness) => bytesEqual(publicAccountId(witness.publicKey), fee.payer)))
    return { kind: 'UnauthorizedPayer', payer: fee.payer };
  const balance = state.get(fee.payer).balance;
  if (balance < reserve) return { kind: 'PayerCannotFund', payer: fee.payer, balance, feeReserve: reserve };
  return undefined;
}
