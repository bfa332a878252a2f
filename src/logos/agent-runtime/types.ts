/**
 * The agent runtime's public face (agent-runtime.ts re-exports it): what an agent author writes, a card and skill
 * handlers, and what the runtime is given, a transport and how payments are checked.
 */
import type { TaskRequest, WireArtifact, WireMessage } from '../envelope.ts';
import type { LogosAgentCard, LogosAgentCardInput } from '../card.ts';
import type { LogosTransport } from '../transport.ts';
import type { PeerFace } from '../bindings/common/agent-face.ts';

/** What a skill handler gets. */
export interface SkillContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly skill: string;
  readonly params: Record<string, unknown>;
  /** `params.text` when it is a string, else "". */
  readonly text: string;
  /** The caller's A2A message (v1.0 JSON), when the gateway forwarded it. */
  readonly message: Record<string, unknown> | undefined;
  /** Aborted when the task is cancelled. */
  readonly signal: AbortSignal;
  /** Reports progress (state `working`) with an optional status message. */
  progress(message?: WireMessage): Promise<void>;
  /** Streams an artifact, or a chunk of one (`append`, `last_chunk`). */
  artifact(artifact: Omit<WireArtifact, 'artifact_id'> & { artifact_id?: string }): Promise<void>;
  /** Asks the caller for more input (state `input-required`) and resolves with the follow-up. */
  requestInput(prompt: WireMessage): Promise<FollowUp>;
  /** Asks the caller to authenticate (state `auth-required`) and resolves with the follow-up that does. */
  requestAuth(prompt: WireMessage): Promise<FollowUp>;
  /** Builds a completion with more than a bare result (see `Completion`). */
  complete(completion: CompletionFields): Completion;
}

/** The caller's next message on a task that asked for input or authentication. */
export interface FollowUp {
  params: Record<string, unknown>;
  text: string;
  message?: Record<string, unknown>;
}

export interface CompletionFields {
  result?: unknown;
  artifacts?: WireArtifact[];
  message?: WireMessage;
  /** Answer with an A2A Message rather than a Task. */
  asMessage?: boolean;
}

/** Returned by a handler that wants to set the status message, artifacts or answer as a message. */
export class Completion {
  readonly fields: CompletionFields;
  constructor(fields: CompletionFields) {
    this.fields = fields;
  }
}

/** Thrown by a handler that declines the task: the task ends `rejected` with this message. */
export class SkillRejected extends Error {
  override readonly name = 'SkillRejected';
}

export type SkillHandler = (ctx: SkillContext) => Promise<unknown> | unknown;

/** How an agent takes payment: it checks each task's transfer on chain itself, and pays back what it did not earn. */
export interface AgentPayments {
  /** `lez` or `memory`, as in payment references. */
  readonly rail: string;
  /** The agent's own account (its card's `x-lez-identity.account_id`). */
  readonly account: string;
  /**
   * The keys of the agent's private account (its card's `x-lez-identity.private`), when it also takes shielded
   * payments (docs/payments.md §10): `verify` then reads a privacy-preserving transaction's notes.
   */
  readonly privateKeys?: { npk: string; vpk: string };
  /** Is `txHash` an included transfer of exactly `amount` from `from` to this agent, for task `taskId`? */
  verify(
    txHash: string,
    expect: { from: string; amount: bigint; taskId: string },
  ): Promise<{ ok: true } | { ok: false; message: string }>;
  /** A new transfer back to the payer; once per `paymentId`. `paymentTxHash`: the payment it pays back. */
  refund(
    paymentId: string,
    to: string,
    amount: bigint,
    paymentTxHash?: string,
  ): Promise<{ ok: true; txHash: string } | { ok: false; message: string }>;
  /** The task this payment paid for completed: the money is earned. */
  earned?(paymentTxHash: string): void;
  /** Called once at start: pays back what was taken for tasks a previous run can no longer complete. */
  refundOwed?(): Promise<void>;
  /** Called every `refundRetryMs` while the agent runs: tries again the refunds that could not be made. */
  retryRefunds?(): Promise<void>;
}

