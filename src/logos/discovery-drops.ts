/**
 * What discovery counts: announcements accepted, and those dropped by reason (the `reason` label of
 * `logos_a2a_discovery_drops_total`). Shared by our binding's discovery and the peer bindings'; a module of its own so
 * that neither, nor the directory that reads cards again at start, imports the other for it.
 */
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
}

/** Why an announcement was dropped: the counter it adds to, and the `reason` label of its metric. */
export type DropReason = Exclude<keyof DiscoveryCounters, 'accepted'>;
