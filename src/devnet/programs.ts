/**
 * The program ids the devnet answers `getProgramIds` with, and which of them it can run.
 *
 * A real sequencer's ids are the RISC Zero image ids of its program ELFs (docs/lez.md §3), which we cannot compute
 * without those binaries. The devnet derives stand-ins from the program names instead, so they are stable across
 * runs and obviously not real. Clients must fetch ids with `getProgramIds` anyway (docs/lez.md §7.2), so nothing depends
 * on the values; an option can pin real ids when a test wants them.
 *
 * Only `authenticated_transfer` (the native token) is emulated. The other names are listed because the real
 * method lists them; a public transaction calling one of them is dropped as unsupported.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { assertProgramId, programIdEquals, type ProgramId } from '../lez/transaction.ts';

/** In the order the real method writes them (a Rust BTreeMap: sorted by name). */
export const PROGRAM_NAMES = [
  'amm',
  'authenticated_transfer',
  'pinata',
  'privacy_preserving_circuit',
  'token',
] as const;
export type ProgramName = (typeof PROGRAM_NAMES)[number];

export type DevnetProgramIds = Readonly<Record<ProgramName, ProgramId>>;

/** 8 little-endian u32 words of SHA-256 over a devnet label: a fixed, recognisably fake image id. */
function standInId(name: ProgramName): ProgramId {
  const digest = sha256(new TextEncoder().encode(`logos-a2a/devnet/program/${name}`));
  const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  return Object.freeze(Array.from({ length: 8 }, (_, i) => view.getUint32(i * 4, true)));
}

export const DEVNET_PROGRAM_IDS: DevnetProgramIds = Object.freeze(
  Object.fromEntries(PROGRAM_NAMES.map((name) => [name, standInId(name)])) as Record<ProgramName, ProgramId>,
);

/** The stand-ins with any overrides applied. Ids must be 8 u32 words and distinct: a config error throws. */
export function resolveProgramIds(overrides: Partial<Record<ProgramName, readonly number[]>> = {}): DevnetProgramIds {
  const ids = { ...DEVNET_PROGRAM_IDS };
  for (const name of PROGRAM_NAMES) {
    const override = overrides[name];
    if (override) ids[name] = Object.freeze([...assertProgramId(override)]);
  }
  PROGRAM_NAMES.forEach((a, i) =>
    PROGRAM_NAMES.slice(i + 1).forEach((b) => {
      if (programIdEquals(ids[a], ids[b])) throw new RangeError(`program ids of ${a} and ${b} are the same`);
    }),
  );
  return Object.freeze(ids);
}

/** How the devnet treats a public transaction's program id. */
export type ProgramKind = 'native-transfer' | 'not-emulated' | 'unknown';

export function classifyProgram(ids: DevnetProgramIds, programId: ProgramId): ProgramKind {
  if (programIdEquals(programId, ids.authenticated_transfer)) return 'native-transfer';
  // The circuit id names the privacy-preserving verifier, not a program a public transaction can call.
  for (const name of ['amm', 'pinata', 'token'] as const) {
    if (programIdEquals(programId, ids[name])) return 'not-emulated';
  }
  return 'unknown';
}
