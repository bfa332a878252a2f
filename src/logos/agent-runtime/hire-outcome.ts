/**
 * What hiring another Logos agent comes to (caller.ts): one value per expected ending, discriminated by `kind`, as
 * the rails' outcomes are (lez/rail/payment-rail.ts). Nothing here throws for an agent that refuses, fails, stays
 * silent or asks for more: only misuse (a bug in the calling skill) throws.
 */
import type { WireArtifact, WireError, WireMessage, WirePaymentReference } from '../envelope.ts';

/** Why a hire never left: nothing was sent, nothing was paid. */
export type HireRefusal =
  | 'unknown-agent' // no card for that id or address was heard on the discovery topic
  | 'bad-card' // the card given does not read, or no signature vouches for it
  | 'unsupported-dialect' // the agent speaks a dialect the caller does not (the seed's, a peer binding's)
  | 'unknown-skill' // the card has no such skill
  | 'priced' // the skill has a price and the caller has no way to pay
  | 'spending-limit' // paying would break the caller's spending limits
  | 'payment-failed' // the transfer did not go through (nothing was sent to the agent)
  | 'too-large' // the request does not fit one message of the transport
  | 'send-failed'; // the transport would not send the request

/** What the caller paid for a task, and what came back of it when it did not complete. */
export interface HirePayment {
  /** The transfer that paid the agent, sent with the task (docs/payments.md §2). */
  readonly paid: WirePaymentReference;
  /**
   * A failed, rejected or cancelled task's refund as the agent announced it, checked on chain: `verified` when the
   * transfer back is there, `unverified` (with why) when it is not, or not yet; absent when the agent sent none.
   */
  refund?:
    | { reference: WirePaymentReference; check: 'verified' }
    | { reference?: WirePaymentReference; check: 'unverified'; message: string };
}

interface Common {
  readonly taskId: string;
  readonly contextId: string;
  /** Set for a paid task. */
  readonly payment?: HirePayment;
}

/** The caller's next message on an interrupted task: params as a skill takes them (§7.1), and the A2A message. */
export interface HireInput {
  params: Record<string, unknown>;
  /** The follow-up as an A2A v1.0 Message in JSON; made from `params.text` when absent. */
  message?: Record<string, unknown>;
}

export type HireOutcome =
  | (Common & {
      kind: 'completed';
      /** The skill's return value; for a result sent in chunks (§8.3), their text put together. */
      result?: unknown;
      /** Every artifact, streamed or final, its chunks joined (one part list per artifact id). */
      artifacts: WireArtifact[];
      message?: WireMessage;
      /** The agent answered with a Message rather than a task (§5.6). */
      asMessage: boolean;
    })
  | (Common & { kind: 'failed' | 'rejected'; error: WireError; message?: WireMessage })
  | (Common & {
      kind: 'cancelled';
      message?: WireMessage;
      /** The agent confirmed the cancel; false: it did not within the cancel timeout, and the caller gave up. */
      confirmed: boolean;
    })
  | (Common & {
      /** The agent waits for the caller: answer with `reply`, or `cancel`. Its silence does not count meanwhile. */
      kind: 'input-required' | 'auth-required';
      prompt?: WireMessage;
      /** Artifacts streamed so far. */
      artifacts: WireArtifact[];
      reply(input: HireInput | string): Promise<HireOutcome>;
      cancel(): Promise<HireOutcome>;
    })
  /** The agent said nothing for the agent timeout (§5.5): the caller gave up, sending nothing more. */
  | (Common & { kind: 'timeout'; message: string })
  | { kind: 'refused'; reason: HireRefusal; message: string };

/** A reply as it is applied, for a hiring skill that passes progress on (a status note, an artifact chunk). */
export interface HireUpdate {
  readonly taskId: string;
  readonly state: string;
  readonly message?: WireMessage;
  readonly artifact?: WireArtifact;
}
