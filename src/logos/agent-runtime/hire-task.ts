/**
 * One hired task, from the caller's side of docs/binding.md: the part a gateway plays (§5), kept in memory only.
 * Subscribed to the task's status topic under its key before the `task_request` leaves (§2.4); replies taken only
 * from the agent's address (§2.2), applied once each in `seq` order, one that comes early waiting at most the
 * reorder wait for the missing one (§6.1); the request sent again under a fresh id 2, 6, 14 and 30 s after it went
 * out while nothing answered it (§5.5); a follow-up sent again, same bytes, when the agent repeats its
 * `input-required` (§5.3); a cancel that the agent does not confirm within the cancel timeout ends the task here
 * (§5.4 b); an agent silent for the agent timeout ends it too (§5.5), a paid one after one more question.
 */
import { randomUUID } from 'node:crypto';
import {
  BINDING_VERSION,
  decodeAgentEnvelope,
  encodeEnvelope,
  type AgentEnvelope,
  type TaskRequest,
  type WireArtifact,
  type WireMessage,
  type WirePaymentReference,
} from '../envelope.ts';
import { fittingText } from '../message-text.ts';
import { ourBinding } from '../bindings/ours.ts';
import type { LogosTransport, Unsubscribe } from '../transport.ts';
import type { HireInput, HireOutcome, HirePayment, HireUpdate } from './hire-outcome.ts';

/** The caller's timers (binding §6.5): the gateway's defaults unless set. */
export interface HireTimers {
  /** Silence after which a submitted or working task is given up (60 s). */
  agentTimeoutMs: number;
  /** Wait for the agent's confirmation of a cancel (5 s). */
  cancelTimeoutMs: number;
  /** How long a reply that came early waits for a missing one (2 s). */
  reorderWaitMs: number;
}

export const DEFAULT_HIRE_TIMERS: HireTimers = { agentTimeoutMs: 60_000, cancelTimeoutMs: 5_000, reorderWaitMs: 2_000 };

export interface HireTaskOptions {
  transport: Pick<LogosTransport, 'address' | 'send' | 'subscribe'>;
  /** The agent's address (canonical, card.ts `logosAddressOf`): requests go there, replies count only from there. */
  address: string;
  request: TaskRequest;
  timers: HireTimers;
  maxEnvelopeBytes: number;
  payment?: HirePayment;
  /** Checks a refund the agent announced (hire-payment.ts); only for a paid task. */
  checkRefund?: (
    paid: WirePaymentReference,
    refund: WirePaymentReference | undefined,
  ) => Promise<HirePayment['refund']>;
  onUpdate?: (update: HireUpdate) => void;
  signal?: AbortSignal;
  /** The task ended (or never started): the caller forgets it. */
  onEnd?: () => void;
  log: (message: string) => void;
}

/** The request is sent again this long after it went out, then after twice as long, … */
const FIRST_RESEND_MS = 2_000;
/** … this many times (§5.5: 2, 6, 14 and 30 s). */
const REQUEST_RESENDS = 4;
const INTERRUPTED = new Set(['input-required', 'auth-required']);

export class HireTask {
  readonly #options: HireTaskOptions;
  readonly #taskId: string;
  readonly #contextId: string;
  #lastSeq = 0;
  readonly #pending = new Map<number, AgentEnvelope>();
  #gapTimer?: NodeJS.Timeout;
  #silenceTimer?: NodeJS.Timeout;
  #cancelTimer?: NodeJS.Timeout;
  readonly #resendTimers: NodeJS.Timeout[] = [];
  #state = 'submitted';
  #cancelSent = false;
  /** Asked once more after the agent timeout (a paid task: the agent holds the money). */
  #lastChance = false;
  /** The follow-up sent and not yet answered by a newer reply: sent again if the agent repeats its question. */
  #sentInput?: Uint8Array;
  readonly #artifacts = new Map<string, WireArtifact>();
  /** Resolves the turn the hiring skill awaits; undefined while it holds an interrupted outcome and has not replied. */
  #turn?: (outcome: HireOutcome) => void;
  /** The task's end, once known; every later call gets it. */
  #final?: HireOutcome;
  #unsubscribe?: Unsubscribe;
  /** Replies are applied one at a time, in order: a refund check in between must not let the next one overtake. */
  #chain: Promise<void> = Promise.resolve();

  constructor(options: HireTaskOptions) {
    this.#options = options;
    this.#taskId = options.request.task_id;
    this.#contextId = options.request.context_id;
  }

