/**
 * Is this account payable? LEZ drops, at block time and silently, a transfer to an account that the
 * `authenticated_transfer` program has not claimed, unless the recipient co-signs (docs/lez.md §3.8). So the
 * payee must already be initialised: its `program_owner` is the program's id. An initialised account never goes
 * back, so a yes is remembered; a no is asked again next time (the agent may initialise meanwhile).
 */
import { programIdEquals } from '../transaction.ts';
import type { AuthenticatedTransferProgram } from './transfer-program-id.ts';
import { sequencerProblem, type SequencerApi, type SequencerProblem } from './sequencer-api.ts';

export type PayeeCheckOutcome =
  | { kind: 'payable' }
  | { kind: 'uninitialised'; reason: 'payee-uninitialised'; message: string }
  /** The sequencer could not be asked: nothing is known. */
  | ({ kind: 'unchecked' } & SequencerProblem);

export class PayeeCheck {
  private readonly client: SequencerApi;
  private readonly program: AuthenticatedTransferProgram;
  private readonly payable = new Set<string>();

  constructor(client: SequencerApi, program: AuthenticatedTransferProgram) {
    this.client = client;
    this.program = program;
  }

  async check(account: string): Promise<PayeeCheckOutcome> {
    if (this.payable.has(account)) return { kind: 'payable' };
    const program = await this.program.id();
    if (program.kind !== 'result') return { kind: 'unchecked', ...sequencerProblem(program) };
    const state = await this.client.getAccount(account);
    if (state.kind !== 'result') return { kind: 'unchecked', ...sequencerProblem(state) };
    if (!programIdEquals(state.value.programOwner, program.value)) {
      const message =
        `payee ${account} is not initialised for the native token program, so a transfer to it would be dropped; ` +
        'its owner must run `wallet auth-transfer init` first';
      return { kind: 'uninitialised', reason: 'payee-uninitialised', message };
    }
    this.payable.add(account);
    return { kind: 'payable' };
  }
}
