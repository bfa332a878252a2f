/**
 * One `sendTransaction`, classified by what it tells us about the mempool. This is what decides whether a nonce
 * may ever be given to another transaction, so the classes are deliberately conservative:
 *
 * - `accepted`: the sequencer took it and answered the hash we computed.
 * - `refused`: a JSON-RPC error. `sendTransaction` only runs stateless checks (docs/lez.md §2) and answers after
 *   them, so an error means these bytes did not enter the mempool this time. Except -32603 Internal error: a
 *   handler that broke half-way may have queued the transaction first, so that one counts as `unknown`.
 * - `not-delivered`: the connection was refused; the request never reached a sequencer.
 * - `unknown`: anything else (timed out, reset, a proxy's 5xx, garbage, a different hash). The transaction may
 *   be in the mempool, so its nonce stays taken and only these same bytes may be sent again.
 */
import type { JsonValue } from '../json.ts';
import type { SequencerApi, SequencerProblem } from './sequencer-api.ts';
import { sequencerProblem } from './sequencer-api.ts';

const INTERNAL_ERROR = -32603;

export type Submission =
  | { kind: 'accepted' }
  /** `code`: the JSON-RPC error's, e.g. a fee-admission refusal's (-31980…-31986); `data` its structured detail. */
  | { kind: 'refused'; problem: SequencerProblem; code: number; data?: JsonValue }
  | { kind: 'not-delivered'; problem: SequencerProblem }
  | { kind: 'unknown'; problem: SequencerProblem };

export async function submitTransaction(
  client: SequencerApi,
  txBase64: string,
  expectedHash: string,
): Promise<Submission> {
  const answer = await client.sendTransaction(txBase64);
  if (answer.kind === 'result') {
    if (answer.value === expectedHash) return { kind: 'accepted' };
    // Our encoding and the sequencer's disagree: it may have taken the bytes under another hash, so not "refused".
    const message = `sendTransaction answered hash ${answer.value}, expected ${expectedHash}: the transaction encoding does not match the sequencer's`;
    return { kind: 'unknown', problem: { reason: 'bad-response', message } };
  }
  const problem = sequencerProblem(answer);
  if (answer.kind === 'rpc-error' && answer.code !== INTERNAL_ERROR)
    return { kind: 'refused', problem, code: answer.code, ...(answer.data === undefined ? {} : { data: answer.data }) };
  // Node's fetch reports a refused connection as ECONNREFUSED in the cause, which the client keeps in the message.
  if (answer.kind === 'unreachable' && !answer.timedOut && /\bECONNREFUSED\b/.test(answer.message)) {
    return { kind: 'not-delivered', problem };
  }
  return { kind: 'unknown', problem };
}
