/**
 * The wire binding an agent speaks, by the dialect its card names (seed-dialect.ts `dialectOf`): ours and the
 * seed's travel on the gateway's own transport; a peer binding's on the node of the network the agent lives on
 * (peer-networks.ts), one instance per network.
 */
import type { Dialect } from '../seed-dialect.ts';
import { ourBinding } from './ours.ts';
import { PEER_BINDINGS, type PeerContext } from './peer-bindings.ts';
import { seedBinding } from './seed.ts';
import type { PeerNode, WireBinding } from './wire-binding.ts';

type OwnDialect = 'binding' | 'seed';

const BY_DIALECT: Record<OwnDialect, WireBinding> = { binding: ourBinding, seed: seedBinding };

/** The bindings served on the gateway's own transport, for what arrives without naming its task's binding (1:1 replies). */
export const WIRE_BINDINGS: readonly WireBinding[] = Object.values(BY_DIALECT);

export function wireBindingOf(dialect: OwnDialect): WireBinding {
  return BY_DIALECT[dialect];
}

/**
 * Every agent's wire binding, peer bindings made once per network (so that a binding is the same object for every
 * task of the network). `nodeOf` is the node of a configured network (peer-networks.ts `nodeOf`); `context` what the
 * gateway keeps for the bindings that hold state (peer-context.ts).
 */
export class WireBindings {
  readonly #nodeOf: (network: string) => PeerNode | undefined;
  readonly #context: PeerContext;
  readonly #made = new Map<string, WireBinding>();

  constructor(nodeOf: (network: string) => PeerNode | undefined, context: PeerContext) {
    this.#nodeOf = nodeOf;
    this.#context = context;
  }

  /**
   * The binding of an agent of `dialect` on `network` (its card's interface). Throws for a peer agent whose network
   * is not configured, or whose binding is not served: the directory holds no such agent (a bug otherwise).
   */
  of(dialect: Dialect, network: string | undefined): WireBinding {
    if (dialect === 'binding' || dialect === 'seed') return BY_DIALECT[dialect];
    const key = `${dialect} ${network}`;
    const made = this.#made.get(key);
    if (made) return made;
    const node = network === undefined ? undefined : this.#nodeOf(network);
    const peer = PEER_BINDINGS[dialect];
    if (!node || !peer) throw new Error(`no ${dialect} agent can be reached on network ${String(network)}`);
    const binding = peer.wireBinding(node, this.#context);
    this.#made.set(key, binding);
    return binding;
  }
}
