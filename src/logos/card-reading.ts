/**
 * How the gateway reads an agent card it hears announced on the discovery topic (discovery.ts), or kept from an
 * earlier run (directory.ts): what the card claims, whether anything vouches for it, and the address it is called at.
 */
import { callableCard, LogosAgentCard, logosAddressOf } from './card.ts';
import { admitLogosCard, type LogosCardAdmission, type LogosCardRejection } from './card-signature.ts';
import { canonicalCard } from './seed-dialect.ts';
import { isWakuAddress, verifyAddressProof } from './transports/waku/identity.ts';

export type CardReading =
  | Exclude<LogosCardAdmission, { ok: false }>
  | { ok: false; reason: 'invalid' | 'bad-price' | 'bad-address' | LogosCardRejection; message: string };

/** Whether a transport reaches an address (network.ts `reaches`). */
export type Reaches = (address: string) => boolean;

/**
 * The one place an announced card is read (and a stored one read again at start, directory.ts): checked against
 * the card schema (a seed card as mapped to this binding's, seed-dialect.ts), then its signature verified on the
 * card as sent (the schema drops `signature` and fills defaults), then its address spelt as the transport takes it
 * (`callableCard`: a card it cannot call is `bad-address`), then, for a waku address, the address's proof that it
 * accepts the card's account. A card no documented rule verifies comes back unverified (`admitLogosCard`): nothing
 * proves its address either. `reaches` defaults to the Waku transports' rule.
 */
export function readAnnouncedCard(json: unknown, reaches: Reaches = isWakuAddress): CardReading {
  return admitClaimedCard(json, claimedCard(json), reaches);
}

/** What a card claims, before anything vouches for it: the card schema's reading of it. */
export type ClaimedCard =
  { ok: true; card: LogosAgentCard } | { ok: false; reason: 'invalid' | 'bad-price'; message: string };

export function claimedCard(json: unknown): ClaimedCard {
  const canonical = canonicalCard(json);
  if (!canonical.ok) return canonical;
  const parsed = LogosAgentCard.safeParse(canonical.card);
  if (!parsed.success) return { ok: false, reason: 'invalid', message: parsed.error.message };
  return { ok: true, card: parsed.data };
}

/** `readAnnouncedCard` past the schema check, whose reading of `json` is `claimed`. */
export function admitClaimedCard(json: unknown, claimed: ClaimedCard, reaches: Reaches): CardReading {
  if (!claimed.ok) return claimed;
  const admitted = admitLogosCard(json as Record<string, unknown>);
  if (!admitted.ok) return admitted;
  const card = callableCard(admitted.card, reaches);
  if (!card) {
    return {
      ok: false,
      reason: 'bad-address',
      message: `this gateway's transport cannot send to ${JSON.stringify(admitted.card.agentInterfaces[0]!.address)}`,
    };
  }
  if ('unverified' in admitted) return { ...admitted, card };
  const address = logosAddressOf(card);
  const proof = card['x-logos-address-proof'];
  if (isWakuAddress(address) && !(proof && verifyAddressProof(address, admitted.accountId, proof))) {
    return { ok: false, reason: 'bad-signature', message: `no valid x-logos-address-proof by ${address}` };
  }
  return { ...admitted, card };
}
