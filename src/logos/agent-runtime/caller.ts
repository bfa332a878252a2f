/**
 * The client side of the agent runtime: a Logos agent hires another Logos agent, as the seed's `agent.task(address,
 * skill, params)` does, over the same transport it serves on. The agent to hire is named by a card (read and
 * verified as a gateway reads an announced one, card-reading.ts), or by its id or address among the cards heard on
 * the discovery topic (discovery.ts into an in-memory directory.ts); the conversation itself is hire-task.ts, the
 * part of docs/binding.md a gateway plays; a priced skill is paid first from the caller's own rail (hire-payment.ts)
 * or refused. Each hire ends in a HireOutcome (hire-outcome.ts): no exception for what an agent may do.
 *
 *   const caller = new LogosCaller({ transport });            // the hiring agent's own transport, started
 *   caller.start();                                          // listens for cards on the discovery topic
 *   const outcome = await caller.hire('translator', 'translate', { text: 'Bonjour' }, { signal: ctx.signal });
 */
import { randomUUID } from 'node:crypto';
import { logosAddressOf, skillPrice, type LogosAgentCard } from '../card.ts';
import { readAnnouncedCard, type Reaches } from '../card-reading.ts';
import { AgentDirectory } from '../directory.ts';
import { DEFAULT_DISCOVERY_TOPIC, DiscoveryListener } from '../discovery.ts';
import { BINDING_VERSION, type TaskRequest } from '../envelope.ts';
import { fittingText } from '../message-text.ts';
import { dialectOf } from '../seed-dialect.ts';
import { newStatusKey } from '../status-key.ts';
import type { LogosTransport } from '../transport.ts';
import { isWakuAddress } from '../transports/waku/identity.ts';
import type { HireOutcome, HireUpdate } from './hire-outcome.ts';
import type { HirePayments } from './hire-payment.ts';
import { DEFAULT_HIRE_TIMERS, HireTask, userMessage, type HireTimers } from './hire-task.ts';

export * from './hire-outcome.ts';
export { HirePayments, type HirePaymentsOptions } from './hire-payment.ts';

export interface LogosCallerOptions {
  /** The node the caller speaks through: a hiring agent's own (its `transport`), started by its owner. */
  transport: LogosTransport;
  /** Where cards are heard (default: the gateways' discovery topic). */
  discoveryTopic?: string;
  /** Pays priced skills; without it, a priced skill is refused before anything is sent. */
  payments?: HirePayments;
  /** The binding's timers (§6.5); default the gateway's. */
  timers?: Partial<HireTimers>;
  /** Whether the transport reaches an address; default: waku addresses on a waku node, the others elsewhere. */
  reaches?: Reaches;
  log?: (message: string) => void;
}

/** Who to hire: a card as announced (JSON, signed), or the id or address of an agent whose card was heard. */
export type HireTarget = string | { card: unknown };

export interface HireOptions {
  /** Aborting it cancels the hired task (pass the hiring skill's `ctx.signal`). */
  signal?: AbortSignal;
  /** The A2A context the task belongs to; default a new one. */
  contextId?: string;
  /** The request as an A2A v1.0 Message (JSON); default: made from `params` (§7.1). */
  message?: Record<string, unknown>;
  /** Each status or artifact the agent sends, in order (say, to pass progress on with `ctx.progress`). */
  onUpdate?: (update: HireUpdate) => void;
}

export class LogosCaller {
  readonly #options: LogosCallerOptions;
  readonly #timers: HireTimers;
  readonly #reaches: Reaches;
  readonly #directory: AgentDirectory;
  readonly #discovery: DiscoveryListener;
  readonly #log: (message: string) => void;
  /** The hires under way, asked about again when their agent announces that it restarted. */
  readonly #live = new Set<HireTask>();

  constructor(options: LogosCallerOptions) {
    this.#options = options;
    this.#timers = { ...DEFAULT_HIRE_TIMERS, ...options.timers };
    this.#log = options.log ?? ((message) => console.warn(message));
    this.#reaches =
      options.reaches ??
      (isWakuAddress(options.transport.address) ? isWakuAddress : (address) => !isWakuAddress(address));
    // Verified cards only: an unverified card's address is not proven to be the agent's.
    this.#directory = new AgentDirectory({ reaches: this.#reaches, log: this.#log });
    this.#discovery = new DiscoveryListener(
      options.transport,
      this.#directory,
      options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC,
      (address) => {
        for (const task of this.#live) if (task.address === address) task.agentRestarted();
      },
    );
  }

  /** Listens for cards on the discovery topic (the transport must be started): hires by id or address need them. */
  start(): void {
    this.#discovery.start();
  }

  stop(): void {
    this.#discovery.stop();
  }

