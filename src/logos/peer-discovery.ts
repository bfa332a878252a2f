/**
 * The peer bindings' discovery (issue #22 §3): on each configured network of a peer binding, the binding's
 * discovery topic is followed on that network's node, each card heard is verified with the binding's own scheme
 * (peer-card-reading.ts), and a verified card enters the directory under its stable id (the same on any network),
 * its interface naming its binding (`version`) and its network, kept as signed with what verified it. A card refused
 * is never listed: it is counted by reason in the discovery drops (`logos_a2a_discovery_drops_total`), as the
 * gateway's own discovery counts (discovery.ts), and logged once per agent and reason. As there, an address announced
 * more often than an honest agent would (announcement-rate.ts) is cut off as a `flood` before its card is verified.
 */
import { AnnouncementRate, FLOOD_LIMIT, FLOOD_WINDOW_MS } from './announcement-rate.ts';
import type { PeerBindingName } from './bindings/common/peer-card.ts';
import { PEER_BINDINGS, type PeerBinding, type PeerContext } from './bindings/peer-bindings.ts';
import { MAX_CARD_BYTES } from './discovery.ts';
import { DiscoveryDrops, type DiscoveryCounters } from './discovery-drops.ts';
import type { AgentDirectory } from './directory.ts';
import { readPeerCard, type PeerCardNetwork } from './peer-card-reading.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';
import { isPlainObject } from '../json-object.ts';

/** A configured network whose agents speak a peer binding. */
export interface PeerDiscoveryNetwork extends PeerCardNetwork {
  readonly node: Pick<LogosTransport, 'subscribe'>;
  /** Where its cards are heard, instead of the binding's default topic. */
  readonly discoveryTopic?: string | undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export class PeerDiscovery {
  readonly counters: DiscoveryCounters;
  readonly #networks: readonly PeerDiscoveryNetwork[];
  readonly #directory: AgentDirectory;
  readonly #context: PeerContext;
  readonly #unsubscribes: Unsubscribe[] = [];
  /** Announcements per network and claimed address: a flood is cut off before its signature is checked. */
  readonly #rate = new AnnouncementRate();
  readonly #drops: DiscoveryDrops;

  /** `context` is what the gateway keeps for the bindings that hold state (pilot's pins). */
  constructor(networks: readonly PeerDiscoveryNetwork[], directory: AgentDirectory, context: PeerContext) {
    this.#networks = networks;
    this.#directory = directory;
    this.#context = context;
    this.#drops = new DiscoveryDrops((line) => directory.log(line));
    this.counters = this.#drops.counters;
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
      this.#drops.drop('oversized', undefined, `${payload.byteLength} bytes, more than ${MAX_CARD_BYTES}`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(payload));
    } catch {
      this.#drops.drop('invalid', undefined, 'not UTF-8 JSON');
      return;
    }
    const named = isPlainObject(json) && typeof json.name === 'string' ? json.name.slice(0, 128) : undefined;
    const agent =
      named === undefined ? undefined : `${network.binding} agent ${JSON.stringify(named)} on ${network.name}`;
    const claimed = binding.claimedAddress(json);
    if (claimed !== undefined && this.#rate.flooding(`${network.name} ${claimed}`)) {
      this.#drops.drop('flood', agent, `more than ${FLOOD_LIMIT} announcements in ${FLOOD_WINDOW_MS / 1000} s`);
      return;
    }
    const read = readPeerCard(json, network, this.#context);
    if (!read.ok) {
      this.#drops.drop(read.reason, agent, read.message);
      return;
    }
    if (!this.#directory.register(read.card, new Date(), read.standing)) {
      const { reason, message } = this.#directory.refusal(read.card, read.standing.signingKey);
      this.#drops.drop(reason, agent, message);
      return;
    }
    read.listed?.();
    this.#drops.accept(agent);
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
