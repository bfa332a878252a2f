/**
 * A logos-agent card, checked with its own scheme: Ed25519 (no prehash) over the card's compact JSON without
 * `signature`, its members in the agent's struct order (not sorted):
 * `protocolVersion, name, description, version, address, lezAccount, capabilities{streaming},
 * skills[{id, name, description, priceLez}], signingPubkey`. Members the struct does not have are not signed, so
 * they are dropped before the bytes are rebuilt. The key travels in the card (`signingPubkey`): it proves the card
 * is whole, not who wrote it, which is why an operator pins it once (docs/bindings/logos-agent.md).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { LezAmount } from '../../card.ts';
import { peerAgentId, type PeerCardVerification } from '../common/peer-card.ts';
import { ACCOUNT_PATTERN, inboxTopic } from './wire.ts';

const Hex = (bytes: number) =>
  z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `${bytes} bytes of lowercase hex`);

const Skill = z.object({
  id: z.string().min(1).max(128),
  name: z.string().min(1).max(256),
  description: z.string().max(4096),
  priceLez: LezAmount,
});

/** The card as the logos-agent project writes it (not this project's `LogosAgentCard` of card.ts). */
export const PeerLogosAgentCard = z.object({
  protocolVersion: z.string(),
  name: z.string().min(1).max(256),
  description: z.string().max(8192),
  version: z.string().min(1).max(64),
  address: z.string(),
  lezAccount: z.string().regex(ACCOUNT_PATTERN, 'a base58 LEZ account id'),
  capabilities: z.object({ streaming: z.boolean() }),
  skills: z.array(Skill).min(1),
  signingPubkey: Hex(32),
  signature: Hex(64).optional(),
});
export type PeerLogosAgentCard = z.infer<typeof PeerLogosAgentCard>;

/** The bytes the agent signed: the struct's members in its order, compact. */
export function signedBytes(card: PeerLogosAgentCard): Uint8Array {
  return utf8ToBytes(
    JSON.stringify({
      protocolVersion: card.protocolVersion,
      name: card.name,
      description: card.description,
      version: card.version,
      address: card.address,
      lezAccount: card.lezAccount,
      capabilities: { streaming: card.capabilities.streaming },
      skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, priceLez: s.priceLez })),
      signingPubkey: card.signingPubkey,
    }),
  );
}

/**
 * Parses, verifies and maps a card heard on the discovery topic. A card whose `address` is not the inbox of its
 * own `lezAccount` is refused: the agent would never hear what is sent to it (as with cards of the agent's older
 * six-segment topics, which cannot be routed).
 */
export function verifyLogosAgentCard(json: unknown): PeerCardVerification {
  const parsed = PeerLogosAgentCard.safeParse(json);
  if (!parsed.success) {
    const unsigned = typeof json === 'object' && json !== null && !('signature' in json);
    return unsigned
      ? { ok: false, reason: 'unsigned', message: 'the card has no signature' }
      : { ok: false, reason: 'malformed', message: z.prettifyError(parsed.error) };
  }
  const card = parsed.data;
  if (card.signature === undefined) return { ok: false, reason: 'unsigned', message: 'the card has no signature' };
  if (!ed25519.verify(hexToBytes(card.signature), signedBytes(card), hexToBytes(card.signingPubkey))) {
    return { ok: false, reason: 'bad-signature', message: 'the Ed25519 signature does not verify over the card' };
  }
  if (card.address !== inboxTopic(card.lezAccount)) {
    return {
      ok: false,
      reason: 'not-callable',
      message: `address ${card.address.slice(0, 128)} is not the inbox of account ${card.lezAccount}`,
    };
  }
  return {
    ok: true,
    binding: 'logos-agent',
    signingKey: card.signingPubkey,
    card: {
      id: peerAgentId(card.name, card.lezAccount),
      name: card.name,
      description: card.description,
      version: card.version,
      // A2A streaming is the gateway's: it streams the updates the agent publishes (working, then the result).
      capabilities: { streaming: true },
      skills: card.skills.map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        'x-lez-price': s.priceLez,
      })),
      'x-lez-identity': { account_id: card.lezAccount },
      agentInterfaces: [{ type: 'logos-messaging', version: 'logos-agent', address: card.address }],
    },
  };
}
