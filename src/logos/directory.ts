/**
 * The agents this gateway serves, by id: registered at start-up (in-process agents) or heard on the discovery
 * topic (discovery.ts), kept on disk when a store is given. Re-registering an unchanged card keeps its entry, so
 * its ETag and Last-Modified stay put. An agent not heard from for `offlineAfterMs` is offline: still listed and
 * served, marked as such.
 *
 * Unverified cards (card-signature.ts `admitLogosCard`) are kept only when the operator allows them
 * (`allowUnverified`), and rank below every other: one never takes the id of a verified or in-process agent, nor
 * replaces such an agent's card, while a verified card takes an id back from an unverified one.
 *
 * The gateway's own agents (`registerOwn`) take their ids from any entry an earlier run left, and an entry at an
 * address the transport cannot reach (kept by a run on another transport) is not loaded: neither may shadow a live
 * agent.
 *
 * A verified card is kept as signed and verified again when loaded (card-reading.ts `readAnnouncedCard`), so that a
 * restarted gateway serves it verified, its signature included, before the agent announces itself again. A peer
 * binding's card likewise, with its binding's scheme on the network it was heard on (peer-card-reading.ts, `readPeer`):
 * one that no longer verifies (a key no longer configured, a pilot pin that changed) is left out and logged, and so
 * is one an earlier version kept only as mapped, which nothing can verify again.
 *
 * Anyone can announce under any number of fresh keys, so the agents heard on the network are bounded (`maxAgents`):
 * once the directory holds that many, a card of an id it does not know is refused (`full`), while the agents it
 * holds keep updating. The agents it lists first keep their place; an operator raises the bound. An agent not heard
 * from for `forgetAfterMs` is forgotten (`forgetUnheard`): its entry, its row and its address's key pin go, and with
 * them its room, so that a key its agent rotated to, or another agent, may take its id and address.
 */
import type { DirectoryStore } from '../store/directory-store.ts';
import { callableCard, LogosAgentCard, logosAddressOf } from './card.ts';
import type { UnverifiedLogosCard, VerifiedLogosCard } from './card-signature.ts';
import { readAnnouncedCard } from './card-reading.ts';
import type { PeerCardReading, PeerCardStanding, StoredPeerCard } from './peer-card-reading.ts';
import { dialectOf, type Dialect } from './seed-dialect.ts';
import { DEFAULT_MAX_AGENTS } from './announcement-rate.ts';

export interface DirectoryEntry {
  readonly id: string;
  readonly card: LogosAgentCard;
  readonly address: string;
  /** When this card was first registered or last changed: the card's Last-Modified. */
  readonly updatedAt: Date;
  /** The agent's own signature over its card, as checked when the card was heard. */
  readonly verified?: VerifiedLogosCard;
  /** A peer binding's card: verified with its binding's scheme, as told here. */
  readonly peerVerified?: PeerCardStanding;
  /** Set when no documented rule vouches for the card (served only when unverified agents are allowed). */
  readonly unverified?: { reason: string };
}

/** How an unverified card is stored: wrapped, so that a restart still knows it for one. */
interface StoredUnverified {
  unverified: { reason: string };
  card: unknown;
}

/** How often a last-seen time is written back: hearing an agent every few seconds must not mean a write each time. */
const TOUCH_WRITE_EVERY_MS = 10_000;

/** How long an agent may go unheard before it is forgotten: long enough for any maintenance, not for ever. */
export const DEFAULT_FORGET_AFTER_MS = 30 * 24 * 3_600_000;

export class AgentDirectory {
  private readonly entries = new Map<string, DirectoryEntry>();
  /** The ids of the entries at each address, in the order they were listed: a task's binding is looked up by it. */
  private readonly idsAt = new Map<string, string[]>();
  /** The gateway's own agents (`registerOwn`): not counted against `maxAgents`. */
  private readonly own = new Set<string>();
  private readonly maxAgents: number;
  private readonly forgetAfterMs: number;
  private readonly forgotten: (entry: DirectoryEntry) => void;
  private readonly keep: (entry: DirectoryEntry) => boolean;
  /** When this directory began to listen (its making): silence is counted from here at the earliest. */
  private readonly listeningSince = Date.now();
  private readonly cardJson = new Map<string, string>();
  private readonly seen = new Map<string, Date>();
  private readonly seenWritten = new Map<string, number>();
  /** The key of the first peer card listed at each address, lowercase: see anotherKeyAt. */
  private readonly peerKeys = new Map<string, string>();
  private readonly store: DirectoryStore | undefined;
  private readonly offlineAfterMs: number;
  /** Where the directory, and the discovery listener that feeds it, say what an operator should know. */
  readonly log: (message: string) => void;
  /** Whether the transport can reach an address (network.ts `reaches`). */
  readonly reaches: (address: string) => boolean;
  /** Writes to the store, one after another, in the order the directory changed. */
  private writes: Promise<void> = Promise.resolve();
  /** Whether unverified cards are served (the operator's `allowUnverifiedAgents`). */
  readonly acceptsUnverified: boolean;
  private readonly readPeer: ((stored: StoredPeerCard) => PeerCardReading) | undefined;

