/**
 * Agent cards on the discovery topic: agents announce their card periodically, the gateway listens and keeps its
 * directory from what it hears. A card is taken only from the party it names: the transport's authenticated sender
 * must be the card's Logos address, so nobody can announce a card that routes tasks to someone else.
 */
import { z } from 'zod';
import { LogosAgentCard, logosAddressOf } from './card.ts';
import { admitLogosCard } from './card-signature.ts';
import { isSeedCard } from './seed-dialect.ts';
import type { AgentDirectory } from './directory.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';

export const DEFAULT_DISCOVERY_TOPIC = '/logos/1/agent-discovery/proto';
export const MAX_CARD_BYTES = 64 * 1024;

const Announcement = z.object({
  v: z.literal(1),
  type: z.literal('agent_card'),
  /** Checked by `admitLogosCard`, which also reads the seed's dialect. */
  card: z.record(z.string(), z.unknown()),
  /** Changes each time the agent process starts: a new value means it lost whatever it had in memory. */
  instance: z.string().min(1).max(64).optional(),
});

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeAnnouncement(card: LogosAgentCard | Record<string, unknown>, instance?: string): Uint8Array {
  return encoder.encode(JSON.stringify({ v: 1, type: 'agent_card', card, ...(instance ? { instance } : {}) }));
}

export interface DiscoveryCounters {
  accepted: number;
  oversized: number;
  invalid: number;
  /** The sender is not the address the card names. */
  wrongSender: number;
  /** Another agent already holds the card's id. */
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
    wrongSender: 0,
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
    this.unsubscribe = this.transport.subscribe(this.topic, (payload, { sender }) => this.hear(payload, sender));
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

  private hear(payload: Uint8Array, sender: string | undefined): void {
    if (sender !== undefined && this.flooding(sender)) {
      this.counters.flood++;
      return;
    }
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
    // A seed agent announces its bare card.
    const parsed = Announcement.safeParse(isSeedCard(json) ? { v: 1, type: 'agent_card', card: json } : json);
    if (!parsed.success) {
      this.counters.invalid++;
      return;
    }
    const verified = admitLogosCard(parsed.data.card);
    if (!verified.ok) {
      if (verified.reason === 'oversized') this.counters.oversized++;
      else if (verified.reason === 'bad-price') this.counters.badPrice++;
      else if (verified.reason === 'malformed') this.counters.invalid++;
      else this.counters.badSignature++;
      return;
    }
    if ('unverified' in verified && !this.directory.acceptsUnverified) {
      this.counters[verified.why === 'unsigned' ? 'unsigned' : 'unverified']++;
      return;
    }
    const card = verified.card;
    if (sender !== undefined && sender !== logosAddressOf(card)) {
      this.counters.wrongSender++;
      return;
    }
    // A replay of the same agent's older card (another agent's claim on the id is `idTaken` below).
    const existing = this.directory.get(card.id);
    const held = existing?.address === logosAddressOf(card) ? existing.card['x-issued-at'] : undefined;
    if (held && (!card['x-issued-at'] || Date.parse(card['x-issued-at']) < Date.parse(held))) {
      this.counters.stale++;
      return;
    }
    if (!this.directory.register(card, new Date(), verified)) {
      this.counters.idTaken++;
      return;
    }
    this.counters.accepted++;
    const { instance } = parsed.data;
    if (instance !== undefined) {
      const address = logosAddressOf(card);
      const previous = this.instances.get(address);
      this.instances.set(address, instance);
      if (previous !== undefined && previous !== instance) this.onRestart(address);
    }
  }
}
