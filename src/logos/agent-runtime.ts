/**
 * The provider side: with this runtime a Logos agent is a card and a few skill handlers. It speaks the binding of
 * docs/binding.md over any LogosTransport: takes task_request / task_input / task_get / cancel on its address and
 * publishes task_status / task_result / cancelled, numbered by `seq`, on each task's status topic.
 */
import { randomUUID } from 'node:crypto';
import {
  BINDING_VERSION,
  decodeGatewayEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelope,
  type DistributiveOmit,
  type GatewayEnvelope,
  type WirePaymentReference,
  type TaskRequest,
  type WireArtifact,
  type WireError,
  type WireMessage,
} from './envelope.ts';
import { withMessageText } from './message-text.ts';
import { isPriced, LogosAgentCard, skillPrice, type LogosAgentCardInput } from './card.ts';
import { signLogosCard } from './card-signature.ts';
import { DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement } from './discovery.ts';
import { OldestFirst } from './oldest-first.ts';
import { SeenSet } from './seen-set.ts';
import { planResultChunks } from './result-chunks.ts';
import { statusKeyBytes } from './status-key.ts';
import { formatAccountId, publicAccountId } from '../lez/account-id.ts';
import { xOnlyPublicKey } from '../lez/public-key.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';
import { keepAlive, stopKeepingAlive } from '../keep-alive.ts';

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
}

/**
 * A built-in agent announces its card when it has a key to sign it with (gateways list signed cards only); without
 * one it stays quiet unless told otherwise, as its host then registers it with a gateway directly.
 */
