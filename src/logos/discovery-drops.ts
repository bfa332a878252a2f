/**
 * What discovery counts: announcements accepted, and those dropped by reason (the `reason` label of
 * `logos_a2a_discovery_drops_total`), each drop logged once per agent and reason. Shared by our binding's discovery
 * and the peer bindings'; a module of its own so that neither, nor the directory that reads cards again at start,
 * imports the other for it.
 */
import { metrics } from '../observability/metrics.ts';

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
  /** An address this gateway's transport cannot send to, in any spelling it takes: every call would fail. */
  badAddress: number;
  /** Older than the card already held for the agent: a replay. */
  stale: number;
  /** Over the per-address rate (announcement-rate.ts): a flood is cut off before any work is done on it. */
  flood: number;
  /** A new agent while the directory holds its most (`maxAgents`): the agents it lists keep their place. */
  directoryFull: number;
}

/** Why an announcement was dropped: the counter it adds to, and the `reason` label of its metric. */
export type DropReason = Exclude<keyof DiscoveryCounters, 'accepted'>;

/** Agents whose last drop was logged: a bound, since anyone can announce under any number of ids. */
const LOGGED_AGENTS_LIMIT = 10_000;
/**
 * Drops logged in a minute at most: a flood under fresh ids is a new agent at every announcement, and would be a log
 * line each. Those past it are counted, and said in one line when the minute is over (the metric counts them all).
 */
const LOGGED_PER_MINUTE = 60;

export class DiscoveryDrops {
  readonly counters: DiscoveryCounters = {
    accepted: 0,
    oversized: 0,
    invalid: 0,
    idTaken: 0,
    unsigned: 0,
    badSignature: 0,
    unverified: 0,
    badPrice: 0,
    badAddress: 0,
    stale: 0,
    flood: 0,
    directoryFull: 0,
  };
  /** Per agent: the reason its last logged drop had; forgotten once a card of it is accepted. */
  readonly #logged = new Map<string, DropReason>();
  /** This minute's log lines, and the drops past them (see LOGGED_PER_MINUTE). */
  #minute = { start: 0, logged: 0, unlogged: 0 };
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /**
   * Counts a dropped announcement, and logs it when it is about an agent (a card that names an id) whose last drop
   * logged had another reason, or none: an agent that announces every 30 s is not logged every 30 s.
   */
  drop(reason: DropReason, agent: string | undefined, message: string): void {
    this.counters[reason]++;
    metrics.discoveryDrops.inc({ reason });
    if (agent === undefined || this.#logged.get(agent) === reason) return;
    if (this.#logged.size >= LOGGED_AGENTS_LIMIT) this.#logged.clear();
    this.#logged.set(agent, reason);
    if (!this.#withinBudget()) return;
    this.#log(`[discovery] the card of ${agent} is not served (${reason}): ${message}`);
  }

  /** Whether this minute's log lines are not spent; says how many went unlogged in the minute before, once. */
  #withinBudget(now = Date.now()): boolean {
    if (now - this.#minute.start >= 60_000) {
      if (this.#minute.unlogged > 0) {
        const unlogged = this.#minute.unlogged;
        this.#log(
          `[discovery] ${unlogged} more dropped card(s) not logged in a minute (logos_a2a_discovery_drops_total counts them)`,
        );
      }
      this.#minute = { start: now, logged: 0, unlogged: 0 };
    }
    if (this.#minute.logged < LOGGED_PER_MINUTE) {
      this.#minute.logged++;
      return true;
    }
    this.#minute.unlogged++;
    return false;
  }

  /** Counts an accepted card: a later drop of its agent is logged again. */
  accept(agent: string | undefined): void {
    this.counters.accepted++;
    if (agent !== undefined) this.#logged.delete(agent);
  }
}
