/**
 * Which LEZ a sequencer runs, told by a read-only probe at start (docs/lez.md §1.2): the hash of its last block is
 * made with `main`'s domain-prefixed formula or with the v0.2.0-rc one (block.ts), and the two differ in what a
 * transaction signature signs (signing.ts). A sequencer that does not know `getLastBlockId` speaks another API
 * (LEZ v0.1's snake_case methods), which this client does not.
 *
 * `chooseSigningMode` turns the probe and the configured mode, if any, into the mode to sign with, or a one-line
 * reason to refuse to start.
 */
import { blockHashFormulaOf } from './block.ts';
import { describeRpcFailure, type SequencerClient } from './sequencer-client.ts';
import type { SigningMode } from './signing.ts';

export type ProbeOutcome =
  | { kind: 'detected'; version: 'main' | 'v0.2.0-rc'; signingMode: SigningMode; blockId: bigint }
  /** It answers, but not in the API this client speaks. */
  | { kind: 'unsupported'; message: string }
  /** No answer, or an answer that tells nothing: try again later, or rely on configuration. */
  | { kind: 'unknown'; message: string };

export async function probeSequencer(
  client: Pick<SequencerClient, 'getLastBlockId' | 'getBlock'>,
): Promise<ProbeOutcome> {
  const last = await client.getLastBlockId();
  if (last.kind === 'rpc-error' && last.code === -32601) {
    return {
      kind: 'unsupported',
      message:
        'it does not know getLastBlockId (-32601): it speaks another API than LEZ main and v0.2.0-rc (LEZ v0.1 has snake_case methods), which this gateway does not speak',
    };
  }
  if (last.kind !== 'result') return { kind: 'unknown', message: describeRpcFailure(last) };
  const block = await client.getBlock(last.value);
  if (block.kind !== 'result') return { kind: 'unknown', message: describeRpcFailure(block) };
  if (block.value === null)
    return { kind: 'unknown', message: `getBlock(${last.value}) answered null for its last block` };
  switch (blockHashFormulaOf(block.value)) {
    case 'main':
      return { kind: 'detected', version: 'main', signingMode: 'prehash-v0.3', blockId: last.value };
    case 'rc':
      return { kind: 'detected', version: 'v0.2.0-rc', signingMode: 'raw-borsh', blockId: last.value };
    case undefined:
      return {
        kind: 'unknown',
        message: `the hash of block ${last.value} matches neither LEZ main's block hash nor v0.2.0-rc's`,
      };
  }
}

export type SigningModeChoice = { ok: true; signingMode: SigningMode; note: string } | { ok: false; message: string };

/** The probe decides; a configured mode must agree with it, and stands alone only when the probe could not tell. */
export function chooseSigningMode(
  probe: ProbeOutcome,
  configured: SigningMode | undefined,
  url: string,
): SigningModeChoice {
  switch (probe.kind) {
    case 'unsupported':
      return { ok: false, message: `the sequencer at ${url}: ${probe.message}.` };
    case 'unknown':
      return configured
        ? {
            ok: true,
            signingMode: configured,
            note: `could not probe the sequencer at ${url} (${probe.message}); signing in the configured mode ${configured}`,
          }
        : {
            ok: false,
            message: `could not tell which LEZ the sequencer at ${url} runs (${probe.message}); start it first, or set payments.signingMode.`,
          };
    case 'detected':
      if (configured && configured !== probe.signingMode) {
        return {
          ok: false,
          message: `payments.signingMode is "${configured}", but the sequencer at ${url} runs LEZ ${probe.version} (block ${probe.blockId} is hashed that way), which wants "${probe.signingMode}"; remove the setting or correct it.`,
        };
      }
      return {
        ok: true,
        signingMode: probe.signingMode,
        note: `the sequencer at ${url} runs LEZ ${probe.version}: signing mode ${probe.signingMode}`,
      };
  }
}
