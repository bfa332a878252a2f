/**
 * The provider side: with this runtime a Logos agent is a card and a few skill handlers. It speaks the binding of
 * docs/binding.md over any LogosTransport: takes task_request / task_input / task_get / cancel on its address and
 * publishes task_status / task_result / cancelled, numbered by `seq`, on each task's status topic. The class wires
 * the parts under agent-runtime/: the public types, payment admission and refunds, and each task's reply log.
 */
import { randomUUID } from 'node:crypto';
import {
  decodeGatewayEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type GatewayEnvelope,
  type WirePaymentReference,
  type TaskRequest,
  type WireError,
  type WireMessage,
} from './envelope.ts';
import { withMessageText } from './message-text.ts';
import { LogosAgentCard } from './card.ts';
import { signLogosCard } from './card-signature.ts';
import { DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement } from './discovery.ts';
import { SeenSet } from './seen-set.ts';
import { statusKeyBytes } from './status-key.ts';
import { formatAccountId, publicAccountId } from '../lez/account-id.ts';
import { xOnlyPublicKey } from '../lez/public-key.ts';
import type { LogosTransport, Unsubscribe } from './transport.ts';
import { keepAlive, stopKeepingAlive } from '../keep-alive.ts';
import { PaymentAdmission } from './agent-runtime/payment-admission.ts';
import { ReplyLog, Retention, unknownTaskReply, type AgentReply, type ReplyTarget } from './agent-runtime/reply-log.ts';
import type { PeerAgentHost, PeerFace, PeerReplies } from './bindings/common/agent-face.ts';
import {
  Completion,
  DEFAULT_ANNOUNCE_EVERY_MS,
  SkillRejected,
  type CompletionFields,
  type FollowUp,
  type LogosAgentOptions,
  type SkillContext,
  type SkillHandler,
} from './agent-runtime/types.ts';

export * from './agent-runtime/types.ts';

interface TaskRun {
  readonly taskId: string;
  /** Who submitted the task (the transport's authenticated sender). */
  readonly submitter: string | undefined;
  /** The task's status key as the gateway sent it: a later request must carry the same. */
  readonly statusKey: string;
  readonly replies: ReplyLog;
  /**
   * The skill's signal; undefined once the skill has answered (returned, resolved or thrown): nothing of it is left
   * to abort, and an AbortSignal (an EventTarget) would be most of what a finished task keeps.
   */
  controller: AbortController | undefined;
  finished: boolean;
  /** The verified payment for this task, owed back if the task does not complete. */
  paid?: WirePaymentReference;
  /** The payment is being checked; the skill has not started. */
  admitting?: boolean;
  /** Sends `working` if the skill has said nothing after `ackAfterMs`. */
  ack?: NodeJS.Timeout;
  awaitingInput?: (input: { params: Record<string, unknown>; message?: Record<string, unknown> }) => void;
}

const SEEN_IDS_LIMIT = 10_000;
let warnedUnsigned = false;

