/**
 * How the gateway reads a peer binding's card, heard on its network's discovery topic (peer-discovery.ts) or kept
 * from an earlier run (directory.ts): verified with the binding's own scheme (bindings/peer-bindings.ts; pilot's
 * against the key pinned for its identity), then mapped to this project's card shape, its interface naming the
 * network. What vouches for it travels with it (`PeerCardStanding`): the served card and `/agents` say so, and the
 * directory keeps the card as signed, so that a restart verifies it again before it is served.
 */
import type { PeerBindingName, PeerCardRejection, PeerCardScheme } from './bindings/common/peer-card.ts';
import { PEER_BINDINGS, type PeerContext } from './bindings/peer-bindings.ts';
import { LogosAgentCard } from './card.ts';
import type { DropReason } from './discovery-drops.ts';
import { holdsLoneSurrogate } from '../json-object.ts';

/** A configured network of a peer binding, as far as its cards' verification needs it. */
export interface PeerCardNetwork {
  readonly name: string;
  readonly binding: PeerBindingName;
  /** Card keys published apart from the cards, by `kid` (lp-0008). */
  readonly cardKeys: Readonly<Record<string, string>>;
}

/** What vouches for a peer card that verified. */
export interface PeerCardStanding {
  readonly binding: PeerBindingName;
  readonly network: string;
  readonly scheme: PeerCardScheme;
  /** The key that signed it, as its binding writes it. */
  readonly signingKey: string;
  /** The card as the agent signed it: what is stored, and verified again at the next start. */
  readonly signedCard: unknown;
}

export type PeerCardReading =
  | {
      ok: true;
      card: LogosAgentCard;
      standing: PeerCardStanding;
      /** To call once the directory lists the card (VerifiedPeerCard `listed`). */
      listed?: () => void;
    }
  | { ok: false; reason: DropReason; message: string };

/** The discovery counter of each reason a peer card is refused for. */
const DROP_REASONS: Record<PeerCardRejection, DropReason> = {
  malformed: 'invalid',
  unsigned: 'unsigned',
  'bad-signature': 'badSignature',
  'key-mismatch': 'badSignature',
  'pin-mismatch': 'badSignature',
  full: 'directoryFull',
  'unknown-key': 'unverified',
  'not-callable': 'badAddress',
};

export function readPeerCard(json: unknown, network: PeerCardNetwork, context: PeerContext): PeerCardReading {
  const binding = PEER_BINDINGS[network.binding];
  if (!binding) return { ok: false, reason: 'invalid', message: `the ${network.binding} binding is not served` };
  // Served cards are signed again as canonical JSON (card-jws.ts), which has no lone surrogate; nor is one text.
  if (holdsLoneSurrogate(json)) {
    return { ok: false, reason: 'invalid', message: 'malformed: a string holds a lone surrogate, which is not text' };
  }
  const verified = binding.verifyCard(json, network, context);
  if (!verified.ok)
    return { ok: false, reason: DROP_REASONS[verified.reason], message: `${verified.reason}: ${verified.message}` };
  const [first, ...others] = verified.card.agentInterfaces;
  const card = LogosAgentCard.safeParse({
    ...verified.card,
    agentInterfaces: [{ ...first!, network: network.name }, ...others],
  });
  if (!card.success) return { ok: false, reason: 'invalid', message: card.error.message };
  return {
    ok: true,
    card: card.data,
    ...(verified.listed ? { listed: verified.listed } : {}),
    standing: {
      binding: network.binding,
      network: network.name,
      scheme: binding.scheme,
      signingKey: verified.signingKey,
      signedCard: json,
    },
  };
}

/** How the directory stores a peer card: as signed, with the binding and network it is verified again with. */
export interface StoredPeerCard {
  peer: { binding: PeerBindingName; network: string };
  card: unknown;
}

/**
 * Reads a stored peer card again with the scheme of its binding on the network it was heard on, as this run
 * configures that network (its card keys, pilot's pins): refused when the network is gone or now names another
 * binding, or when the card no longer verifies.
 */
export function storedPeerCardReader(
  networks: readonly {
    readonly name: string;
    readonly binding?: PeerBindingName | undefined;
    readonly cardKeys: Readonly<Record<string, string>>;
  }[],
  context: PeerContext,
): (stored: StoredPeerCard) => PeerCardReading {
  return ({ peer, card }) => {
    const network = networks.find((n) => n.name === peer.network && n.binding === peer.binding);
    if (!network) {
      return {
        ok: false,
        reason: 'badAddress',
        message: `no ${peer.binding} network ${JSON.stringify(peer.network)} is configured`,
      };
    }
    return readPeerCard(card, { name: network.name, binding: peer.binding, cardKeys: network.cardKeys }, context);
  };
}
