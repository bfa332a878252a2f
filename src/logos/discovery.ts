/**
 * Agent cards on the discovery topic: agents announce their card periodically, as a plain publication whose payload
 * is the signed card's JSON and nothing else (docs/discovery.md §1); the gateway listens and keeps its directory from
 * what it hears. Plain publications name no sender, so a card vouches for itself: it is taken only when signed by
 * the key of the LEZ account it names and, for a waku address, when the address's key accepts that account
 * (`x-logos-address-proof`); once an id is held, only a card for the same address and account replaces it.
 */
import { LogosAgentCard, logosAddressOf } from './card.ts';
import { admitLogosCard, type LogosCardAdmission, type LogosCardRejection } from './card-signature.ts';
import { canonicalCard } from './seed-dialect.ts';
import type { AgentDirectory } from './directory.ts';
import { isWakuAddress, verifyAddressProof } from './transports/waku/identity.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';

export const DEFAULT_DISCOVERY_TOPIC = '/logos/1/agent-discovery/proto';
export const MAX_CARD_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The payload of an announcement: the card as signed. */
export function encodeAnnouncement(card: LogosAgentCard | Record<string, unknown>): Uint8Array {
  return encoder.encode(JSON.stringify(card));
}

export type CardReading =
  | Exclude<LogosCardAdmission, { ok: false }>
  | { ok: false; reason: 'invalid' | 'bad-price' | LogosCardRejection; message: string };

/**
 * The one place an announced card is read: checked against the card schema (a seed card as mapped to this
 * binding's, seed-dialect.ts), then its signature verified on the card as sent (the schema drops `signature` and
 * fills defaults), then, for a waku address, the address's proof that it accepts the card's account. A card no
 * documented rule verifies comes back unverified (`admitLogosCard`): nothing proves its address either.
 */
export function readAnnouncedCard(json: unknown): CardReading {
  return admitClaimedCard(json, claimedCard(json));
}

/** What a card claims, before anything vouches for it: the card schema's reading of it. */
type ClaimedCard = { ok: true; card: LogosAgentCard } | { ok: false; reason: 'invalid' | 'bad-price'; message: string };

function claimedCard(json: unknown): ClaimedCard {
  const canonical = canonicalCard(json);
  if (!canonical.ok) return canonical;
  const parsed = LogosAgentCard.safeParse(canonical.card);
  if (!parsed.success) return { ok: false, reason: 'invalid', message: parsed.error.message };
  return { ok: true, card: parsed.data };
}

/** `readAnnouncedCard` past the schema check, whose reading of `json` is `claimed`. */
function admitClaimedCard(json: unknown, claimed: ClaimedCard): CardReading {
  if (!claimed.ok) return claimed;
  const verified = admitLogosCard(json as Record<string, unknown>);
  if (!verified.ok || 'unverified' in verified) return verified;
  const address = logosAddressOf(verified.card);
  const proof = verified.card['x-logos-address-proof'];
  if (isWakuAddress(address) && !(proof && verifyAddressProof(address, verified.accountId, proof))) {
    return { ok: false, reason: 'bad-signature', message: `no valid x-logos-address-proof by ${address}` };
  }
  return verified;
}

export interface DiscoveryCounters {
  accepted: number;
  oversized: number;
  invalid: number;
  /** Another agent (another address, or another account) already holds the card's id. */
  idTaken: number;
  /** No signature: a card is served only when its account's key signed it. */
  unsigned: number;
  /** Tampered, signed by another key, or bound to an account the key does not control. */
  badSignature: number;
  /** Signed in a form no documented rule checks (the seed's), while unverified agents are not allowed. */
  unverified: number;
  /** A price that is no whole number of LEZ base units. */
  badPrice: number;
  /** Older than the card already held for the agent: a replay. */
  stale: number;
  /** Over the per-sender rate: a flood is cut off before any work is done on it. */
  flood: number;
}

/** Announcements a sender may make in `FLOOD_WINDOW_MS` (an honest agent makes one every 30 s). */
const FLOOD_LIMIT = 10;
const FLOOD_WINDOW_MS = 60_000;