  /** The card heard for an agent id or address, if any. */
  cardOf(idOrAddress: string): LogosAgentCard | undefined {
    return (
      this.#directory.get(idOrAddress)?.card ??
      this.#directory.all().find((entry) => entry.address === idOrAddress)?.card
    );
  }

  /**
   * Sends `skill` with `params` to the agent, and resolves where the task comes to rest: its end, or its question
   * (`input-required`, `auth-required`) with `reply` and `cancel` to go on.
   */
  async hire(
    target: HireTarget,
    skill: string,
    params: Record<string, unknown> | string,
    options: HireOptions = {},
  ): Promise<HireOutcome> {
    const read = this.#read(target);
    if (!read.ok) return { kind: 'refused', reason: read.reason, message: read.message };
    const card = read.card;
    const dialect = dialectOf(card);
    if (dialect !== 'binding') {
      return {
        kind: 'refused',
        reason: 'unsupported-dialect',
        message: `Agent "${card.id}" speaks the ${dialect} dialect; hires speak docs/binding.md only.`,
      };
    }
    if (!card.skills.some((entry) => entry.id === skill)) {
      return {
        kind: 'refused',
        reason: 'unknown-skill',
        message: `Agent "${card.id}" has no skill "${skill}". Skills: ${card.skills.map((entry) => entry.id).join(', ')}.`,
      };
    }
    const taskId = randomUUID();
    const contextId = options.contextId ?? randomUUID();
    const args = typeof params === 'string' ? { text: params } : params;
    const request: TaskRequest = {
      v: BINDING_VERSION,
      type: 'task_request',
      id: randomUUID(),
      task_id: taskId,
      from: this.#options.transport.address,
      to: logosAddressOf(card),
      status_key: newStatusKey(),
      context_id: contextId,
      skill,
      params: args,
      lez_price: '0',
      message: options.message ?? userMessage(args, contextId, taskId),
    };
    const maxEnvelopeBytes = this.#options.transport.maxPayloadBytes;
    const price = BigInt(skillPrice(card, skill));
    const payments = this.#options.payments;
    const payee = card['x-lez-identity']?.account_id;
    if (price > 0n && !(payments && payee)) {
      return {
        kind: 'refused',
        reason: 'priced',
        message: `Skill "${skill}" of "${card.id}" costs ${price} LEZ base units, and this caller has no wallet to pay with.`,
      };
    }
    if (price > 0n) {
      // Measured with a reference as long as the real one: a request too large must be refused before it is paid.
      request.lez_price = price.toString();
      request.payment = {
        rail: 'lez',
        tx_hash: '0'.repeat(64),
        from: payments!.account,
        to: payee!,
        amount: request.lez_price,
      };
    }
    if (fittingText(request, maxEnvelopeBytes).bytes.byteLength > maxEnvelopeBytes) return tooLarge(maxEnvelopeBytes);
    let payment;
    if (price > 0n) {
      const paid = await payments!.pay(taskId, payee!, price);
      if (paid.kind !== 'paid') return { kind: 'refused', reason: paid.reason, message: paid.message };
      payment = paid.payment;
      request.payment = payment.paid;
    }
    const sent = fittingText(request, maxEnvelopeBytes);
    const task = new HireTask({
      transport: this.#options.transport,
      address: request.to,
      request,
      timers: this.#timers,
      maxEnvelopeBytes,
      ...(payment ? { payment, checkRefund: (paid, refund) => this.#options.payments!.checkRefund(paid, refund) } : {}),
      ...(options.onUpdate ? { onUpdate: options.onUpdate } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onEnd: () => this.#live.delete(task),
      log: this.#log,
    });
    this.#live.add(task);
    return task.start(sent.bytes);
  }

  #read(
    target: HireTarget,
  ): { ok: true; card: LogosAgentCard } | { ok: false; reason: 'unknown-agent' | 'bad-card'; message: string } {
    if (typeof target === 'string') {
      const card = this.cardOf(target);
      return card
        ? { ok: true, card }
        : { ok: false, reason: 'unknown-agent', message: `No verified card of "${target}" was heard on discovery.` };
    }
    const reading = readAnnouncedCard(target.card, this.#reaches);
    if (!reading.ok) return { ok: false, reason: 'bad-card', message: `The card was refused: ${reading.message}` };
    if ('unverified' in reading) {
      return { ok: false, reason: 'bad-card', message: 'The card is not signed by a rule this caller verifies.' };
    }
    return { ok: true, card: reading.card };
  }
}

const tooLarge = (max: number): HireOutcome => ({
  kind: 'refused',
  reason: 'too-large',
  message: `The request does not fit one Logos message (${max} bytes); send less, or files by URL.`,
});
