/**
 * Which LEZ protocol a sequencer speaks (docs/lez.md §10), told at start by asking it, overridable by configuration:
 *
 * - `v0.2`: the public testnet today (wallets at v0.2.4): no fees; a transfer to an account that was never
 *   initialised is discarded without an error, so the payee is checked first (rail/payee-check.ts).
 * - `lee-v0.3`: the fees revision: every charged public transaction signs a fee declaration (fees.ts), whose message
 *   has the lee-v0.3 layout (transaction.ts); there is no claiming step.
 *
 * The probe: `getFeeState` answers only where there are fees; a sequencer without them answers -32601 (method not
 * found). Anything else (no answer, another error) tells nothing.
 */
import { describeRpcFailure, type SequencerClient } from './sequencer-client.ts';

export const PROTOCOL_PROFILES = ['v0.2', 'lee-v0.3'] as const;
export type ProtocolProfile = (typeof PROTOCOL_PROFILES)[number];

export type ProfileProbe =
  { kind: 'detected'; profile: ProtocolProfile; evidence: string } | { kind: 'unknown'; message: string };

export async function probeProfile(client: Pick<SequencerClient, 'getFeeState'>): Promise<ProfileProbe> {
  const quote = await client.getFeeState();
  if (quote.kind === 'result') return { kind: 'detected', profile: 'lee-v0.3', evidence: 'it answers getFeeState' };
  if (quote.kind === 'rpc-error' && quote.code === -32601)
    return { kind: 'detected', profile: 'v0.2', evidence: 'it does not know getFeeState (-32601)' };
  return { kind: 'unknown', message: describeRpcFailure(quote) };
}

export type ProfileChoice = { ok: true; profile: ProtocolProfile; note: string } | { ok: false; message: string };

/** The probe decides; a configured profile must agree with it, and stands alone only when the probe could not tell. */
export function chooseProfile(
  probe: ProfileProbe,
  configured: ProtocolProfile | undefined,
  url: string,
): ProfileChoice {
  if (probe.kind === 'unknown') {
    return configured
      ? {
          ok: true,
          profile: configured,
          note: `could not probe the protocol of the sequencer at ${url} (${probe.message}); using the configured profile ${configured}`,
        }
      : {
          ok: false,
          message: `could not tell which LEZ protocol the sequencer at ${url} speaks (${probe.message}); start it first, or set payments.profile.`,
        };
  }
  if (configured && configured !== probe.profile) {
    return {
      ok: false,
      message: `payments.profile is "${configured}", but the sequencer at ${url} speaks ${probe.profile} (${probe.evidence}); remove the setting or correct it.`,
    };
  }
  return {
    ok: true,
    profile: probe.profile,
    note: `the sequencer at ${url} speaks LEZ protocol profile ${probe.profile} (${probe.evidence})`,
  };
}