  constructor(
    options: {
      store?: DirectoryStore;
      offlineAfterMs?: number;
      /** Agents heard on the network kept at most (see `full`). Default DEFAULT_MAX_AGENTS. */
      maxAgents?: number;
      /**
       * The ids of the gateway's own agents, registered after the load (`registerOwn`): their stored rows are not
       * counted against `maxAgents`, nor taken for agents heard.
       */
      ownIds?: readonly string[];
      /** An agent not heard from for this long is forgotten (`forgetUnheard`). Default 30 days. */
      forgetAfterMs?: number;
      /**
       * Hears each agent forgotten whose address no other listed agent has: what is kept of the address elsewhere (a
       * peer binding's pins) goes too.
       */
      forgotten?: (entry: DirectoryEntry) => void;
      /** Agents not to forget however long unheard (one a live task waits on); default none. */
      keep?: (entry: DirectoryEntry) => boolean;
      allowUnverified?: boolean;
      /** Whether the transport can reach an address (network.ts `reaches`); default: every address. */
      reaches?: (address: string) => boolean;
      /** Verifies a stored peer card again (peer-card-reading.ts); without it, no stored peer card is loaded. */
      readPeer?: (stored: StoredPeerCard) => PeerCardReading;
      log?: (message: string) => void;
    } = {},
  ) {
    this.store = options.store;
    this.reaches = options.reaches ?? (() => true);
    this.offlineAfterMs = options.offlineAfterMs ?? 90_000;
    this.maxAgents = options.maxAgents ?? DEFAULT_MAX_AGENTS;
    for (const id of options.ownIds ?? []) this.own.add(id);
    this.forgetAfterMs = options.forgetAfterMs ?? DEFAULT_FORGET_AFTER_MS;
    this.forgotten = options.forgotten ?? (() => undefined);
    this.keep = options.keep ?? (() => false);
    this.acceptsUnverified = options.allowUnverified ?? false;
    this.log = options.log ?? console.warn;
    this.readPeer = options.readPeer;
  }

  /** Reads the agents known from earlier runs: they are served at once, as offline until heard again. */
  async load(): Promise<void> {
    const all = (await this.store?.all()) ?? [];
    // Kept by a run with a higher bound (or by several replicas at once): the agents heard last are served, the rest
    // not (the store keeps them, for a higher bound again). The gateway's own are not counted.
    const heard = all.filter((stored) => !this.own.has(stored.id));
    const served =
      heard.length <= this.maxAgents
        ? undefined
        : new Set(heard.toSorted((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt)).slice(0, this.maxAgents));
    let over = 0;
    for (const stored of all) {
      if (served && !this.own.has(stored.id) && !served.has(stored)) {
        over++;
        continue;
      }
      const json = JSON.parse(stored.cardJson) as unknown;
      const unverified = isStoredUnverified(json) ? json.unverified : undefined;
      // Kept from a run that allowed unverified agents, by one that does not: not served.
      if (unverified && !this.acceptsUnverified) continue;
      const read = isStoredPeer(json)
        ? this.readStoredPeer(json)
        : this.readStored(unverified ? (json as StoredUnverified).card : json);
      if (!read) continue;
      const { verified, peerVerified } = read;
      // Kept by a run on another transport: served, it would fail every call; the agent announces itself again here.
      const card = callableCard(read.card, this.reaches);
      if (!card) {
        const address = read.card.agentInterfaces[0]!.address;
        this.log(`[directory] "${read.card.id}" left out: its address ${address} is not one this transport reaches`);
        continue;
      }
      const address = logosAddressOf(card);
      const entry: DirectoryEntry = {
        id: card.id,
        card,
        address,
        updatedAt: new Date(stored.updatedAt),
        ...(verified ? { verified } : {}),
        ...(peerVerified ? { peerVerified } : {}),
        ...(unverified ? { unverified } : {}),
      };
      this.list(entry);
      if (peerVerified) this.pinPeerKey(address, peerVerified.signingKey);
      // What its binding keeps of a listed card (pilot's pin), made again if it was lost.
      if ('listed' in read) read.listed?.();
      this.cardJson.set(entry.id, JSON.stringify(verified?.signedCard ?? peerVerified?.signedCard ?? card));
      this.seen.set(entry.id, new Date(stored.lastSeenAt));
      this.seenWritten.set(entry.id, Date.parse(stored.lastSeenAt));
    }
    if (over > 0)
      this.log(`[directory] ${over} stored agent(s) left out: the directory holds at most ${this.maxAgents}`);
  }

