/**
 * What the gateway needs of the way an agent speaks on Logos Messaging, behind one interface: the task engine works
 * in this binding's canonical envelopes (envelope.ts) and asks the agent's wire binding how they travel. Ours sends
 * them as they are (`ours.ts`); the seed dialect maps them (`seed.ts`, docs/binding.md §13). A new binding is one
 * more implementation here, chosen per agent by its dialect (`binding-of.ts`).
 */
import type { AgentEnvelope, DecodeResult, TaskRequest } from '../envelope.ts';
import type { Dialect } from '../seed-dialect.ts';
import type { LogosTransport, TopicOptions } from '../transport.ts';

/** The node of a network the gateway serves peer agents on (peer-networks.ts): what a peer binding uses of it. */
export type PeerNode = Pick<LogosTransport, 'publish' | 'subscribe'>;

export interface WireBinding {
  /** The dialect it implements (the directory remembers it per agent). */
  readonly dialect: Dialect;
  /**
   * Where the agent lives apart from the gateway's own network (a peer binding's, issue #22): on `node`, the node
   * of its network, where its replies are read, and what the gateway says of a task is published in the clear on
   * `requestTopic`. Absent: the gateway's transport, which sends 1:1 to the agent's address.
   */
  readonly peer?: {
    readonly node: PeerNode;
    requestTopic(request: TaskRequest): string;
  };
  /** The topic a task's replies are published on, and how it is read. */
  statusTopic(request: TaskRequest): { topic: string; options: TopicOptions };
  /**
   * A canonical gateway envelope, as encoded, in this binding's words; undefined when the binding has no words for
   * it (a question about a task, where its agents answer none): nothing is sent. `request` is the task's
   * `task_request`.
   */
  outgoing(payload: Uint8Array, request: TaskRequest): Uint8Array | undefined;
  /**
   * An agent's reply, as a canonical envelope. `nextSeq` numbers it where the binding numbers nothing (the reply
   * after the last one applied); `request` is the task's `task_request`.
   */
  decodeReply(
    payload: Uint8Array,
    maxBytes: number,
    nextSeq: number,
    request: TaskRequest,
  ): DecodeResult<AgentEnvelope>;
  /** The task a 1:1 message is a reply to; absent where agents never reply 1:1. */
  directReplyTaskId?(payload: Uint8Array, maxBytes: number): string | undefined;
  /** Whether a reply the transport could not authenticate (`sender` undefined) may be applied. */
  acceptsUnauthenticated(reply: AgentEnvelope): boolean;
  /**
   * The agent takes a repeated `task_request` as a replay request: a request no reply answered can be sent again.
   * False where the agent would run it again; such an agent is only ever asked (`task_get`).
   */
  readonly replaysRepeatedRequest: boolean;
  /**
   * `none` where the agent never pays back a paid task that does not complete (the peer bindings): its receipt then
   * says `no-refund` at once. Absent: the agent refunds (docs/payments.md §5), and the gateway checks that it did.
   */
  readonly refunds?: 'none';
  /**
   * When a priced task is paid (common/payment-terms.ts): `after-publishing` where the agent expects the request
   * first and the payment right after, without waiting for an answer (lp-0008). Absent: paid before sending.
   */
  readonly paymentTiming?: 'after-publishing';
  /** Why the agent cannot take a caller's input on a task (`task_input`); undefined when it can. */
  readonly inputRefusal?: string;
}