export class LogosAgent implements PeerAgentHost {
  readonly card: LogosAgentCard;
  /** The card as announced: signed when a card key was given (relay this one, not `card`). */
  readonly signedCard: Record<string, unknown> | undefined;
  private readonly transport: LogosTransport;
  private readonly skills: Record<string, SkillHandler>;
  private readonly heartbeatMs: number;
  private readonly retention: Retention;
  private readonly ackAfterMs: number;
  private readonly runs = new Map<string, TaskRun>();
  private readonly seenIds = new SeenSet(SEEN_IDS_LIMIT);
  private unsubscribe?: Unsubscribe;
  private announcer?: NodeJS.Timeout;
  private readonly refundRetryMs: number;
  /** Where the card is announced; undefined when announcing is off. */
  private readonly discoveryTopic: string | undefined;
  private readonly announceEveryMs: number;
  private readonly admission: PaymentAdmission;
  private readonly resumable: LogosAgentOptions['resumable'];
  /** This process's run of the agent: announced with the card so gateways notice a restart. */
  private readonly instance = randomUUID();
  /** The agent as the peer bindings of the configured networks see it (bindings/agent-faces.ts). */
  readonly peerFaces: readonly PeerFace[];
  /** Where the replies to requests that came in on `transport` go. */
  private readonly ownTarget: ReplyTarget;

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
    this.ownTarget = { transport: this.transport, agentId: this.card.id };
    this.skills = options.skills;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.retention = new Retention(options.retentionMs ?? 10 * 60_000, options.maxRetained ?? 10_000);
    this.discoveryTopic = options.announce === false ? undefined : (options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC);
    this.announceEveryMs = options.announceEveryMs ?? DEFAULT_ANNOUNCE_EVERY_MS;
    if (!(Number.isFinite(this.announceEveryMs) && this.announceEveryMs > 0)) {
      throw new RangeError(`agent ${this.card.id}: announceEveryMs must be a positive number of milliseconds`);
    }
    this.admission = new PaymentAdmission(this.card, options.payments);
    this.ackAfterMs = options.ackAfterMs ?? 250;
    this.refundRetryMs = options.refundRetryMs ?? 5_000;
    this.resumable = options.resumable;
    this.peerFaces = options.peerFaces?.(this.card) ?? [];
  }

  async start(): Promise<void> {
    // Money first: what a previous run owed is paid back before the agent answers (payment-admission.ts).
    await this.admission.start(this.refundRetryMs);
    await this.transport.start();
    this.unsubscribe = this.transport.onDirect((payload, { sender }) => this.receive(payload, sender));
    for (const face of this.peerFaces) face.start(this);
    if (this.discoveryTopic || this.peerFaces.length > 0) {
      if (this.discoveryTopic && !this.signedCard && !warnedUnsigned) {
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

  /** Publishes the card on the discovery topic (also called periodically once started). */
  async announce(): Promise<void> {
    const topic = this.discoveryTopic;
    const announcements = [
      ...(topic ? [() => this.transport.publish(topic, encodeAnnouncement(this.signedCard ?? this.card))] : []),
      ...this.peerFaces.map((face) => () => face.announce()),
    ];
    await Promise.all(
      announcements.map((announce) =>
        announce().catch((error: unknown) => console.error(`agent ${this.card.id}: announcing the card failed`, error)),
      ),
    );
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    for (const face of this.peerFaces) face.stop();
    clearInterval(this.announcer);
    this.admission.stop();
    for (const run of this.runs.values()) {
      stopKeepingAlive(run.replies, this.heartbeatMs);
      // Its skill may still end after this, but a stopped agent answers nothing more: a payment it held stays held,
      // owed back at its next start (refundOwed), rather than refunded now with a rail and store closing behind it.
      run.finished = true;
      run.controller?.abort(new Error('agent stopping'));
    }
    this.runs.clear();
    await this.transport.stop();
  }

  private receive(payload: Uint8Array, sender: string | undefined): void {
    const decoded = decodeGatewayEnvelope(payload);
    if (!decoded.ok) return; // Not ours or malformed: a network node ignores what it cannot read.
    this.accept(decoded.envelope, sender, this.transport);
  }

  /** A request, from the gateway or a peer binding's face; its replies are published through `replies`. */
  accept(request: GatewayEnvelope, sender: string | undefined, replies: PeerReplies): void {
    // A skill sees the caller's message whole, however the gateway sent its text.
    const envelope =
      request.type === 'task_request' || request.type === 'task_input' ? withMessageText(request) : request;
    // Only the party that submitted a task may continue, query or cancel it, and only under the task's key.
    const run = this.runs.get(envelope.task_id);
    if (run && (sender !== run.submitter || envelope.status_key !== run.statusKey)) return;
    // A repeat is dropped; one refused above is not noted as seen, so its rightful sender can still send it.
    if (!this.seenIds.add(envelope.id)) return;
    this.dispatch(envelope, run, sender, replies);
  }

  /** `run`: the task's run, if the agent has one. */
  private dispatch(
    envelope: GatewayEnvelope,
    run: TaskRun | undefined,
    sender: string | undefined,
    replies: PeerReplies,
  ): void {
    switch (envelope.type) {
      case 'task_request':
        // A repeated request (the gateway restarted before it heard from us) gets the replies so far.
        if (run) run.replies.replay(0);
        else this.begin(envelope, sender, replies);
        return;
      case 'task_get': {
        if (run) return run.replies.replay(envelope.after_seq);
        const kept = this.resumable?.(envelope.task_id);
        if (!kept) return this.unknownTask(envelope, envelope.after_seq, replies);
        const { after_seq: afterSeq, ...asked } = envelope;
        this.begin({ ...asked, ...kept, type: 'task_request', lez_price: '0' }, sender, replies, afterSeq);
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
        if (!run) return this.unknownTask(envelope, 0, replies);
        if (run.finished) return run.replies.replay(run.replies.seq - 1);
        run.controller?.abort(new Error('cancelled by the caller'));
        // Still checking the payment: admit() finishes the task once it knows whether there is money to give back.
        if (!run.admitting) this.finish(run, { type: 'cancelled', message: 'Task cancelled.' });
        return;
    }
  }

  /** `afterSeq`: replies the gateway already has (a task resumed after a restart); its next is numbered after them. */
  private begin(request: TaskRequest, submitter: string | undefined, replies: PeerReplies, afterSeq = 0): void {
    // Every task of the agent's own transport shares one target: a finished task is kept a while, and its log with it.
    const target = replies === this.transport ? this.ownTarget : { transport: replies, agentId: this.card.id };
    const run: TaskRun = {
      taskId: request.task_id,
      submitter,
      statusKey: request.status_key,
      replies: new ReplyLog(request.task_id, request.status_key, target, afterSeq),
      controller: new AbortController(),
      finished: false,
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
    const price = this.admission.priceOf(request.skill);
    if (price > 0n) void this.admit(run, request, handler, price);
    else this.execute(run, request, handler);
  }

  /** Checks the payment of a priced task before any work; a task without a valid payment is rejected. */
  private async admit(run: TaskRun, request: TaskRequest, handler: SkillHandler, price: bigint): Promise<void> {
    run.admitting = true;
    const check = await this.admission.check(request, price);
    run.admitting = false;
    if (check.kind === 'refused' && run.controller?.signal.aborted) {
      // Cancelled while the payment was being checked (a check that could not reach the sequencer takes a while):
      // the caller's cancel is the answer, not a refusal of the task it no longer wants. Nothing was done.
      this.finish(run, { type: 'cancelled', message: `Task cancelled. ${check.problem}` });
      return;
    }
    if (check.kind === 'refused') {
      this.finish(run, {
        type: 'task_result',
        state: 'rejected',
        error: { code: 'payment_invalid', message: check.problem },
        message: check.problem,
      });
      return;
    }
    run.paid = check.payment;
    if (run.controller?.signal.aborted) {
      // Cancelled while the payment was being checked: nothing was done, so all of it goes back.
      this.finish(run, { type: 'cancelled', message: 'Task cancelled.' });
      return;
    }
    this.execute(run, request, handler);
  }

  /**
   * Runs the skill. One that answers at once is finished at once, as one that throws is: neither waits on a promise
   * (an async function and its await cost two promises and a microtask per task).
   */
  private execute(run: TaskRun, request: TaskRequest, handler: SkillHandler): void {
    if (!run.controller) return; // its skill has run already
    const context = this.contextFor(run, request, run.controller.signal);
    let outcome: unknown;
    let thenable: boolean;
    try {
      outcome = handler(context);
      thenable = isThenable(outcome); // reads `then`, which a skill's answer may make throw
    } catch (error) {
      this.failed(run, error);
      return;
    }
    if (!thenable) return this.settle(run, outcome);
    // Only a skill still running needs the acknowledgement and the keep-alive.
    if (!run.finished) this.watch(run);
    // Promise.resolve takes any thenable as `await` would, and is the very promise when it is one already.
    Promise.resolve(outcome).then(
      (value) => this.settle(run, value),
      (error: unknown) => this.failed(run, error),
    );
  }

  /**
   * Acknowledges with `working` only if the skill has said nothing by then: a quick skill answers in one reply (and
   * can answer with a message instead of a task), a slow one is acknowledged promptly. Until the task finishes, its
   * last reply is published again whenever it has been quiet for a while.
   */
  private watch(run: TaskRun): void {
    run.ack = setTimeout(() => {
      if (run.replies.seq === 0 && !run.finished) void run.replies.reply({ type: 'task_status', state: 'working' });
    }, this.ackAfterMs);
    run.ack.unref();
    keepAlive(run.replies, this.heartbeatMs);
  }

  /** The skill's outcome: the task completes with it unless it ended meanwhile. */
  private settle(run: TaskRun, outcome: unknown): void {
    run.controller = undefined;
    try {
      if (!run.finished) this.finish(run, completedReply(outcome));
    } catch (error) {
      this.failed(run, error);
    }
  }

  /** The skill threw (or its promise rejected): the task fails, or ends rejected when the skill declined it. */
  private failed(run: TaskRun, error: unknown): void {
    run.controller = undefined;
    if (run.finished) return;
    const message = error instanceof Error ? error.message : String(error);
    const rejected = error instanceof SkillRejected;
    const wireError: WireError = { code: rejected ? 'rejected' : 'skill_failed', message };
    this.finish(run, { type: 'task_result', state: rejected ? 'rejected' : 'failed', error: wireError, message });
  }

  private contextFor(run: TaskRun, request: TaskRequest, signal: AbortSignal): SkillContext {
    const params = request.params;
    return {
      taskId: run.taskId,
      contextId: request.context_id,
      skill: request.skill,
      params,
      text: typeof params.text === 'string' ? params.text : '',
      message: request.message,
      signal,
      progress: (message) =>
        run.replies.reply({ type: 'task_status', state: 'working', ...(message !== undefined ? { message } : {}) }),
      artifact: (artifact) =>
        run.replies.reply({
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
      const signal = run.controller?.signal;
      // A skill that has answered asks nothing more: its task is over.
      if (!signal) return reject(new Error(`task ${run.taskId} is over: its skill has answered`));
      if (signal.aborted) return reject(signal.reason);
      run.awaitingInput = ({ params: next, message }) => {
        void run.replies.reply({ type: 'task_status', state: 'working' });
        resolve({
          params: next,
          text: typeof next.text === 'string' ? next.text : '',
          ...(message ? { message } : {}),
        });
      };
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      void run.replies.reply({ type: 'task_status', state, message: prompt });
    });
  }

  private finish(run: TaskRun, reply: AgentReply): void {
    run.finished = true;
    if (run.ack) {
      // Watched (watch()): a quick skill is done before its acknowledgement is due, so the timer (and the run it
      // holds) goes now, and a finished task needs no keep-alive.
      clearTimeout(run.ack);
      stopKeepingAlive(run.replies, this.heartbeatMs);
    }
    for (const forgotten of this.retention.retain(run.taskId)) this.runs.delete(forgotten);
    const completed = reply.type === 'task_result' && reply.state === 'completed';
    if (run.paid && completed) this.admission.earned(run.paid);
    if (!run.paid || completed) {
      void run.replies.sendResult(reply);
      return;
    }
    // Paid and not completed: pay the money back, then say so in the final reply.
    void this.admission
      .refund(run.taskId, run.paid)
      .then((refund) => run.replies.reply(refund && reply.type !== 'task_status' ? { ...reply, refund } : reply));
  }

  /** A task this agent does not know (it restarted, or the request never arrived): say so, the gateway fails it. */
  private unknownTask(request: GatewayEnvelope, afterSeq: number, replies: PeerReplies): void {
    const taskId = request.task_id;
    void replies
      .publish(taskStatusTopic(taskId), encodeEnvelope(unknownTaskReply(taskId, afterSeq)), {
        key: statusKeyBytes(request.status_key),
      })
      .catch((error: unknown) => console.error(`agent ${this.card.id}: publishing on task ${taskId} failed`, error));
  }
}

/** The result of a skill that answered `outcome`, its fields in the order they always had. */
function completedReply(outcome: unknown): AgentReply {
  const reply: { type: 'task_result'; state: 'completed' } & Omit<CompletionFields, 'asMessage'> & {
      as_message?: true;
    } = { type: 'task_result', state: 'completed' };
  if (!(outcome instanceof Completion)) {
    if (outcome !== undefined) reply.result = outcome;
    return reply;
  }
  const fields = outcome.fields;
  if (fields.result !== undefined) reply.result = fields.result;
  if (fields.artifacts) reply.artifacts = fields.artifacts;
  if (fields.message !== undefined) reply.message = fields.message;
  if (fields.asMessage) reply.as_message = true;
  return reply;
}

/** What `await` waits for: an object or function with a `then` method. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    ((typeof value === 'object' && value !== null) || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
