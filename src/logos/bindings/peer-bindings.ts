/**
 * The peer bindings the gateway serves (issue #22), each as what the gateway needs of it: where its agents announce
 * their cards, how a card is verified, and its `WireBinding` on a network's node. A peer binding missing here is
 * not served: its networks are not followed, and its agents are never in the directory.
 */
import { isPlainObject } from '../../json-object.ts';
import type { PeerBindingName, PeerCardScheme, PeerCardVerification } from './common/peer-card.ts';
import { verifyLogosAgentCard } from './logos-agent/card.ts';
import { logosAgentBinding } from './logos-agent/binding.ts';
import { DISCOVERY_TOPIC as LOGOS_AGENT_DISCOVERY, inboxAccount } from './logos-agent/wire.ts';
import { verifyLp0008Card } from './lp-0008/card.ts';
import { lp0008Binding } from './lp-0008/binding.ts';
import { IDENTIFIER } from './lp-0008/wire.ts';
import { isPilotInbox, pilotBinding, type PilotSide } from './pilot/binding.ts';
import { verifyPilotCard } from './pilot/card.ts';
import { DISCOVERY_TOPIC as PILOT_DISCOVERY } from './pilot/wire.ts';
import type { PeerNode, WireBinding } from './wire-binding.ts';

/** What a network of the `networks` setting tells a verifier (config.ts). */
export interface PeerNetworkKeys {
  /** Card keys published apart from the cards, by `kid`. */
  readonly cardKeys: Readonly<Record<string, string>>;
}

/** What the gateway keeps for the peer bindings that hold state of their own, made on first use (peer-context.ts). */
export interface PeerContext {
  pilot(): PilotSide;
}

export interface PeerBinding {
  /**
   * The topic its agents announce their cards on, where the binding has one; otherwise the network's
   * `discoveryTopic` setting names the board its operators agreed on (lp-0008).
   */
  readonly discoveryTopic?: string;
  /** How its cards are signed and checked, as the served card and `/agents` name it. */
  readonly scheme: PeerCardScheme;
  /**
   * What a card heard claims its address is made of, read before anything is verified (undefined when it names
   * none): the key its announcements are counted under, so that a flood is cut off before the costly part.
   */
  claimedAddress(json: unknown): string | undefined;
  /** Whether `address` is one its cards' interfaces name (what the directory may call, card.ts `callableCard`). */
  isAddress(address: string): boolean;
  verifyCard(json: unknown, network: PeerNetworkKeys, context: PeerContext): PeerCardVerification;
  wireBinding(node: PeerNode, context: PeerContext): WireBinding;
}

export const PEER_BINDINGS: Partial<Record<PeerBindingName, PeerBinding>> = {
  'logos-agent': {
    discoveryTopic: LOGOS_AGENT_DISCOVERY,
    scheme: 'Ed25519',
    claimedAddress: (json) => member(json, 'address'),
    // An inbox: the only address its verifier admits (logos-agent/card.ts).
    isAddress: (address) => inboxAccount(address) !== undefined,
    verifyCard: (json) => verifyLogosAgentCard(json),
    wireBinding: logosAgentBinding,
  },
  // The address is the agent's account (the authority of the card's `logos-messaging://` url).
  'lp-0008': {
    scheme: 'BIP-340 JWS',
    claimedAddress: (json) => member(isPlainObject(json) ? json['x-logos'] : undefined, 'lezAccount'),
    isAddress: (address) => IDENTIFIER.test(address),
    verifyCard: (json, network) => verifyLp0008Card(json, network.cardKeys),
    wireBinding: lp0008Binding,
  },
  // A card's key is pinned to its identity and its inbox at first contact: a later card of either under another key
  // is refused.
  pilot: {
    discoveryTopic: PILOT_DISCOVERY,
    scheme: 'ES256K pinned',
    // Its inbox is named by its encryption key.
    claimedAddress: (json) => member(isPlainObject(json) ? json._logos : undefined, 'enc_key'),
    isAddress: isPilotInbox,
    verifyCard: (json, _network, context) => {
      const { pins } = context.pilot();
      const verified = verifyPilotCard(json, (npk) => pins.keyOf(npk));
      if (!verified.ok || !verified.pin) return verified;
      const inbox = verified.card.agentInterfaces[0]!.address;
      const { npk, signingKey } = verified.pin;
      const pinnable = pins.pinnable(npk, signingKey, inbox);
      if (pinnable === 'full') {
        const message = 'the gateway pins pilot identities up to its most agents (maxAgents), and holds that many';
        return { ok: false, reason: 'full', message };
      }
      if (pinnable === 'inbox-taken') {
        const message = `another identity's key is pinned at the inbox ${inbox.slice(0, 80)}`;
        return { ok: false, reason: 'pin-mismatch', message };
      }
      // Pinned once listed: a card the directory refuses (full, or another key at the inbox) pins nothing.
      return { ...verified, listed: () => void pins.pin(npk, signingKey, inbox) };
    },
    wireBinding: (node, context) => pilotBinding(node, context.pilot()),
  },
};

/** A string member of a JSON object, cut to a bound: a key to count by, not a value to trust. */
function member(json: unknown, name: string): string | undefined {
  const value = isPlainObject(json) ? json[name] : undefined;
  return typeof value === 'string' ? value.slice(0, 256) : undefined;
}
