/** The wire binding an agent speaks, by the dialect its card names (seed-dialect.ts `dialectOf`). */
import type { Dialect } from '../seed-dialect.ts';
import { ourBinding } from './ours.ts';
import { seedBinding } from './seed.ts';
import type { WireBinding } from './wire-binding.ts';

const BY_DIALECT: Record<Dialect, WireBinding> = { binding: ourBinding, seed: seedBinding };

/** Every wire binding, for what arrives without naming its task's binding (1:1 replies). */
export const WIRE_BINDINGS: readonly WireBinding[] = Object.values(BY_DIALECT);

export function wireBindingOf(dialect: Dialect): WireBinding {
  return BY_DIALECT[dialect];
}
