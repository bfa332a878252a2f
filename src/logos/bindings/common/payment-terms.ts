/**
 * When a peer binding's agent expects to be paid, as data the paid flow reads (issue #22 §4). None of the three
 * peer bindings puts a payment on the wire that the agent checks, and none refunds: the gateway pays on trust, and
 * its receipts and the binding's page say so.
 */

/**
 * - `before-sending`: paid, then the request is published (logos-agent).
 * - `after-publishing`: the request is published, then paid at once, with no acknowledgement awaited (lp-0008).
 * - `on-signed-completion`: paid only once a `completed` reply arrives whose signature verifies against the agent's
 *   pinned key, and at most once per task (pilot).
 */
export type PaymentTiming = 'before-sending' | 'after-publishing' | 'on-signed-completion';

export interface PaymentTerms {
  readonly timing: PaymentTiming;
  /** Whether the agent ever pays back (a failed or cancelled task): `none` for every peer binding. */
  readonly refunds: 'none';
  /** Whether the agent checks that it was paid before it works: no peer binding does. */
  readonly agentVerifiesPayment: false;
  /** Whether anything on the wire ties the payment to its task (a transfer reference in the request). */
  readonly paymentOnWire: boolean;
}