export class DiscoveryListener {
  readonly counters: DiscoveryCounters = {
    accepted: 0,
    oversized: 0,
    invalid: 0,
    idTaken: 0,
    unsigned: 0,
    badSignature: 0,
    unverified: 0,
    badPrice: 0,
    stale: 0,
    flood: 0,
  };
  /** Per sender: announcements in the current window, and when it started. Bounded by dropping idle senders. */
  private readonly rates = new Map<string, { count: number; since: number }>();
  private unsubscribe?: Unsubscribe;
  private readonly transport: LogosTransport;
  private readonly directory: AgentDirectory;
  private readonly topic: string;
  private readonly instances = new Map<string, string>();
  private readonly onRestart: (address: string) => void;

  /** `onRestart` hears of an agent that announces a new instance (it restarted and forgot its tasks). */
  constructor(
    transport: LogosTransport,
    directory: AgentDirectory,
    topic = DEFAULT_DISCOVERY_TOPIC,
    onRestart: (address: string) => void = () => undefined,
  ) {
    this.transport = transport;
    this.directory = directory;
    this.topic = topic;
    this.onRestart = onRestart;
  }

  start(): void {
    this.unsubscribe = this.transport.subscribe(this.topic, (payload) => this.hear(payload));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** Counts the announcement against its sender's window; true when the sender is over the limit. */
  private flooding(sender: string): boolean {
    const now = Date.now();
    let rate = this.rates.get(sender);
    if (!rate || now - rate.since >= FLOOD_WINDOW_MS) {
      if (this.rates.size >= 10_000) {
        for (const [key, value] of this.rates) if (now - value.since >= FLOOD_WINDOW_MS) this.rates.delete(key);
      }
      rate = { count: 0, since: now };
      this.rates.set(sender, rate);
    }
    rate.count++;
    return rate.count > FLOOD_LIMIT;
  }

  private hear(payload: Uint8Array): void {
    if (payload.byteLength > MAX_CARD_BYTES) {
      this.counters.oversized++;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(payload));
    } catch {
      this.counters.invalid++;
      return;
    }
    // Counted per claimed address before the signature is checked: a flood is cut off before the costly part.
    const claimed = claimedCard(json);
    if (claimed.ok && this.flooding(logosAddressOf(claimed.card))) {
      this.counters.flood++;
      return;
    }
    const verified = admitClaimedCard(json, claimed);
    if (!verified.ok) {
      if (verified.reason === 'invalid') this.counters.invalid++;
      else if (verified.reason === 'unsigned') this.counters.unsigned++;
      else if (verified.reason === 'oversized') this.counters.oversized++;
      else if (verified.reason === 'bad-price') this.counters.badPrice++;
      else this.counters.badSignature++;
      return;
    }
    if ('unverified' in verified && !this.directory.acceptsUnverified) {
      this.counters[verified.why === 'unsigned' ? 'unsigned' : 'unverified']++;
      return;
    }
    const card = verified.card;
    const address = logosAddressOf(card);
    const existing = this.directory.get(card.id);
    // The id is held for this address by another account: a card signed by someone else cannot take it over.
    if (
      existing?.verified &&
      existing.address === address &&
      ('unverified' in verified || existing.verified.accountId !== verified.accountId)
    ) {
      this.counters.idTaken++;
      return;
    }
    // A replay of the same agent's older card (another agent's claim on the id is `idTaken` below).
    const held = existing?.address === address ? existing.card['x-issued-at'] : undefined;
    if (held && (!card['x-issued-at'] || Date.parse(card['x-issued-at']) < Date.parse(held))) {
      this.counters.stale++;
      return;
    }
    if (!this.directory.register(card, new Date(), verified)) {
      this.counters.idTaken++;
      return;
    }
    this.counters.accepted++;
    const instance = card['x-instance'];
    if (instance !== undefined) {
      const previous = this.instances.get(address);
      this.instances.set(address, instance);
      if (previous !== undefined && previous !== instance) this.onRestart(address);
    }
  }
}