  /**
   * Forgets the agents heard on the network and not since `forgetAfterMs` before `now`, counted from when this
   * directory began to listen at the earliest (a gateway that was down that long has not listened, and its agents
   * have not gone silent): their entries, their rows (unless another replica heard them since) and their addresses'
   * key pins. The gateway's own agents stay, and so do those `keep` holds (an agent a live task waits on). Returns
   * the ids forgotten.
   */
  forgetUnheard(now = Date.now()): string[] {
    const before = now - this.forgetAfterMs;
    if (this.listeningSince > before) return [];
    const unheardSince = new Date(before).toISOString();
    const gone: string[] = [];
    for (const entry of [...this.entries.values()]) {
      if (this.own.has(entry.id) || (this.seen.get(entry.id)?.getTime() ?? now) >= before) continue;
      if (this.keep(entry)) continue;
      this.unlist(entry);
      this.cardJson.delete(entry.id);
      this.seen.delete(entry.id);
      this.seenWritten.delete(entry.id);
      this.write((store) => store.forget(entry.id, unheardSince));
      // The address is free once no agent is listed there: its key pins go (another id there keeps them).
      if (!this.idsAt.has(entry.address)) {
        this.peerKeys.delete(entry.address);
        this.forgotten(entry);
      }
      gone.push(entry.id);
    }
    if (gone.length > 0) {
      const days = Math.round(this.forgetAfterMs / 86_400_000);
      const some = gone.slice(0, 10).join(', ');
      this.log(`[directory] ${gone.length} agent(s) not heard for ${days} day(s) forgotten: ${some}`);
    }
    return gone;
  }

  /**
   * A stored card as this run reads it: a signed one verified again, as if just heard (left out, and logged, when
   * it would be refused now); any other as the card schema reads it (skipped, not fatal, when it no longer parses:
   * a card from an older version; the agent re-announces itself).
   */
  private readStored(
    json: unknown,
  ): { card: LogosAgentCard; verified?: VerifiedLogosCard; peerVerified?: undefined } | undefined {
    if (typeof json === 'object' && json !== null && 'signature' in json) {
      const read = readAnnouncedCard(json, this.reaches);
      if (read.ok && !('unverified' in read)) return { card: read.card, verified: read };
      if (!read.ok) {
        const id = 'id' in json ? JSON.stringify(json.id) : 'a stored card';
        this.log(`[directory] ${id} left out, as a card heard now would be (${read.reason}): ${read.message}`);
        return undefined;
      }
    }
    const parsed = LogosAgentCard.safeParse(json);
    if (!parsed.success) return undefined;
    const dialect = dialectOf(parsed.data);
    // A peer binding's card, kept only as mapped (an earlier version): nothing vouches for it any more.
    if (dialect !== 'binding' && dialect !== 'seed') {
      this.log(`[directory] "${parsed.data.id}" left out: kept without its signed card, it cannot be verified again`);
      return undefined;
    }
    return { card: parsed.data };
  }

  /** A stored peer card verified again with its binding's scheme, as if just heard; left out, and logged, if not. */
  private readStoredPeer(
    stored: StoredPeerCard,
  ): { card: LogosAgentCard; verified?: undefined; peerVerified: PeerCardStanding; listed?: () => void } | undefined {
    const read = this.readPeer?.(stored) ?? {
      ok: false,
      reason: 'unverified',
      message: 'this directory verifies no peer card',
    };
    if (read.ok)
      return { card: read.card, peerVerified: read.standing, ...(read.listed ? { listed: read.listed } : {}) };
    const agent = `${stored.peer.binding} agent on ${JSON.stringify(stored.peer.network)}`;
    this.log(`[directory] a stored ${agent} left out, as a card heard now would be (${read.reason}): ${read.message}`);
    return undefined;
  }

