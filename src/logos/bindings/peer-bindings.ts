/**
 * The peer bindings the gateway serves (issue #22), each as what the gateway needs of it: where its agents announce
 * their cards, how a card is verified, and its `WireBinding` on a network's node. A peer binding missing here is
 * not served: its networks are not followed, and its agents are never in the directory.
 */
import type { LogosTransport } from '../transport.ts';
import type { PeerBindingName, PeerCardVerification } from './common/peer-card.ts';
import { verifyLogosAgentCard } from './logos-agent/card.ts';
import { logosAgentBinding } from './logos-agent/binding.ts';
import { DISCOVERY_TOPIC as LOGOS_AGENT_DISCOVERY } from './logos-agent/wire.ts';
import type { WireBinding } from './wire-binding.ts';

export type PeerNode = Pick<LogosTransport, 'publish' | 'subscribe'>;

/** What a network of the `networks` setting tells a verifier (config.ts). */
export interface PeerNetworkKeys {
  /** Card keys published apart from the cards, by `kid`. */
  readonly cardKeys: Readonly<Record<string, string>>;
}

export interface PeerBinding {
  readonly discoveryTopic: string;
  verifyCard(json: unknown, network: PeerNetworkKeys): PeerCardVerification;
  wireBinding(node: PeerNode): WireBinding;
}

export const PEER_BINDINGS: Partial<Record<PeerBindingName, PeerBinding>> = {
  'logos-agent': {
    discoveryTopic: LOGOS_AGENT_DISCOVERY,
    verifyCard: (json) => verifyLogosAgentCard(json),
    wireBinding: logosAgentBinding,
  },
};
