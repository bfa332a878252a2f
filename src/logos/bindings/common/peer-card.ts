/**
 * What every peer binding's card verifier answers: the card in this project's Logos card shape (card.ts), so the
 * directory and the A2A card projection treat it as any other, marked with its binding in the interface's
 * `version`, as the seed dialect marks its own; or why it was refused.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { AGENT_ID_PATTERN, type LogosAgentCardInput } from '../../card.ts';

export type PeerBindingName = 'logos-agent' | 'pilot' | 'lp-0008';

/** The skills of an A2A-shaped peer card (pilot's, lp-0008's): at least one, each with the fields a skill is served with. */
export const PeerSkills = z
  .array(
    z.object({
      id: z.string().min(1).max(128),
      name: z.string().min(1).max(256),
      description: z.string().max(4096).default(''),
    }),
  )
  .min(1);

/** How a peer binding's cards are signed and checked (bindings/peer-bindings.ts `scheme`). */
export type PeerCardScheme = 'Ed25519' | 'ES256K pinned' | 'BIP-340 JWS';

export type PeerCardRejection =
  | 'malformed'
  | 'unsigned'
  | 'bad-signature'
  | 'key-mismatch'
  | 'pin-mismatch'
  /** No room for another first-contact pin (the gateway's `maxAgents`). */
  | 'full'
  | 'unknown-key'
  /** Verified, but naming an address its agent does not listen on, or an agent that takes no tasks. */
  | 'not-callable';

export interface VerifiedPeerCard {
  readonly ok: true;
  readonly binding: PeerBindingName;
  /** The card as this project's Logos card (card.ts), its interface's version naming the binding. */
  readonly card: LogosAgentCardInput;
  /** The key that signed it, lowercase hex as the binding writes it. */
  readonly signingKey: string;
  /**
   * What the binding records once the directory lists the card (pilot's first-contact pin): a card the directory
   * refuses leaves nothing behind, so what is kept stays bounded by what is listed.
   */
  readonly listed?: () => void;
}

export type PeerCardVerification = VerifiedPeerCard | { ok: false; reason: PeerCardRejection; message: string };

/**
 * A served agent id from a peer's name: lowercase, runs of other characters as `-`, with 8 hex of SHA-256 of
 * `stableKey` (what identifies the agent in its binding) appended so that two agents of one name get two ids.
 */
export function peerAgentId(name: string, stableKey: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 50);
  const id = `${slug || 'agent'}-${bytesToHex(sha256(utf8ToBytes(stableKey))).slice(0, 8)}`;
  if (!AGENT_ID_PATTERN.test(id)) throw new Error(`peerAgentId made ${id}, which is no agent id`);
  return id;
}
