/**
 * The choices of a publication that configuration names, kept apart from the code that publishes: the gateway's
 * settings schema reads them without loading the A2A client.
 */

/**
 * What is done with an HTTP agent's card by its own signature: `refuse-bad-signature` (default) publishes unsigned
 * cards and cards whose keys cannot be had, marked unverified, and refuses a card whose signature does not match it
 * (tampered); `require-signature` publishes verified cards only; `record` publishes any card, with what its
 * signature said.
 */
export const CARD_POLICIES = ['refuse-bad-signature', 'require-signature', 'record'] as const;
export type CardPolicy = (typeof CARD_POLICIES)[number];

/** Tasks carried to one HTTP agent at once, unless configured: more are refused until one ends. */
export const DEFAULT_MAX_CONCURRENT = 8;

/** The window a publication's `rateLimit` counts tasks in, unless configured: a minute. */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;
