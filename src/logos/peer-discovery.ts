/**
 * The peer bindings' discovery (issue #22 §3): on each configured network of a peer binding, the binding's
 * discovery topic is followed on that network's node, each card heard is verified with the binding's own scheme
 * (bindings/peer-bindings.ts), and a verified card enters the directory under its stable id (the same on any
 * network), its interface naming its binding (`version`) and its network. A card refused is never listed: it is
 * counted by reason in the discovery drops (`logos_a2a_discovery_drops_total`), as the gateway's own discovery
 * counts (discovery.ts), and logged once per agent and reason.
 */
import type { PeerBindingName, PeerCardRejection } from './bindings/common/peer-card.ts';
import { PEER_BINDINGS, type PeerBinding, type PeerContext } from './bindings/peer-bindings.ts';
import { LogosAgentCard } from './card.ts';
import { MAX_CARD_BYTES, type DiscoveryCounters, type DropReason } from './discovery.ts';
import type { AgentDirectory } from './directory.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';
import { isPlainObject } from '../json-object.ts';
import { metrics } from '../observability/metrics.ts';

/** A configured network whose agents speak a peer binding. */
export interface PeerDiscoveryNetwork {
  readonly name: string;
  readonly binding: PeerBindingName;
  readonly node: Pick<LogosTransport, 'subscribe'>;
  readonly cardKeys: Readonly<Record<string, string>>;
  /** Where its cards are heard, instead of the binding's default topic. */
  readonly discoveryTopic?: string | undefined;
}

/** The discovery counter of each reason a peer card is refused for. */
const DROP_REASONS: Record<PeerCardRejection, DropReason> = {
  malformed: 'invalid',
  unsigned: 'unsigned',
  'bad-signature': 'badSignature',
  'key-mismatch': 'badSignature',
  'pin-mismatch': 'badSignature',
  'unknown-key': 'unverified',
  'not-callable': 'badAddress',
};

const decoder = new TextDecoder('utf-8', { fatal: true });

export class PeerDiscovery {
  readonly counters: DiscoveryCounters = {
    accepted: 0,
    oversized: 0,
    invalid: 0,
    idTaken: 0,
    unsigned: 0,
    badSignature: 0,
    unverified: 0,
    badPrice: 0,
    badAddress: 0,
    stale: 0,
    flood: 0,
  };
  readonly #networks: readonly PeerDiscoveryNetwork[];
  readonly #directory: AgentDirectory;
  readonly #context: PeerContext;
  readonly #unsubscribes: Unsubscribe[] = [];
  /** Per agent: the reason its last logged drop had. Bounded: anyone can announce under any number of names. */
  readonly #logged = new Map<string, DropReason>();

  /** `context` is what the gateway keeps for the bindings that hold state (pilot's pins). */
  constructor(networks: readonly PeerDiscoveryNetwork[], directory: AgentDirectory, context: PeerContext) {
    this.#networks = networks;
    this.#directory = directory;
    this.#context = context;
  }

  start(): void {
    for (const network of this.#networks) {
      const binding = PEER_BINDINGS[network.binding];
      const topic = network.discoveryTopic ?? binding?.discoveryTopic;
      if (!binding || topic === undefined) {
        this.#directory.log(
          `[discovery] network ${network.name}: ${binding ? 'no discoveryTopic is configured' : `the ${network.binding} binding is not served yet`}, so no agent of it is heard`,
        );
        continue;
      }
      this.#unsubscribes.push(network.node.subscribe(topic, (payload) => this.hear(network, binding, payload)));
    }
  }

  stop(): void {
    for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe();
  }

  private hear(network: PeerDiscoveryNetwork, binding: PeerBinding, payload: Uint8Array): void {
    if (payload.byteLength > MAX_CARD_BYTES) {
      this.drop('oversized', undefined, `${payload.byteLength} bytes, more than ${MAX_CARD_BYTES}`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(payload));
    } catch {
      this.drop('invalid', undefined, 'not UTF-8 JSON');
      return;
    }
    const named = isPlainObject(json) && typeof json.name === 'string' ? json.name.slice(0, 128) : undefined;
    const agent =
      named === undefined ? undefined : `${network.binding} agent ${JSON.stringify(named)} on ${network.name}`;
    const verified = binding.verifyCard(json, network, this.#context);
    if (!verified.ok) {
      this.drop(DROP_REASONS[verified.reason], agent, `${verified.reason}: ${verified.message}`);
      return;
    }
    const [first, ...others] = verified.card.agentInterfaces;
    const card = LogosAgentCard.safeParse({
      ...verified.card,
      agentInterfaces: [{ ...first!, network: network.name }, ...others],
    });
    if (!card.success) {
      this.drop('invalid', agent, card.error.message);
      return;
    }
    if (!this.#directory.register(card.data, new Date())) {
      this.drop('idTaken', agent, `another agent holds the id ${JSON.stringify(card.data.id)}`);
      return;
    }
    this.counters.accepted++;
    if (agent !== undefined) this.#logged.delete(agent);
  }

  private drop(reason: DropReason, agent: string | undefined, message: string): void {
    this.counters[reason]++;
    metrics.discoveryDrops.inc({ reason });
    if (agent === undefined || this.#logged.get(agent) === reason) return;
    if (this.#logged.size >= 10_000) this.#logged.clear();
    this.#logged.set(agent, reason);
    this.#directory.log(`[discovery] the card of ${agent} is not served (${reason}): ${message}`);
  }
}

/**
 * Whether an address is that of a peer agent this gateway can reach: an address of a served peer binding that a
 * configured network follows (the directory keeps no other, such as a card from a run with other networks).
 */
export function peerAddressRule(
  networks: readonly { readonly binding?: PeerBindingName | undefined }[],
): (address: string) => boolean {
  const followed = networks.flatMap(({ binding }) =>
    binding && PEER_BINDINGS[binding] ? [PEER_BINDINGS[binding]] : [],
  );
  return (address) => followed.some((binding) => binding.isAddress(address));
}
