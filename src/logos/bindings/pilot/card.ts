/**
 * A pilot card, checked as pilot checks one: `signature.alg` is ES256K, `signature.publicKey` is the card's own
 * `_logos.signing_key`, the signature verifies over the whole card without its top-level `signature` (members
 * sorted, signing.ts), and the agent's identity (`_logos.npk`, an opaque string compared as it is) is bound to that
 * key the first time it is seen: a later card of the same identity signed by another key is refused (first contact
 * pinning). The pin itself is the caller's to keep (with the directory): it passes what it pinned, and keeps what a
 * verified card answers.
 */
import { z } from 'zod';
import { isPlainObject } from '../../../json-object.ts';
import { PeerSkills, peerAgentId, type PeerCardVerification } from '../common/peer-card.ts';
import { sameKey, verifyObject } from './signing.ts';
import { inboxTopic } from './wire.ts';

const KeyHex = z.string().regex(/^(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/, 'a SEC1 secp256k1 public key in hex');

export const PilotCard = z.object({
  _logos: z.object({
    enc_key: KeyHex,
    inbox_topic: z.string().optional(),
    npk: z.string().min(1).max(4096),
    open_for_hire: z.boolean(),
    payout: z.string().optional(),
    pricing: z.record(z.string(), z.number().int().nonnegative()).default({}),
    signing_key: KeyHex,
  }),
  description: z.string().max(8192).default(''),
  name: z.string().min(1).max(256),
  signature: z.object({ alg: z.string(), publicKey: z.string(), value: z.string().regex(/^[0-9a-fA-F]+$/) }),
  skills: PeerSkills,
  version: z.string().min(1).max(64).default('1.0.0'),
});
export type PilotCard = z.infer<typeof PilotCard>;

/** What a verified card binds: the agent's identity to its signing key, for the caller to pin. */
export interface PilotPin {
  readonly npk: string;
  readonly signingKey: string;
}

export type PilotCardVerification = PeerCardVerification & { readonly pin?: PilotPin; readonly agent?: PilotCard };

/**
 * Parses, verifies and maps a card. `pinnedKey` is the signing key first seen for this card's `_logos.npk`, if
 * any. A card that is closed for hire, or whose `inbox_topic` is not the inbox of its `enc_key`, is refused as
 * not callable.
 */
export function verifyPilotCard(json: unknown, pinnedKey: (npk: string) => string | undefined): PilotCardVerification {
  if (!isPlainObject(json)) return { ok: false, reason: 'malformed', message: 'a card is a JSON object' };
  if (json.signature === undefined) return { ok: false, reason: 'unsigned', message: 'the card has no signature' };
  const parsed = PilotCard.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'malformed', message: z.prettifyError(parsed.error) };
  const card = parsed.data;
  if (card.signature.alg !== 'ES256K' || !sameKey(card.signature.publicKey, card._logos.signing_key)) {
    return { ok: false, reason: 'key-mismatch', message: 'the signature is not ES256K by the card’s own signing key' };
  }
  // Signed as written: every member but `signature`, those the schema does not know included.
  const { signature: _signature, ...unsigned } = json;
  if (!verifyObject(unsigned, card.signature.value, card._logos.signing_key)) {
    return { ok: false, reason: 'bad-signature', message: 'the ES256K signature does not verify over the card' };
  }
  const pinned = pinnedKey(card._logos.npk);
  if (pinned !== undefined && !sameKey(pinned, card._logos.signing_key)) {
    return {
      ok: false,
      reason: 'pin-mismatch',
      message: 'this agent identity was first seen with another signing key',
    };
  }
  const inbox = inboxTopic(card._logos.enc_key);
  if (!card._logos.open_for_hire || (card._logos.inbox_topic !== undefined && card._logos.inbox_topic !== inbox)) {
    const why = card._logos.open_for_hire ? `its inbox_topic is not ${inbox}` : 'the agent is not open for hire';
    return { ok: false, reason: 'not-callable', message: why };
  }
  return {
    ok: true,
    binding: 'pilot',
    signingKey: card._logos.signing_key.toLowerCase(),
    pin: { npk: card._logos.npk, signingKey: card._logos.signing_key.toLowerCase() },
    agent: card,
    card: {
      // Every pilot agent is named "Pilot Agent": its identity tells them apart.
      id: peerAgentId(card.name, card._logos.npk),
      name: card.name,
      description: card.description,
      version: card.version,
      // pilot's card claims streaming, but a request gets exactly one reply.
      capabilities: { streaming: false },
      skills: card.skills.map((s) => {
        const price = card._logos.pricing[s.id];
        return {
          id: s.id,
          name: s.name,
          description: s.description,
          ...(price === undefined ? {} : { 'x-lez-price': String(price) }),
        };
      }),
      agentInterfaces: [{ type: 'logos-messaging', version: 'pilot', address: inbox }],
    },
  };
}