  /**
   * Adds or refreshes an agent; returns its entry (the existing one when the card did not change), or undefined
   * when the id is not the card's to take: another address holds it (the first agent to claim an id keeps it, except
   * that a verified card takes it from an unverified one), or the card is unverified and the id's holder is not, or
   * unverified cards are not allowed, or the directory is `full`. `standing` is what `admitLogosCard` said of the
   * card, or what verified a peer binding's card (peer-card-reading.ts); absent: an in-process agent, or a card the
   * caller vouches for.
   */
  register(
    card: LogosAgentCard,
    at = new Date(),
    standing?: VerifiedLogosCard | UnverifiedLogosCard | PeerCardStanding,
  ): DirectoryEntry | undefined {
    const peerVerified = standing && 'scheme' in standing ? standing : undefined;
    const unverified = standing && 'unverified' in standing ? { reason: standing.reason } : undefined;
    const verified = standing && 'signature' in standing ? standing : undefined;
    if (unverified && !this.acceptsUnverified) return undefined;
    const json = JSON.stringify(verified?.signedCard ?? peerVerified?.signedCard ?? card);
    let existing = this.entries.get(card.id);
    if (existing && unverified && !existing.unverified) return undefined;
    if (existing && existing.address !== logosAddressOf(card)) {
      if (unverified || !existing.unverified) return undefined;
      existing = undefined; // verified always wins: the unverified holder loses the id
    }
    if (peerVerified && this.anotherKeyAt(logosAddressOf(card), peerVerified.signingKey)) return undefined;
    if (!existing && this.full(card.id)) return undefined;
    this.seen.set(card.id, at);
    if (existing && this.cardJson.get(card.id) === json) {
      if (at.getTime() - (this.seenWritten.get(card.id) ?? 0) >= TOUCH_WRITE_EVERY_MS) {
        this.write((store) => store.touch(card.id, at.toISOString()));
        this.seenWritten.set(card.id, at.getTime());
      }
      return existing;
    }
    const entry: DirectoryEntry = {
      id: card.id,
      card,
      address: logosAddressOf(card),
      updatedAt: at,
      ...(verified ? { verified } : {}),
      ...(peerVerified ? { peerVerified } : {}),
      ...(unverified ? { unverified } : {}),
    };
    this.list(entry);
    if (peerVerified) this.pinPeerKey(entry.address, peerVerified.signingKey);
    this.cardJson.set(card.id, json);
    // A verified card as signed, so that the next start can verify it again (`load`).
    const stored: StoredUnverified | StoredPeerCard | LogosAgentCard | Record<string, unknown> = unverified
      ? { unverified, card }
      : peerVerified
        ? { peer: { binding: peerVerified.binding, network: peerVerified.network }, card: peerVerified.signedCard }
        : (verified?.signedCard ?? card);
    this.write((store) =>
      store.save({
        id: card.id,
        cardJson: JSON.stringify(stored),
        updatedAt: at.toISOString(),
        lastSeenAt: at.toISOString(),
      }),
    );
    this.seenWritten.set(card.id, at.getTime());
    return entry;
  }

  /**
   * Registers an agent this gateway runs itself, at start-up, before anything is heard: the operator configured it
   * under its id, so it takes the id from whatever entry an earlier run left there (the same agent under another
   * transport or key, or another agent), which `register` would keep.
   */
  registerOwn(card: LogosAgentCard, standing?: VerifiedLogosCard): DirectoryEntry {
    const existing = this.entries.get(card.id);
    if (existing && existing.address !== logosAddressOf(card)) {
      this.unlist(existing);
      this.cardJson.delete(card.id);
    }
    this.own.add(card.id);
    return this.register(card, new Date(), standing)!;
  }

  /**
   * Whether a card of `id` would be refused for want of room: the directory does not know it and holds `maxAgents`
   * agents heard on the network already. The gateway's own agents always have room.
   */
  full(id: string): boolean {
    return !this.entries.has(id) && !this.own.has(id) && this.entries.size - this.own.size >= this.maxAgents;
  }

