/**
 * The `authenticated_transfer` program id (the native token program): configured, or fetched once with
 * `getProgramIds` (docs/lez.md §7.2 says fetch rather than compute it). Only a successful answer is cached, so a
 * sequencer that was down at start is asked again next time.
 */
import type { RpcOutcome } from '../sequencer-client.ts';
import type { ProgramId } from '../transaction.ts';
import type { SequencerApi } from './sequencer-api.ts';

export class AuthenticatedTransferProgram {
  private readonly client: SequencerApi;
  private known: ProgramId | undefined;
  private inFlight: Promise<RpcOutcome<ProgramId>> | undefined;

  constructor(client: SequencerApi, configured?: ProgramId) {
    this.client = client;
    this.known = configured;
  }

  id(): Promise<RpcOutcome<ProgramId>> {
    if (this.known) return Promise.resolve({ kind: 'result', value: this.known });
    // Concurrent first payments share one request.
    this.inFlight ??= this.client.getProgramIds().then((outcome) => {
      this.inFlight = undefined;
      if (outcome.kind !== 'result') return outcome;
      this.known = outcome.value.authenticated_transfer;
      return { kind: 'result', value: this.known };
    });
    return this.inFlight;
  }
}
