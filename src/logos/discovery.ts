/**
 * Agent cards on the discovery topic: agents announce their card periodically, as a plain publication whose payload
 * is the signed card's JSON and nothing else (docs/discovery.md §1); the gateway listens and keeps its directory from
 * what it hears. Plain publications name no sender, so a card vouches for itself: it is taken only when signed by
 * the key of the LEZ account it names and, for a waku address, when the address's key accepts that account
 * (`x-logos-address-proof`); once an id is held, only a card for the same address and account replaces it.
 *
 * Every announcement dropped is counted by reason (`counters`, and `logos_a2a_discovery_drops_total` in /metrics)
 * and logged once per agent and reason, so that an agent's author can find out why its card is not served.
 */
import { AnnouncementRate, FLOOD_LIMIT, FLOOD_WINDOW_MS } from './announcement-rate.ts';
import { LogosAgentCard, logosAddressOf } from './card.ts';
import { admitClaimedCard, claimedCard, type CardReading } from './card-reading.ts';
import type { AgentDirectory } from './directory.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';
import { isPlainObject } from '../json-object.ts';
import { DiscoveryDrops, type DiscoveryCounters, type DropReason } from './discovery-drops.ts';

export const DEFAULT_DISCOVERY_TOPIC = '/logos/1/agent-discovery/proto';
export const MAX_CARD_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The payload of an announcement: the card as signed. */
export function encodeAnnouncement(card: LogosAgentCard | Record<string, unknown>): Uint8Array {
  return encoder.encode(JSON.stringify(card));
}

export class DiscoveryListener {
  readonly counters: DiscoveryCounters;
  /** Announcements per claimed address: a flood is cut off before its signature is checked. */
  private readonly rate = new AnnouncementRate();
  private readonly drops: DiscoveryDrops;
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
    this.drops = new DiscoveryDrops((line) => directory.log(line));
    this.counters = this.drops.counters;
  }

  start(): void {
    this.unsubscribe = this.transport.subscribe(this.topic, (payload) => this.hear(payload));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private hear(payload: Uint8Array): void {
    if (payload.byteLength > MAX_CARD_BYTES) {
      this.drops.drop('oversized', undefined, `${payload.byteLength} bytes, more than ${MAX_CARD_BYTES}`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(payload));
    } catch {
      this.drops.drop('invalid', undefined, 'not UTF-8 JSON');
      return;
    }
    const claimed = claimedCard(json);
    const agent = claimed.ok
      ? `"${claimed.card.id}" at ${claimed.card.agentInterfaces[0]!.address}`
      : isPlainObject(json) && typeof json.id === 'string'
        ? JSON.stringify(json.id.slice(0, 128))
        : undefined;
    // Counted per claimed address before the signature is checked: a flood is cut off before the costly part.
    if (claimed.ok && this.rate.flooding(logosAddressOf(claimed.card))) {
      this.drops.drop('flood', agent, `more than ${FLOOD_LIMIT} announcements in ${FLOOD_WINDOW_MS / 1000} s`);
      return;
    }
    // No room for an agent the directory does not know: refused before the costly part too.
    if (claimed.ok && this.directory.full(claimed.card.id)) {
      this.drops.drop('directoryFull', agent, this.directory.refusal(claimed.card).message);
      return;
    }
    const verified = admitClaimedCard(json, claimed, (address) => this.directory.reaches(address));
    if (!verified.ok) {
      this.drops.drop(DROP_REASONS[verified.reason], agent, verified.message);
      return;
    }
    if ('unverified' in verified && !this.directory.acceptsUnverified) {
      this.drops.drop(
        verified.why === 'unsigned' ? 'unsigned' : 'unverified',
        agent,
        `${verified.reason} This gateway serves only verified agents.`,
      );
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
      this.drops.drop(
        'idTaken',
        agent,
        `the id is held for this address by a card of account ${existing.verified.accountId}`,
      );
      return;
    }
    // A replay of the same agent's older card (another agent's claim on the id is `idTaken` below).
    const held = existing?.address === address ? existing.card['x-issued-at'] : undefined;
    if (held && (!card['x-issued-at'] || Date.parse(card['x-issued-at']) < Date.parse(held))) {
      this.drops.drop(
        'stale',
        agent,
        `issued ${card['x-issued-at'] ?? 'at no stated time'}, before the card held (${held})`,
      );
      return;
    }
    if (!this.directory.register(card, new Date(), verified)) {
      const { reason, message } = this.directory.refusal(card);
      this.drops.drop(reason, agent, message);
      return;
    }
    this.drops.accept(agent);
    const instance = card['x-instance'];
    if (instance !== undefined) {
      const previous = this.instances.get(address);
      this.instances.set(address, instance);
      if (previous !== undefined && previous !== instance) this.onRestart(address);
    }
  }
}

/** The counter of each reason `readAnnouncedCard` refuses a card for. */
const DROP_REASONS: Record<Exclude<CardReading, { ok: true }>['reason'], DropReason> = {
  invalid: 'invalid',
  oversized: 'oversized',
  unsigned: 'unsigned',
  'bad-price': 'badPrice',
  'bad-address': 'badAddress',
  'bad-signature': 'badSignature',
  malformed: 'badSignature',
  'account-mismatch': 'badSignature',
};