  /**
   * Why `register` refused a card (given `signingKey`, a peer card's): no room, another key pinned at its address, or
   * another agent holding its id. The one account both discoveries give of a refusal.
   */
  refusal(card: LogosAgentCard, signingKey?: string): { reason: 'directoryFull' | 'idTaken'; message: string } {
    if (this.full(card.id)) {
      const message = `the directory holds ${this.maxAgents} agents, its most (maxAgents): the agents it lists keep their place`;
      return { reason: 'directoryFull', message };
    }
    const address = logosAddressOf(card);
    if (signingKey !== undefined && this.anotherKeyAt(address, signingKey)) {
      const message = `a card signed by another key holds the address ${address.slice(0, 128)}: its first key is pinned`;
      return { reason: 'idTaken', message };
    }
    return { reason: 'idTaken', message: `another agent holds the id ${JSON.stringify(card.id)}` };
  }

  /** Sets an entry in place of the one with its id, if any, which keeps its place in the order of listing. */
  private list(entry: DirectoryEntry): void {
    const replaced = this.entries.get(entry.id);
    this.entries.set(entry.id, entry);
    if (replaced?.address === entry.address) return;
    if (replaced) this.unlistAddress(replaced);
    const ids = this.idsAt.get(entry.address);
    if (ids) ids.push(entry.id);
    else this.idsAt.set(entry.address, [entry.id]);
  }

  private unlist(entry: DirectoryEntry): void {
    this.entries.delete(entry.id);
    this.unlistAddress(entry);
  }

  private unlistAddress(entry: DirectoryEntry): void {
    const ids = this.idsAt.get(entry.address)?.filter((id) => id !== entry.id);
    if (ids?.length) this.idsAt.set(entry.address, ids);
    else this.idsAt.delete(entry.address);
  }

  /**
   * Whether another key than `signingKey` is pinned at `address`: that of the first peer card listed there (in this
   * run, or kept by an earlier one). A peer binding's address is not made from its agent's key (an account, an inbox
   * named by an encryption key), so the first key heard there is pinned to it: a card under another key would
   * otherwise take over the agent's listing (and name its own payee), or list itself beside it and answer its tasks.
   */
  anotherKeyAt(address: string, signingKey: string): boolean {
    const held = this.peerKeys.get(address);
    return held !== undefined && held !== signingKey.toLowerCase();
  }

  private pinPeerKey(address: string, signingKey: string): void {
    if (!this.peerKeys.has(address)) this.peerKeys.set(address, signingKey.toLowerCase());
  }

  /** The network of the agent at `address` (its card's interface); undefined for the gateway's own network. */
  networkAt(address: string): string | undefined {
    const first = this.idsAt.get(address)?.[0];
    return first === undefined ? undefined : this.entries.get(first)!.card.agentInterfaces[0]!.network;
  }

  /**
   * The dialect of the agent at `address` (seed-dialect.ts); `binding` when no card names the address. An agent on
   * our runtime may announce both this binding's card and a seed card at one address (docs/bindings/seed.md §6):
   * the card the task was sent to, `agentId`, says which of the two it speaks.
   */
  dialectAt(address: string, agentId?: string): Dialect {
    const named = agentId === undefined ? undefined : this.entries.get(agentId);
    if (named?.address === address) return dialectOf(named.card);
    const first = this.idsAt.get(address)?.[0];
    return first === undefined ? 'binding' : dialectOf(this.entries.get(first)!.card);
  }

  get(id: string): DirectoryEntry | undefined {
    return this.entries.get(id);
  }

  /** When the agent's card was last heard or registered. */
  lastSeen(id: string): Date | undefined {
    return this.seen.get(id);
  }

  isOnline(id: string, now = Date.now()): boolean {
    const seen = this.seen.get(id);
    return seen !== undefined && now - seen.getTime() < this.offlineAfterMs;
  }

  all(): DirectoryEntry[] {
    return [...this.entries.values()];
  }

  /** Resolves once every change so far is in the store. */
  flush(): Promise<void> {
    return this.writes;
  }

  /**
   * The directory is the truth while running and the store only what the next start reads, so a change does not
   * wait for its write; a failed write is logged, and the agent's next announcement writes it again.
   */
  private write(change: (store: DirectoryStore) => Promise<void>): void {
    const store = this.store;
    if (!store) return;
    this.writes = this.writes
      .then(() => change(store))
      .catch((error: unknown) => this.log(`[directory] writing to the store: ${String(error)}`));
  }
}

function isStoredPeer(json: unknown): json is StoredPeerCard {
  return typeof json === 'object' && json !== null && 'peer' in json && 'card' in json;
}

function isStoredUnverified(json: unknown): json is StoredUnverified {
  return typeof json === 'object' && json !== null && 'unverified' in json && 'card' in json;
}