export function builtinOptions(
  options: BuiltinAgentOptions,
): Pick<LogosAgentOptions, 'discoveryTopic' | 'announceEveryMs' | 'announce' | 'cardKey'> {
  return {
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
}

/** What `resumable` gives back of a kept task: its request as it first came. */
export type ResumableRequest = Pick<TaskRequest, 'context_id' | 'skill' | 'params' | 'message'>;

interface TaskRun {
  readonly taskId: string;
  /** Who submitted the task (the transport's authenticated sender). */
  readonly owner: string | undefined;
  /** The task's status key as the gateway sent it: a later request must carry the same. */
  readonly statusKey: string;
  /** The same key as bytes: every reply is published under it. */
  readonly topicKey: Uint8Array;
  readonly topic: string;
  readonly log: AgentEnvelope[];
  readonly controller: AbortController;
  seq: number;
  finished: boolean;
  /** Serialises publication so replies leave in seq order. */
  outbox: Promise<void>;
  /** The verified payment for this task, owed back if the task does not complete. */
  paid?: WirePaymentReference;
  /** The payment is being checked; the skill has not started. */
  admitting?: boolean;
  /** Sends `working` if the skill has said nothing after `ackAfterMs`. */
  ack?: NodeJS.Timeout;
  awaitingInput?: (input: { params: Record<string, unknown>; message?: Record<string, unknown> }) => void;
  /** While the skill runs, its last reply is published again after `heartbeatMs` of quiet (keep-alive.ts). */
  readonly keptAlive: { lastSentAt: number; readonly beat: () => void };
}

const SEEN_IDS_LIMIT = 10_000;
/** How long a start waits for the refunds a previous run owed before the agent answers anyway. */
const START_REFUNDS_WAIT_MS = 5_000;
let warnedUnsigned = false;

export class LogosAgent {
  readonly card: LogosAgentCard;
  /** The card as announced: signed when a card key was given (relay this one, not `card`). */
  readonly signedCard: Record<string, unknown> | undefined;
  private readonly transport: LogosTransport;
  private readonly skills: Record<string, SkillHandler>;
  private readonly heartbeatMs: number;
  private readonly retentionMs: number;
  private readonly maxRetained: number;
  /** Finished tasks, with when they finished… */
  private readonly finished = new Map<string, number>();
  /** …and their ids, oldest first. */
  private readonly finishedOrder = new OldestFirst<string>();
  private readonly ackAfterMs: number;
  private readonly runs = new Map<string, TaskRun>();
  private readonly seenIds = new SeenSet(SEEN_IDS_LIMIT);
  private unsubscribe?: Unsubscribe;
  private announcer?: NodeJS.Timeout;
  private refundRetrier?: NodeJS.Timeout;
  private readonly refundRetryMs: number;
  /** Where the card is announced; undefined when announcing is off. */
  private readonly discoveryTopic: string | undefined;
  private readonly announceEveryMs: number;
  private readonly payments: AgentPayments | undefined;
  private readonly resumable: LogosAgentOptions['resumable'];
  /** Payment transactions already taken for a task: one transfer pays for one task only. */
  private readonly usedPayments = new Set<string>();
  /** This process's run of the agent: announced with the card so gateways notice a restart. */
  private readonly instance = randomUUID();

  constructor(options: LogosAgentOptions) {
    // Stamped once per process: a later start issues a newer card, and a replay of an older one is refused.
    // The address's proof that it accepts the card's account, when the transport's addresses are keys.
    const account = options.cardKey && formatAccountId(publicAccountId(xOnlyPublicKey(options.cardKey)));
    const proof = account && options.transport.addressProof?.(account);
    const parsed = LogosAgentCard.parse({
      'x-issued-at': new Date().toISOString(),
      'x-instance': this.instance,
      ...(proof ? { 'x-logos-address-proof': proof } : {}),
      ...options.card,
    });
    // A fixed aux value keeps the signature, and so the card's ETag at gateways, stable across restarts (BIP-340
    // stays secure with it: the nonce still depends on the key and the message).
    this.signedCard = options.cardKey
      ? signLogosCard(parsed, options.cardKey, { auxRand: new Uint8Array(32) })
      : undefined;
    this.card = this.signedCard ? LogosAgentCard.parse(this.signedCard) : parsed;
    for (const skill of this.card.skills) {
      if (!options.skills[skill.id]) throw new Error(`agent ${this.card.id}: skill "${skill.id}" has no handler`);
    }
    this.transport = options.transport;
    this.skills = options.skills;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.retentionMs = options.retentionMs ?? 10 * 60_000;
    this.maxRetained = options.maxRetained ?? 10_000;
    this.discoveryTopic = options.announce === false ? undefined : (options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC);
    this.announceEveryMs = options.announceEveryMs ?? DEFAULT_ANNOUNCE_EVERY_MS;
    if (!(Number.isFinite(this.announceEveryMs) && this.announceEveryMs > 0)) {
      throw new RangeError(`agent ${this.card.id}: announceEveryMs must be a positive number of milliseconds`);
    }
    this.payments = options.payments;
    this.resumable = options.resumable;
    if (isPriced(this.card) && (!this.payments || this.card['x-lez-identity']?.account_id !== this.payments.account)) {
      throw new Error(`agent ${this.card.id}: a priced card needs payments for the account in x-lez-identity`);
    }
    this.ackAfterMs = options.ackAfterMs ?? 250;
    this.refundRetryMs = options.refundRetryMs ?? 5_000;
  }

  async start(): Promise<void> {
    // Money first: tasks paid to a previous run of this agent cannot be completed by this one. Their refunds get a
    // few seconds to land before the agent answers (a gateway asking about such a task then finds the refund on
    // chain at once); a sequencer that is away must not keep the agent down, so they go on in the background.
    const owed = this.payments?.refundOwed?.().catch((error: unknown) => {
      console.error(`agent ${this.card.id}: refunding what a previous run owed failed`, error);
    });
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([owed, new Promise((resolve) => (waited = setTimeout(resolve, START_REFUNDS_WAIT_MS)))]);
    clearTimeout(waited);
    this.retryRefundsEvery(this.refundRetryMs);
    await this.transport.start();
    this.unsubscribe = this.transport.onDirect((payload, { sender }) => this.receive(payload, sender));
    if (this.discoveryTopic) {
      if (!this.signedCard && !warnedUnsigned) {
        warnedUnsigned = true; // once per process: the advice is the same for every agent
        console.warn(
          `agent ${this.card.id}: announcing an unsigned card; gateways list only signed cards, so give the agent a ` +
            'cardKey (or announce: false if nothing needs to discover it)',
        );
      }
      await this.announce();
      this.announcer = setInterval(() => void this.announce(), this.announceEveryMs);
      this.announcer.unref();
    }
  }

  /** Money owed back is never left waiting for the next start: one retry at a time, until the agent stops. */
  private retryRefundsEvery(ms: number): void {
    const retry = this.payments?.retryRefunds?.bind(this.payments);
    if (!retry) return;
    const next = () => {
      this.refundRetrier = setTimeout(
        () =>
          void retry()
            .catch((error: unknown) => console.error(`agent ${this.card.id}: retrying refunds failed`, error))
            .finally(() => this.refundRetrier && next()),
        ms,
      );
      this.refundRetrier.unref();
    };
    next();
  }

  /** Publishes the card on the discovery topic (also called periodically once started). */
  async announce(): Promise<void> {
    if (!this.discoveryTopic) return;
    try {
      await this.transport.publish(this.discoveryTopic, encodeAnnouncement(this.signedCard ?? this.card));
    } catch (error) {
      console.error(`agent ${this.card.id}: announcing the card failed`, error);
    }
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.announcer);
    clearTimeout(this.refundRetrier);
    this.refundRetrier = undefined;
    for (const run of this.runs.values()) {
      stopKeepingAlive(run.keptAlive, this.heartbeatMs);
      run.controller.abort(new Error('agent stopping'));
    }
    this.runs.clear();
    await this.transport.stop();
  }

  private receive(payload: Uint8Array, sender: string | undefined): void {
    const decoded = decodeGatewayEnvelope(payload);
    if (!decoded.ok) return; // Not ours or malformed: a network node ignores what it cannot read.
    // A skill sees the caller's message whole, however the gateway sent its text.
    const envelope =
      decoded.envelope.type === 'task_request' || decoded.envelope.type === 'task_input'
        ? withMessageText(decoded.envelope)
        : decoded.envelope;
    if (this.seenIds.has(envelope.id)) return;
    // Only the party that submitted a task may continue, query or cancel it, and only under the task's key.
    const run = this.runs.get(envelope.task_id);
    if (run && (sender !== run.owner || envelope.status_key !== run.statusKey)) return;
    this.seenIds.add(envelope.id);
    this.dispatch(envelope, sender);
  }

  private dispatch(envelope: GatewayEnvelope, sender: string | undefined): void {
    const run = this.runs.get(envelope.task_id);
    switch (envelope.type) {
      case 'task_request':
        // A repeated request (the gateway restarted before it heard from us) gets the replies so far.
        if (run) this.replay(run, 0);
        else this.begin(envelope, sender);
        return;
      case 'task_get': {
        if (run) return this.replay(run, envelope.after_seq);
        const kept = this.resumable?.(envelope.task_id);
        if (!kept) return this.unknownTask(envelope, envelope.after_seq);
        const { after_seq: afterSeq, ...asked } = envelope;
        this.begin({ ...asked, ...kept, type: 'task_request', lez_price: '0' }, sender, afterSeq);
        return;
      }
      case 'task_input':
        if (run?.awaitingInput) {
          const resolve = run.awaitingInput;
          run.awaitingInput = undefined;
          resolve({ params: envelope.params, message: envelope.message });
        }
        return;
      case 'cancel':
        if (!run) return this.unknownTask(envelope, 0);
        if (run.finished) return this.replay(run, run.seq - 1);
        run.controller.abort(new Error('cancelled by the caller'));
        // Still checking the payment: admit() finishes the task once it knows whether there is money to give back.
        if (!run.admitting) this.finish(run, { type: 'cancelled', message: 'Task cancelled.' });
        return;
    }
  }

  /** `afterSeq`: replies the gateway already has (a task resumed after a restart); its next is numbered after them. */
  private begin(request: TaskRequest, owner: string | undefined, afterSeq = 0): void {
    const run: TaskRun = {
      taskId: request.task_id,
      owner,
      statusKey: request.status_key,
      topicKey: statusKeyBytes(request.status_key),
      topic: taskStatusTopic(request.task_id),
      log: [],
      controller: new AbortController(),
      seq: afterSeq,
      finished: false,
      outbox: Promise.resolve(),
      keptAlive: { lastSentAt: 0, beat: () => this.republishLast(run) },
    };
    this.runs.set(run.taskId, run);
    const handler = this.skills[request.skill];
    if (!handler) {
      this.finish(run, {
        type: 'task_result',
        state: 'rejected',
        error: { code: 'unknown_skill', message: `This agent has no skill "${request.skill}".` },
        message: `This agent has no skill "${request.skill}". Skills: ${Object.keys(this.skills).join(', ')}.`,
      });
      return;
    }
    void this.admit(run, request, handler);
  }

  /** Checks the payment of a priced task before any work; a task without a valid payment is rejected. */
  private async admit(run: TaskRun, request: TaskRequest, handler: SkillHandler): Promise<void> {
    // The price is this agent's own, from its card: a request that offers less is refused, whatever it claims.
    const price = BigInt(skillPrice(this.card, request.skill));
    if (price > 0n) {
      run.admitting = true;
      const problem =
        BigInt(request.lez_price) < price
          ? `This skill costs ${price}; the request offers ${request.lez_price}.`
          : await this.checkPayment(request, price);
      run.admitting = false;
      if (problem && run.controller.signal.aborted) {
        // Cancelled while the payment was being checked (a check that could not reach the sequencer takes a while):
        // the caller's cancel is the answer, not a refusal of the task it no longer wants. Nothing was done.
        this.finish(run, { type: 'cancelled', message: `Task cancelled. ${problem}` });
        return;
      }
      if (problem) {
        this.finish(run, {
          type: 'task_result',
          state: 'rejected',
          error: { code: 'payment_invalid', message: problem },
          message: problem,
        });
        return;
      }
      run.paid = request.payment;
      if (run.controller.signal.aborted) {
        // Cancelled while the payment was being checked: nothing was done, so all of it goes back.
        this.finish(run, { type: 'cancelled', message: 'Task cancelled.' });
        return;
      }
    }
    // Acknowledge with `working` only if the skill has said nothing by then: a quick skill answers in one reply
    // (and can answer with a message instead of a task), a slow one is acknowledged promptly.
    run.ack = setTimeout(() => {
      if (run.seq === 0 && !run.finished) void this.reply(run, { type: 'task_status', state: 'working' });
    }, this.ackAfterMs);
    run.ack.unref();
    keepAlive(run.keptAlive, this.heartbeatMs);
    void this.execute(run, request, handler);
  }

  private async execute(run: TaskRun, request: TaskRequest, handler: SkillHandler): Promise<void> {
    const context = this.contextFor(run, request);
    try {
      const outcome = await handler(context);
      if (run.finished) return;
      const fields = outcome instanceof Completion ? outcome.fields : { result: outcome };
      this.finish(run, {
        type: 'task_result',
        state: 'completed',
        ...(fields.result !== undefined ? { result: fields.result } : {}),
        ...(fields.artifacts ? { artifacts: fields.artifacts } : {}),
        ...(fields.message !== undefined ? { message: fields.message } : {}),
        ...(fields.asMessage ? { as_message: true } : {}),
      });
    } catch (error) {
      if (run.finished) return;
      const message = error instanceof Error ? error.message : String(error);
      const rejected = error instanceof SkillRejected;
      const wireError: WireError = { code: rejected ? 'rejected' : 'skill_failed', message };
      this.finish(run, { type: 'task_result', state: rejected ? 'rejected' : 'failed', error: wireError, message });
    }
  }

  private contextFor(run: TaskRun, request: TaskRequest): SkillContext {
    const params = request.params;
    return {
      taskId: run.taskId,
      contextId: request.context_id,
      skill: request.skill,
      params,
      text: typeof params.text === 'string' ? params.text : '',
      message: request.message,
      signal: run.controller.signal,
      progress: (message) =>
        this.reply(run, { type: 'task_status', state: 'working', ...(message !== undefined ? { message } : {}) }),
      artifact: (artifact) =>
        this.reply(run, {
          type: 'task_status',
          state: 'working',
          artifact: { ...artifact, artifact_id: artifact.artifact_id ?? randomUUID() },
        }),
      requestInput: (prompt) => this.interrupt(run, 'input-required', prompt),
      requestAuth: (prompt) => this.interrupt(run, 'auth-required', prompt),
      complete: (fields) => new Completion(fields),
    };
  }

  /** Puts the task in an interrupted state with `prompt`, and resolves with the caller's follow-up. */
  private interrupt(run: TaskRun, state: 'input-required' | 'auth-required', prompt: WireMessage): Promise<FollowUp> {
    return new Promise((resolve, reject) => {
      if (run.controller.signal.aborted) return reject(run.controller.signal.reason);
      run.awaitingInput = ({ params: next, message }) => {
        void this.reply(run, { type: 'task_status', state: 'working' });
        resolve({
          params: next,
          text: typeof next.text === 'string' ? next.text : '',
          ...(message ? { message } : {}),
        });
      };
      run.controller.signal.addEventListener('abort', () => reject(run.controller.signal.reason), { once: true });
      void this.reply(run, { type: 'task_status', state, message: prompt });
    });
  }

  private async checkPayment(request: TaskRequest, price: bigint): Promise<string | undefined> {
    const payment = request.payment;
    if (!this.payments) return 'This agent takes no payments.';
    if (!payment) return `This task costs ${price} and came without a payment.`;
    if (
      payment.rail !== this.payments.rail ||
      payment.to !== this.payments.account ||
      BigInt(payment.amount) !== price
    ) {
      return `The payment reference does not pay ${price} to ${this.payments.account} on ${this.payments.rail}.`;
    }
    if (this.usedPayments.has(payment.tx_hash)) return `Transaction ${payment.tx_hash} already paid for another task.`;
    this.usedPayments.add(payment.tx_hash);
    const verified = await this.payments.verify(payment.tx_hash, {
      from: payment.from,
      amount: price,
      taskId: request.task_id,
    });
    if (!verified.ok) {
      this.usedPayments.delete(payment.tx_hash);
      return `The payment did not verify: ${verified.message}`;
    }
    return undefined;
  }

  private finish(run: TaskRun, reply: AgentReply): void {
    run.finished = true;
    // A quick skill is done before its acknowledgement is due: the timer (and the run it holds) goes now.
    clearTimeout(run.ack);
    stopKeepingAlive(run.keptAlive, this.heartbeatMs);
    this.retain(run.taskId);
    const completed = reply.type === 'task_result' && reply.state === 'completed';
    if (run.paid && completed) this.payments?.earned?.(run.paid.tx_hash);
    if (!run.paid || completed) {
      void this.sendResult(run, reply);
      return;
    }
    // Paid and not completed: pay the money back, then say so in the final reply.
    void this.refund(run, run.paid).then((refund) =>
      this.reply(run, refund && reply.type !== 'task_status' ? { ...reply, refund } : reply),
    );
  }

  private async refund(run: TaskRun, paid: WirePaymentReference): Promise<WirePaymentReference | undefined> {
    const result = await this.payments!.refund(
      `refund:${paid.tx_hash}`,
      paid.from,
      BigInt(paid.amount),
      paid.tx_hash,
    ).catch((error: unknown) => ({
      ok: false as const,
      message: String(error),
    }));
    if (!result.ok) {
      console.error(`agent ${this.card.id}: refunding task ${run.taskId} failed: ${result.message}`);
      return undefined;
    }
    return { rail: paid.rail, tx_hash: result.txHash, from: paid.to, to: paid.from, amount: paid.amount };
  }

  /** Keeps a finished task for replay, and forgets the ones past the time or count limit (no timer per task). */
  private retain(taskId: string): void {
    const now = Date.now();
    // A task finished again (a repeated request after it was forgotten) keeps its place, as in a Map.
    if (!this.finished.has(taskId)) this.finishedOrder.push(taskId);
    this.finished.set(taskId, now);
    for (let oldest = this.finishedOrder.peek(); oldest !== undefined; oldest = this.finishedOrder.peek()) {
      if (this.finished.size <= this.maxRetained && now - this.finished.get(oldest)! < this.retentionMs) break;
      this.finishedOrder.shift();
      this.finished.delete(oldest);
      this.runs.delete(oldest);
    }
  }

  // ---- results larger than one message of the network (see result-chunks.ts) -------------------------------------

  /** A completed result that does not fit in one message goes as artifact chunks, then the result without it. */
  private sendResult(run: TaskRun, reply: AgentReply): Promise<void> {
    // Encoded once: the bytes that are measured are the bytes that are sent.
    const envelope = this.nextEnvelope(run, reply);
    const payload = encodeEnvelope(envelope);
    if (
      reply.type !== 'task_result' ||
      reply.state !== 'completed' ||
      payload.length <= this.transport.maxPayloadBytes
    ) {
      return this.post(run, envelope, payload);
    }
    const { result, artifacts, ...rest } = reply;
    const plan = planResultChunks(result, artifacts, this.chunkBudget(run));
    if (plan.kind === 'too-large') {
      const error = { code: 'result_too_large', message: plan.message };
      return this.reply(run, { type: 'task_result', state: 'failed', error, message: plan.message });
    }
    for (const artifact of plan.chunks) void this.reply(run, { type: 'task_status', state: 'working', artifact });
    return this.reply(run, rest);
  }

  /** The bytes one chunk's part may take: a message, less what an envelope around an empty chunk takes. */
  private chunkBudget(run: TaskRun): number {
    const empty = { artifact_id: 'result', name: 'result', parts: [{ text: '' }], append: true, last_chunk: true };
    const overhead = encodeEnvelope(
      this.nextEnvelope(run, { type: 'task_status', state: 'working', artifact: empty }),
    ).length;
    // Room for the longer artifact ids and names of the agent's own artifacts.
    return this.transport.maxPayloadBytes - overhead - 1_024;
  }

  private reply(run: TaskRun, reply: AgentReply): Promise<void> {
    const envelope = this.nextEnvelope(run, reply);
    return this.post(run, envelope, encodeEnvelope(envelope));
  }

  /** The task's next envelope around `reply`; it takes its `seq` only once posted. */
  private nextEnvelope(run: TaskRun, reply: AgentReply): AgentEnvelope {
    return { ...reply, v: BINDING_VERSION, id: randomUUID(), task_id: run.taskId, seq: run.seq + 1 } as AgentEnvelope;
  }

  /** Logs the envelope as the task's next and publishes its bytes after the replies before it. */
  private post(run: TaskRun, envelope: AgentEnvelope, payload: Uint8Array): Promise<void> {
    run.seq = envelope.seq;
    run.log.push(envelope);
    return this.enqueue(run, payload);
  }

  private enqueue(run: TaskRun, payload: Uint8Array): Promise<void> {
    run.keptAlive.lastSentAt = performance.now();
    run.outbox = run.outbox
      .then(() => this.transport.publish(run.topic, payload, { key: run.topicKey }))
      .catch((error: unknown) => {
        console.error(`agent ${this.card.id}: publishing on ${run.topic} failed`, error);
      });
    return run.outbox;
  }

  private replay(run: TaskRun, afterSeq: number): void {
    for (const envelope of run.log) if (envelope.seq > afterSeq) void this.enqueue(run, encodeEnvelope(envelope));
  }

  private republishLast(run: TaskRun): void {
    const last = run.log.at(-1);
    if (last) void this.enqueue(run, encodeEnvelope(last));
  }

  /** A task this agent does not know (it restarted, or the request never arrived): say so, the gateway fails it. */
  private unknownTask(request: GatewayEnvelope, afterSeq: number): void {
    const taskId = request.task_id;
    const envelope: AgentEnvelope = {
      v: BINDING_VERSION,
      id: randomUUID(),
      task_id: taskId,
      seq: afterSeq + 1,
      type: 'task_result',
      state: 'failed',
      error: { code: 'unknown_task', message: 'The agent has no record of this task; it may have restarted.' },
      message: 'The agent has no record of this task; it may have restarted.',
    };
    void this.transport
      .publish(taskStatusTopic(taskId), encodeEnvelope(envelope), { key: statusKeyBytes(request.status_key) })
      .catch((error: unknown) => console.error(`agent ${this.card.id}: publishing on task ${taskId} failed`, error));
  }
}

/** What a reply says; the runtime adds the version, a fresh id, the task id and the next `seq`. */
type AgentReply = DistributiveOmit<AgentEnvelope, 'v' | 'id' | 'task_id' | 'seq'>;