/** What the built-in agents let their host choose. */
export interface BuiltinAgentOptions {
  /** Signs the announced card (see LogosAgentOptions.cardKey). */
  cardKey?: Uint8Array;
  /** The card id, i.e. the agent's URL at a gateway (/agents/{id}); default: the agent's own name. */
  id?: string;
  discoveryTopic?: string;
  announceEveryMs?: number;
  /** See LogosAgentOptions.announce. */
  announce?: boolean;
  /** See LogosAgentOptions.peerFaces. */
  peerFaces?: LogosAgentOptions['peerFaces'];
}

/**
 * A built-in agent announces its card when it has a key to sign it with (gateways list signed cards only); without
 * one it stays quiet unless told otherwise, as its host then registers it with a gateway directly.
 */
export function builtinOptions(
  options: BuiltinAgentOptions,
): Pick<LogosAgentOptions, 'discoveryTopic' | 'announceEveryMs' | 'announce' | 'cardKey' | 'peerFaces'> {
  return {
    ...(options.peerFaces ? { peerFaces: options.peerFaces } : {}),
    ...(options.cardKey ? { cardKey: options.cardKey } : {}),
    ...(options.discoveryTopic ? { discoveryTopic: options.discoveryTopic } : {}),
    ...(options.announceEveryMs ? { announceEveryMs: options.announceEveryMs } : {}),
    announce: options.announce ?? options.cardKey !== undefined,
  };
}

/** How often a running agent announces its card by default (gateways list an agent unheard for 90 s as offline). */
export const DEFAULT_ANNOUNCE_EVERY_MS = 30_000;

export interface LogosAgentOptions {
  card: LogosAgentCardInput;
  transport: LogosTransport;
  skills: Record<string, SkillHandler>;
  /** How often a running skill re-announces itself so the gateway knows the agent is alive. */
  heartbeatMs?: number;
  /** A finished task's replies are kept for replay (task_get) this long… */
  retentionMs?: number;
  /** …and for at most this many finished tasks, the oldest forgotten first. */
  maxRetained?: number;
  /** A skill that has not replied by then is acknowledged with `working`. */
  ackAfterMs?: number;
  /**
   * Announce the card (so gateways find the agent and serve it) at start and then every `announceEveryMs`. On by
   * default; `false` keeps the agent quiet, e.g. when its gateway registers it directly.
   */
  announce?: boolean;
  /** The discovery topic the card is announced on. Default `/logos/1/agent-discovery/proto` (the gateways' default). */
  discoveryTopic?: string;
  /** Required when the card prices any skill: how payments are checked and refunded. */
  payments?: AgentPayments;
  /**
   * The LEZ secret key of the card's account (`x-lez-identity`): the card is announced signed with it, so gateways
   * can check who publishes it. Without it the card goes out unsigned, and gateways that verify ignore it.
   */
  cardKey?: Uint8Array;
  /** How often the card is announced again. Default 30 s. */
  announceEveryMs?: number;
  /** How often refunds that failed (the sequencer was away, say) are tried again. Default 5 s. */
  refundRetryMs?: number;
  /**
   * A task this process does not know, but its host kept across a restart (a published HTTP agent's, whose HTTP task
   * goes on): its request, to run again when the gateway asks about it, its replies numbered after those the gateway
   * has. Without it, or when it answers undefined, such a task is reported unknown and fails.
   */
  resumable?: (taskId: string) => ResumableRequest | undefined;
  /**
   * The agent on the peer networks the host configured (bindings/agent-faces.ts), made from its card as parsed and
   * signed: each announces it there in its binding's format, with our announcements, and carries that binding's
   * requests to the agent. None by default.
   */
  peerFaces?: (card: LogosAgentCard) => readonly PeerFace[];
}

/** What `resumable` gives back of a kept task: its request as it first came. */
export type ResumableRequest = Pick<TaskRequest, 'context_id' | 'skill' | 'params' | 'message'>;