  /** Subscribes, sends the request, and resolves with the first turn's end. */
  async start(payload: Uint8Array): Promise<HireOutcome> {
    const { transport, request, signal } = this.#options;
    const { topic, options } = ourBinding.statusTopic(request);
    this.#unsubscribe = transport.subscribe(topic, (bytes, { sender }) => this.#hear(bytes, sender), options);
    const turn = this.#nextTurn();
    try {
      await transport.send(this.#options.address, payload);
    } catch (error) {
      const problem = `The request could not be sent to ${this.#options.address}: ${(error as Error).message}`;
      // Paid already: the request goes out again on the resend schedule, and the outcome names the payment.
      if (this.#options.payment) this.#options.log(`hired task ${this.#taskId}: ${problem}`);
      else {
        this.#end({ kind: 'refused', reason: 'send-failed', message: problem });
        return turn;
      }
    }
    this.#armSilence();
    this.#resendWhileUnanswered();
    if (signal) {
      if (signal.aborted) void this.cancel();
      else signal.addEventListener('abort', () => void this.cancel(), { once: true });
    }
    return turn;
  }

  /** The agent's address, which the task's requests go to. */
  get address(): string {
    return this.#options.address;
  }

  /**
   * The agent announced a new instance: it restarted and forgot its runs (discovery §5). Asked at once, it answers
   * with what it has, or that it does not know the task, rather than leaving the hire to the agent timeout.
   */
  agentRestarted(): void {
    if (!this.#final) this.#askAgain();
  }

  /** Sends the caller's follow-up to an interrupted task, and resolves with where the task comes to rest next. */
  async reply(input: HireInput | string): Promise<HireOutcome> {
    if (this.#final) return this.#final;
    if (!INTERRUPTED.has(this.#state)) throw new Error(`task ${this.#taskId} is ${this.#state}, not waiting for input`);
    const followUp = typeof input === 'string' ? { params: { text: input } } : input;
    const envelope = {
      ...this.#addressing(),
      type: 'task_input' as const,
      params: followUp.params,
      message: followUp.message ?? userMessage(followUp.params, this.#contextId, this.#taskId),
    };
    const { bytes } = fittingText(envelope, this.#options.maxEnvelopeBytes);
    if (bytes.byteLength > this.#options.maxEnvelopeBytes) {
      // Nothing sent: the task still waits, and the outcome that asked can reply again with less.
      return {
        kind: 'refused',
        reason: 'too-large',
        message: `The follow-up makes a ${bytes.byteLength}-byte envelope; the binding carries at most ${this.#options.maxEnvelopeBytes}.`,
      };
    }
    const turn = this.#nextTurn();
    this.#sentInput = bytes;
    this.#state = 'working';
    this.#armSilence();
    this.#sendQuietly(bytes, 'the follow-up');
    return turn;
  }

  /** Asks the agent to stop; resolves with the task's end (the agent's, or a local cancel after the cancel timeout). */
  async cancel(): Promise<HireOutcome> {
    if (this.#final) return this.#final;
    const turn = this.#nextTurn();
    if (this.#cancelSent) return turn;
    this.#cancelSent = true;
    this.#sendQuietly(encodeEnvelope({ ...this.#addressing(), type: 'cancel' }), 'the cancel');
    this.#cancelTimer = setTimeout(
      () =>
        this.#end({
          ...this.#common(),
          kind: 'cancelled',
          message: { parts: [{ text: 'Cancelled by the caller; the agent did not confirm in time.' }] },
          confirmed: false,
        }),
      this.#options.timers.cancelTimeoutMs,
    );
    this.#cancelTimer.unref();
    return turn;
  }

  #nextTurn(): Promise<HireOutcome> {
    return new Promise((resolve) => {
      const previous = this.#turn;
      // A cancel while a follow-up's turn is awaited: both end with the task.
      this.#turn = previous
        ? (outcome) => {
            previous(outcome);
            resolve(outcome);
          }
        : resolve;
    });
  }

  #hear(bytes: Uint8Array, sender: string | undefined): void {
    // Only the task's agent speaks for it (§2.2); a transport that cannot tell is trusted as it is.
    if (this.#final || (sender !== undefined && sender !== this.#options.address)) return;
    const decoded = decodeAgentEnvelope(bytes, this.#options.maxEnvelopeBytes);
    if (!decoded.ok || decoded.envelope.task_id !== this.#taskId) return;
    const reply = decoded.envelope;
    // Every well-formed reply, a heartbeat too, says the agent is alive (§6.4).
    if (!INTERRUPTED.has(this.#state)) this.#armSilence();
    if (reply.seq <= this.#lastSeq || this.#pending.has(reply.seq)) {
      // The agent asks again for the input it was sent: the follow-up was lost on the way (§5.3).
      const repeatsQuestion =
        reply.type === 'task_status' && INTERRUPTED.has(reply.state) && reply.seq === this.#lastSeq;
      if (repeatsQuestion && this.#sentInput) this.#sendQuietly(this.#sentInput, 'the follow-up again');
      return;
    }
    this.#pending.set(reply.seq, reply);
    this.#chain = this.#chain.then(() => this.#drain());
  }

  /** Applies held replies while they continue the sequence; a gap left waits for the reorder wait. */
  async #drain(): Promise<void> {
    let next = this.#pending.get(this.#lastSeq + 1);
    while (next && !this.#final) {
      this.#pending.delete(next.seq);
      this.#lastSeq = next.seq;
      await this.#apply(next);
      next = this.#pending.get(this.#lastSeq + 1);
    }
    if (this.#pending.size === 0 || this.#final) {
      clearTimeout(this.#gapTimer);
      this.#gapTimer = undefined;
    } else if (!this.#gapTimer) {
      this.#gapTimer = setTimeout(() => {
        this.#gapTimer = undefined;
        this.#chain = this.#chain.then(() => {
          if (this.#pending.size === 0 || this.#final) return;
          const lowest = Math.min(...this.#pending.keys());
          this.#options.log(`hired task ${this.#taskId}: replies ${this.#lastSeq + 1}..${lowest - 1} never came`);
          this.#lastSeq = lowest - 1;
          return this.#drain();
        });
      }, this.#options.timers.reorderWaitMs);
      this.#gapTimer.unref();
    }
  }

  async #apply(reply: AgentEnvelope): Promise<void> {
    this.#sentInput = undefined;
    switch (reply.type) {
      case 'task_status': {
        this.#state = reply.state;
        if (reply.artifact) this.#merge(reply.artifact);
        this.#options.onUpdate?.({
          taskId: this.#taskId,
          state: reply.state,
          ...(reply.message !== undefined ? { message: reply.message } : {}),
          ...(reply.artifact ? { artifact: reply.artifact } : {}),
        });
        if (!INTERRUPTED.has(reply.state)) return this.#armSilence();
        // Waiting for the caller: its silence does not count (§5.5), and the hiring skill decides what comes next.
        clearTimeout(this.#silenceTimer);
        this.#settleTurn({
          ...this.#common(),
          kind: reply.state as 'input-required' | 'auth-required',
          ...(reply.message !== undefined ? { prompt: reply.message } : {}),
          artifacts: [...this.#artifacts.values()],
          reply: (input) => this.reply(input),
          cancel: () => this.cancel(),
        });
        return;
      }
      case 'task_result': {
        for (const artifact of reply.artifacts ?? []) this.#merge(artifact);
        if (reply.state === 'completed') {
          const result = reply.result ?? chunkedResult(this.#artifacts.get('result'));
          this.#end({
            ...this.#common(),
            kind: 'completed',
            ...(result !== undefined && result !== null ? { result } : {}),
            artifacts: [...this.#artifacts.values()],
            ...(reply.message !== undefined ? { message: reply.message } : {}),
            asMessage: reply.as_message === true,
          });
          return;
        }
        const said = reply.message ?? reply.error?.message;
        this.#end({
          ...(await this.#withRefund(reply.refund)),
          kind: reply.state,
          error: reply.error ?? { code: reply.state, message: messageText(said) },
          ...(said !== undefined ? { message: said } : {}),
        });
        return;
      }
      case 'cancelled':
        this.#end({
          ...(await this.#withRefund(reply.refund)),
          kind: 'cancelled',
          ...(reply.message !== undefined ? { message: reply.message } : {}),
          confirmed: true,
        });
    }
  }

  /** Chunks of one artifact (`append`) add parts to it; a new whole artifact under the same id replaces it (§7.5). */
  #merge(artifact: WireArtifact): void {
    const held = this.#artifacts.get(artifact.artifact_id);
    const { append: _append, last_chunk: _last, ...whole } = artifact;
    this.#artifacts.set(
      artifact.artifact_id,
      artifact.append && held ? { ...held, parts: [...held.parts, ...artifact.parts] } : whole,
    );
  }

  #common(): TaskFields {
    return {
      taskId: this.#taskId,
      contextId: this.#contextId,
      ...(this.#options.payment ? { payment: this.#options.payment } : {}),
    };
  }

  /** The task's common fields, with the refund of a paid task checked on chain. */
  async #withRefund(refund: WirePaymentReference | undefined): Promise<TaskFields> {
    const payment = this.#options.payment;
    if (!payment || !this.#options.checkRefund) return this.#common();
    const checked = await this.#options.checkRefund(payment.paid, refund);
    return { ...this.#common(), payment: { ...payment, ...(checked ? { refund: checked } : {}) } };
  }

  #settleTurn(outcome: HireOutcome): void {
    const turn = this.#turn;
    this.#turn = undefined;
    turn?.(outcome);
  }

  /** The task ended (or never started): nothing more is heard or sent for it. */
  #end(outcome: HireOutcome): void {
    if (this.#final) return;
    this.#final = outcome;
    this.#unsubscribe?.();
    clearTimeout(this.#gapTimer);
    clearTimeout(this.#silenceTimer);
    clearTimeout(this.#cancelTimer);
    for (const timer of this.#resendTimers) clearTimeout(timer);
    this.#pending.clear();
    this.#options.onEnd?.();
    this.#settleTurn(outcome);
  }

  #armSilence(): void {
    clearTimeout(this.#silenceTimer);
    this.#silenceTimer = setTimeout(() => this.#silent(), this.#options.timers.agentTimeoutMs);
    this.#silenceTimer.unref();
  }

  #silent(): void {
    if (this.#final || INTERRUPTED.has(this.#state)) return;
    if (this.#options.payment && !this.#lastChance) {
      // The agent holds the caller's money: its answer may only have been lost on the way, so ask once more.
      this.#lastChance = true;
      this.#askAgain();
      this.#armSilence();
      return;
    }
    const seconds = Math.round(this.#options.timers.agentTimeoutMs / 100) / 10;
    this.#end({ ...this.#common(), kind: 'timeout', message: `The agent did not answer within ${seconds} s.` });
  }

  /** §5.5: the request may have been lost while a node joined the mesh; an agent that had it only replays. */
  #resendWhileUnanswered(): void {
    let wait = 0;
    for (let turn = 0; turn < REQUEST_RESENDS; turn++) {
      wait += FIRST_RESEND_MS * 2 ** turn;
      const timer = setTimeout(() => {
        if (this.#lastSeq === 0 && !this.#cancelSent && !this.#final) this.#askAgain();
      }, wait);
      timer.unref();
      this.#resendTimers.push(timer);
    }
  }

  /** No reply yet: the request again, under a fresh id (§5.7 b); otherwise a replay of what came after the last. */
  #askAgain(): void {
    const { request } = this.#options;
    const payload =
      this.#lastSeq === 0
        ? fittingText({ ...request, id: randomUUID() }, this.#options.maxEnvelopeBytes).bytes
        : encodeEnvelope({ ...this.#addressing(), type: 'task_get', after_seq: this.#lastSeq });
    this.#sendQuietly(payload, 'a question about the task');
  }

  /** The members every request of the task carries, under a fresh message id (receivers drop ids they have seen). */
  #addressing() {
    const { request } = this.#options;
    return {
      v: BINDING_VERSION as typeof BINDING_VERSION,
      id: randomUUID(),
      task_id: this.#taskId,
      from: request.from,
      to: request.to,
      status_key: request.status_key,
    };
  }

  #sendQuietly(payload: Uint8Array, what: string): void {
    this.#options.transport
      .send(this.#options.address, payload)
      .catch((error: unknown) =>
        this.#options.log(`hired task ${this.#taskId}: sending ${what} failed: ${String(error)}`),
      );
  }
}

/** What every outcome of the task says. */
interface TaskFields {
  taskId: string;
  contextId: string;
  payment?: HirePayment;
}

/**
 * The A2A v1.0 message (JSON) that carries `params` by the mapping of §7.1: `params.text` as a text part, the other
 * members as one data part, so that an agent that reads the message finds what `params` says.
 */
export function userMessage(
  params: Record<string, unknown>,
  contextId: string,
  taskId: string,
): Record<string, unknown> {
  const { text, ...rest } = params;
  const parts = [
    ...(typeof text === 'string' ? [{ text }] : []),
    ...(Object.keys(rest).length > 0 || typeof text !== 'string'
      ? [{ data: typeof text === 'string' ? rest : params }]
      : []),
  ];
  return { messageId: randomUUID(), contextId, taskId, role: 'ROLE_USER', parts };
}

/** A result sent in chunks (§8.3): the text of the `result` artifact, when it is all text. */
function chunkedResult(artifact: WireArtifact | undefined): string | undefined {
  if (!artifact || !artifact.parts.every((part) => 'text' in part)) return undefined;
  return artifact.parts.map((part) => (part as { text: string }).text).join('');
}

function messageText(message: WireMessage | undefined): string {
  if (message === undefined) return 'The agent gave no reason.';
  if (typeof message === 'string') return message;
  return message.parts
    .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}
