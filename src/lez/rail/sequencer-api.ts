/**
 * The part of SequencerClient the LEZ rail uses, as a type, so unit tests can stand in a scripted sequencer;
 * and the mapping of the client's failures onto the rail's outcome reasons.
 */
import { describeRpcFailure, type RpcFailure, type SequencerClient } from '../sequencer-client.ts';

export type SequencerApi = Pick<
  SequencerClient,
  | 'url'
  | 'layout'
  | 'sendTransaction'
  | 'getAccount'
  | 'getAccountBalance'
  | 'getAccountsNonces'
  | 'getTransaction'
  | 'getProgramIds'
  | 'getLastBlockId'
  | 'getBlockRange'
  | 'getFeeState'
>;

export type SequencerProblemReason = 'sequencer-unavailable' | 'sequencer-error' | 'bad-response';

export interface SequencerProblem {
  reason: SequencerProblemReason;
  message: string;
}

export function sequencerProblem(failure: RpcFailure): SequencerProblem {
  const reason: SequencerProblemReason =
    failure.kind === 'unreachable'
      ? 'sequencer-unavailable'
      : failure.kind === 'rpc-error'
        ? 'sequencer-error'
        : 'bad-response';
  return { reason, message: describeRpcFailure(failure) };
}
