/**
 * One payer key's payments, in nonce order (docs/lez.md §7.2 step 4: "one serialized payment queue per payer key").
 * Over 500 lines on purpose: the rules below hold only together (a nonce is freed, re-signed or resent under one
 * lane's lock), so they stay in one file; submission and block search are apart (submission.ts, block-search.ts).
 *
 * LEZ accepts a transaction only when its nonce equals the sender's on-chain nonce at block time, executes the
 * mempool in arrival order, and drops what fails. So:
 *
 * - Orders are signed lazily, one at a time, in the lane: next free nonce → sign → record (`onSigned`) → submit,
 *   then the next. Many concurrent orders therefore get consecutive nonces and reach the mempool in nonce order
 *   within moments of each other, so one block can take them all; nothing waits for inclusion before the next
 *   is sent.
 * - A nonce is freed only when its transaction provably never reached a mempool: the sequencer refused it
 *   (`refused`) or the connection was refused (`not-delivered`). That transaction was the newest one signed (later
 *   orders are signed only after its answer), so the next order simply re-uses the nonce, signed anew: later
 *   nonces are re-signed in order and there is never a gap.
 * - When a submission's fate is unknown (timeout, garbage, 5xx), the nonce stays taken, no new order is signed,
 *   and only the same bytes are ever sent again (submission.ts).
 * - A driver polls while anyone waits: `getAccountsNonces` tells which nonces the chain has used. A used nonce is
 *   looked up by our hash (`getTransaction`): found = paid. Absent, the blocks are searched (transaction-location.ts),
 *   since a restarted sequencer forgets earlier hashes: our transaction in a block = paid; another one of ours
 *   with that nonce = `superseded`, ours can never land; neither = still in doubt. An unused nonce whose transaction is overdue is resent, same bytes,
 *   in order.
 * - A waiter that reaches its deadline gets `in-doubt`; its transaction stays tracked and keeps being resent
 *   while anyone else waits, so a later `order`/`adopt` of the same payment picks it up. Nothing is abandoned.
 *
 * Assumes what docs/lez.md §2 describes: a FIFO mempool and failing transactions dropped at block time. A transaction
 * that is accepted but keeps being dropped (someone else spending from this key, say) leaves its nonce unused and
 * holds up every later one; that shows as `in-doubt` payments, never as a double payment.
 */
import { base64 } from '@scure/base';
import { admissionRejectionOf, DEFAULT_MAX_BASE_FEE, feeReserve, type FeeStateQuote } from '../fees.ts';
import { parseAccountId } from '../account-id.ts';
import type { SigningKey } from '../keys.ts';
import { buildNativeTransfer } from '../native-transfer.ts';
import type { RpcOutcome } from '../sequencer-client.ts';
import type { SigningMode } from '../signing.ts';
import type { ProgramId } from '../transaction.ts';
import type { BlockSearch } from './block-search.ts';
import { errorText } from './error-text.ts';
import { Lane } from '../../lane.ts';
import { toRecord, type SignedPayment } from './lez-payment.ts';
import type { PayerLock } from './payer-lock.ts';
import type { DoubtReason, PayFailureReason } from './payment-rail.ts';
import type { OnSigned } from './payment-record.ts';
import { sequencerProblem, type SequencerApi, type SequencerProblem } from './sequencer-api.ts';
import { submitTransaction } from './submission.ts';
import { locateTransaction } from './transaction-location.ts';
import { sleep } from '../../time-limit.ts';

const REMEMBERED_PAYMENTS = 10_000;
/** A block holding our transaction is not older than its signature, give or take the sequencer's clock. */
const SIGNING_CLOCK_SKEW_MS = 10 * 60_000;

export interface NoncePipelineOptions {
  client: SequencerApi;
  key: SigningKey;
  signingMode: SigningMode;
  programId: () => Promise<RpcOutcome<ProgramId>>;
  /** Settles a used nonce whose hash the sequencer's index does not know. */
  search: BlockSearch;
  /** Written into records. */
  network: string;
  pollIntervalMs: number;
  /** An accepted transaction not in a block after this long is sent again (same bytes). */
  resubmitAfterMs: number;
  now?: () => number;
  /** With replicas paying from the same key: held while signing and until what was signed has settled. */
  payerLock?: PayerLock;
  /** On a chain with fees (lee-v0.3): what each transfer declares, and the most it may cost. */
  fees?: FeePolicy;
}

/** How a payment's fee is declared on a chain with fees (lez/fees.ts). */
export interface FeePolicy {
  gasLimit: bigint;
  tip: bigint;
  /**
   * The cap on one payment's fee. Each transfer declares as `max_fee` the reserve at the next block's highest
   * possible base fees (getFeeState's ceilings), so a fee rise of one block does not refuse it; a declaration above
   * this cap is not signed.
   */
  maxFee: bigint;
  /** `configured`: the operator's payments.maxFee. `default`: the bound at DEFAULT_MAX_BASE_FEE (lez/fees.ts). */
  capSource: 'configured' | 'default';
}

/** How often a payment is signed again after the sequencer said its max_fee was below the reserve (fees rose). */
const FEE_RETRIES = 2;

export interface PaymentOrder {
  paymentId: string;
  /** base58 account id, already checked to be payable. */
  to: string;
  amount: bigint;
  onSigned?: OnSigned;
  /** Epoch ms after which the caller stops waiting. */
  deadline: number;
}

export type PipelineOutcome =
  | { kind: 'included'; payment: SignedPayment }
  | { kind: 'failed'; reason: PayFailureReason; message: string }
  | { kind: 'in-doubt'; reason: DoubtReason; message: string; payment: SignedPayment };

interface Waiter {
  deadline: number;
  resolve: (outcome: PipelineOutcome) => void;
}

interface Order {
  paymentId: string;
  to: string;
  toId: Uint8Array;
  amount: bigint;
  onSigned: OnSigned | undefined;
  waiters: Waiter[];
  /** Times re-signed because the sequencer found its max_fee below the reserve. */
  feeRetries: number;
}

/** A signed transaction whose nonce the chain has not been seen to pass, or whose fate is not settled yet. */
interface Slot {
  payment: SignedPayment;
  /** `unsent`: never reached a sequencer. `maybe`: may have. `accepted`: a sequencer took it at least once. */
  delivery: 'unsent' | 'maybe' | 'accepted';
  /** False for an adopted record whose nonce another live transaction holds: we only watch which one lands. */
  resend: boolean;
  lastSentAt: number | undefined;
  problem: SequencerProblem | undefined;
  /** The JSON-RPC code of the sequencer's last refusal of these bytes. */
  refusalCode?: number;
  waiters: Waiter[];
}

export interface PipelineStats {
  queued: number;
  live: number;
  nonces: bigint[];
}

export class NoncePipeline {
  private readonly options: NoncePipelineOptions;
  private readonly now: () => number;
  private readonly lane = new Lane();
  private readonly queue: Order[] = [];
  /** Live slots, ascending by nonce. */
  private readonly slots: Slot[] = [];
  private readonly active = new Map<string, Order | Slot>();
  private readonly included = new Map<string, SignedPayment>();
  private problem: SequencerProblem | undefined;
  private driving = false;
  private kickScheduled = false;
  private closed = false;
  /** The last attempt to sign found another replica holding the payer lock. */
  private payerLockBusy = false;

  constructor(options: NoncePipelineOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Whether this payment is queued, in flight or paid here (its payee was checked already). */
  knows(paymentId: string): boolean {
    return this.active.has(paymentId) || this.included.has(paymentId);
  }

  stats(): PipelineStats {
    return { queued: this.queue.length, live: this.slots.length, nonces: this.slots.map((s) => s.payment.nonce) };
  }

  /** Pays once per paymentId: a repeat joins the payment in flight or gets the included one. */
  order(order: PaymentOrder): Promise<PipelineOutcome> {
    if (this.closed) return Promise.resolve(failed('closed', 'the payment rail is closed'));
    const done = this.included.get(order.paymentId);
    if (done) return Promise.resolve(sameTerms(done, order) ?? { kind: 'included', payment: done });
    const existing = this.active.get(order.paymentId);
    if (existing) {
      const terms = 'payment' in existing ? existing.payment : existing;
      const conflict = sameTerms(terms, order);
      return conflict ? Promise.resolve(conflict) : this.wait(existing, order.deadline);
    }
    const toId = parseAccountId(order.to);
    if (!toId.ok) return Promise.resolve(failed('invalid-request', `payee: ${toId.reason}`));
    const queued: Order = {
      paymentId: order.paymentId,
      to: order.to,
      toId: toId.id,
      amount: order.amount,
      onSigned: order.onSigned,
      waiters: [],
      feeRetries: 0,
    };
    this.queue.push(queued);
    this.active.set(order.paymentId, queued);
    const outcome = this.wait(queued, order.deadline);
    this.kick();
    return outcome;
  }

  /**
   * Takes back a payment signed earlier (a stored record, after a restart) and sees it through: included → paid;
   * nonce used by another transaction → superseded; otherwise the same bytes are sent again. Never signs.
   */
  adopt(payment: SignedPayment, deadline: number): Promise<PipelineOutcome> {
    if (this.closed)
      return Promise.resolve({ kind: 'in-doubt', reason: 'closed', message: 'the payment rail is closed', payment });
    if (this.included.get(payment.paymentId)?.txHash === payment.txHash)
      return Promise.resolve({ kind: 'included', payment });
    const same = this.slots.find((s) => s.payment.txHash === payment.txHash);
    if (same) return this.wait(same, deadline);
    const slot: Slot = {
      payment,
      delivery: 'maybe',
      resend: !this.slots.some((s) => s.payment.nonce === payment.nonce),
      lastSentAt: undefined,
      problem: undefined,
      waiters: [],
    };
    this.insertSlot(slot);
    if (!this.active.has(payment.paymentId)) this.active.set(payment.paymentId, slot);
    const outcome = this.wait(slot, deadline);
    // Look now rather than a poll interval from now: the answer is often already on chain.
    void this.lane.run(() => this.guarded(() => this.reconcile()));
    return outcome;
  }

  /** Stops driving. Orders not yet signed fail; signed ones are reported in doubt (their records stay valid). */
  close(): void {
    this.closed = true;
    // Its connection goes with the process anyway; letting go now spares the other replicas the wait.
    void this.options.payerLock?.release().catch(() => undefined);
    for (const order of this.queue.splice(0))
      this.settleOrder(order, failed('closed', 'the payment rail was closed before this payment was signed'));
    for (const slot of this.slots) {
      for (const waiter of slot.waiters.splice(0))
        waiter.resolve(inDoubt(slot, 'closed', 'the payment rail was closed while this payment was in flight'));
    }
  }

  // ---- waiting and the driver ---------------------------------------------------------------------------------

  private wait(target: Order | Slot, deadline: number): Promise<PipelineOutcome> {
    const outcome = new Promise<PipelineOutcome>((resolve) => target.waiters.push({ deadline, resolve }));
    this.ensureDriver();
    return outcome;
  }

  /** An order being signed right now is in neither list; processQueue restarts the driver when it becomes a slot. */
  private hasWaiters(): boolean {
    return this.queue.length > 0 || this.slots.some((s) => s.waiters.length > 0);
  }

  /** Polls while anyone waits, and only then: an idle rail makes no requests and holds no timers. */
  private ensureDriver(): void {
    if (this.driving) return;
    this.driving = true;
    void (async () => {
      try {
        while (!this.closed && this.hasWaiters()) {
          await sleep(this.options.pollIntervalMs);
          await this.lane.run(() => this.guarded(() => this.reconcile()));
        }
      } finally {
        this.driving = false;
      }
    })();
  }

  /** New orders are taken up at once, not at the next poll. */
  private kick(): void {
    if (this.kickScheduled) return;
    this.kickScheduled = true;
    void this.lane.run(() => {
      this.kickScheduled = false;
      return this.guarded(() => this.processQueue());
    });
  }

  /** A bug in a pass must not become an unhandled rejection; it is kept as the problem waiters will see. */
  private async guarded(work: () => Promise<void>): Promise<void> {
    try {
      await work();
      await this.releaseIdlePayerLock();
    } catch (error) {
      this.problem = { reason: 'bad-response', message: `internal error in the payment pipeline: ${errorText(error)}` };
    }
  }

  // ---- signing and sending new orders (always inside the lane) -------------------------------------------------

  private async processQueue(): Promise<void> {
    this.expire();
    if (this.closed || this.queue.length === 0) return;
    // A transaction whose delivery is unknown holds back everything after it: no new signature until it is through.
    if (this.slots.some((s) => s.resend && s.delivery !== 'accepted')) return;
    // Another replica is signing from this key: the driver tries again at its next poll.
    if (!(await this.holdPayerLock())) return;

    const account = await this.options.client.getAccount(this.options.key.account);
    if (account.kind !== 'result') return this.failQueue(sequencerProblem(account));
    const programId = await this.options.programId();
    if (programId.kind !== 'result') return this.failQueue(sequencerProblem(programId));
    const fees = this.options.fees;
    const quote = fees ? await this.options.client.getFeeState() : undefined;
    if (quote && quote.kind !== 'result') return this.failQueue(sequencerProblem(quote));
    const chainNonce = account.value.nonce;
    // The balance already reflects every transaction that landed; what is still pending is committed on top, each
    // with the most its fee may take.
    const committed = this.slots
      .filter((s) => s.payment.nonce >= chainNonce)
      .reduce((sum, s) => sum + s.payment.amount + (s.payment.maxFee ?? 0n), 0n);
    let available = account.value.balance - committed;

    while (this.queue.length > 0 && !this.closed) {
      const order = this.queue.shift()!;
      if (order.waiters.length === 0) continue;
      const nonce = this.freeNonce(chainNonce);
      const signed = this.sign(order, programId.value, nonce, quote?.value);
      if (!signed.ok) {
        this.settleOrder(order, failed(signed.reason, signed.message));
        continue;
      }
      const payment = signed.payment;
      const cost = order.amount + (payment.maxFee ?? 0n);
      if (cost > available) {
        const fee = payment.maxFee ? ` and up to ${payment.maxFee} in fees` : '';
        const message =
          `${this.options.key.account} holds ${account.value.balance}, of which ${committed} is committed to payments in flight; ` +
          `this payment needs ${order.amount}${fee}`;
        this.settleOrder(order, failed('insufficient-funds', message));
        continue;
      }
      try {
        await order.onSigned?.(toRecord(payment, this.options.network));
      } catch (error) {
        this.settleOrder(
          order,
          failed('record-failed', `recording the payment failed, so it was not submitted: ${errorText(error)}`),
        );
        continue;
      }

      const slot: Slot = {
        payment,
        delivery: 'unsent',
        resend: true,
        lastSentAt: undefined,
        problem: undefined,
        waiters: order.waiters,
      };
      // Closed while recording: the record stands and `resume` will send it; this process sends nothing more.
      if (this.closed) return this.abandon(slot);
      this.insertSlot(slot);
      this.active.set(order.paymentId, slot);
      // While this order was being signed it was in neither the queue nor the slots, so the driver may have
      // found nobody waiting and stopped; its waiters need it again now.
      this.ensureDriver();
      available -= cost;

      const sent = await this.send(slot);
      if (this.closed) return this.abandon(slot);
      if (sent === 'accepted') continue;
      if (sent === 'refused' || sent === 'not-delivered') {
        // Never in a mempool, so its nonce goes to the next order. Its record is void.
        available += cost;
        const problem = slot.problem!;
        const rejection = sent === 'refused' ? admissionRejectionOf(slot.refusalCode!) : undefined;
        if (rejection === 'MaxFeeBelowReserve' && order.feeRetries < FEE_RETRIES) {
          // The fees rose past the quote: signed again, under a fresh quote, if the cap still allows.
          this.dropSlot(slot);
          this.queue.unshift({ ...order, waiters: slot.waiters.splice(0), feeRetries: order.feeRetries + 1 });
          this.active.set(order.paymentId, this.queue[0]!);
          return this.processQueue();
        }
        if (rejection) {
          this.settleSlot(
            slot,
            failed('fee-rejected', `the sequencer refused the payment's fee: ${problem.message}; nothing was paid`),
          );
          continue;
        }
        const reason = sent === 'refused' ? 'rejected' : 'sequencer-unavailable';
        this.settleSlot(
          slot,
          failed(reason, `${problem.message}; nothing was paid (the recorded transaction is void)`),
        );
        // A sequencer that refuses connections will refuse the rest too: fail them now, signing nothing more.
        if (sent === 'not-delivered') return this.failQueue(problem);
        continue;
      }
      return; // unknown fate: the driver resends these same bytes; later orders wait
    }
  }

  /** Whether this process may sign now: always without a payer lock, else while it holds the lock. */
  private async holdPayerLock(): Promise<boolean> {
    const lock = this.options.payerLock;
    if (!lock) return true;
    // Asked each time, held or not: a lock can be lost with its connection, and must then be taken again.
    const held = await lock.tryAcquire();
    this.payerLockBusy = !held;
    return held;
  }

  /** Lets the payer lock go once everything this process signed has settled and nothing waits to be signed. */
  private async releaseIdlePayerLock(): Promise<void> {
    if (this.slots.length > 0 || this.queue.length > 0) return;
    await this.options.payerLock?.release(); // a no-op when not held
  }

  /**
   * Never throws: the order has left the queue, and a throw here would leave its caller waiting forever. With fees,
   * the declared max_fee is the reserve at the quote's ceilings; the transfer's size, which the reserve prices, does
   * not depend on the max_fee (a fixed-width u128), so a first build measures it.
   */
  private sign(
    order: Order,
    programId: ProgramId,
    nonce: bigint,
    quote: FeeStateQuote | undefined,
  ):
    { ok: true; payment: SignedPayment } | { ok: false; reason: 'invalid-request' | 'fee-above-cap'; message: string } {
    try {
      const policy = this.options.fees;
      const build = (maxFee?: bigint) =>
        buildNativeTransfer({
          programId,
          secretKey: this.options.key.secretKey,
          to: order.toId,
          amount: order.amount,
          nonce,
          mode: this.options.signingMode,
          ...(policy && maxFee !== undefined ? { fee: { gasLimit: policy.gasLimit, tip: policy.tip, maxFee } } : {}),
        });
      let built = build(policy?.maxFee);
      if (policy && quote && built.ok) {
        const size = BigInt(base64.decode(built.base64).byteLength);
        const maxFee = feeReserve(policy, size, quote.next_base_fee_exec_ceiling, quote.next_base_fee_stor_ceiling);
        if (maxFee > policy.maxFee) {
          const cap =
            policy.capSource === 'configured'
              ? `the cap payments.maxFee = ${policy.maxFee}`
              : `the default cap of ${policy.maxFee} (base fees up to ${DEFAULT_MAX_BASE_FEE}, 8 times the protocol's minimum; payments.maxFee sets another)`;
          const message =
            `the fee for this payment may reach ${maxFee} (gas limit ${policy.gasLimit} and ${size} bytes at the next block's ` +
            `base fees ${quote.next_base_fee_exec_ceiling}/${quote.next_base_fee_stor_ceiling}), above ${cap}; nothing was paid`;
          return { ok: false, reason: 'fee-above-cap', message };
        }
        built = build(maxFee);
      }
      if (!built.ok) return { ok: false, reason: 'invalid-request', message: built.reason };
      const payment: SignedPayment = {
        paymentId: order.paymentId,
        from: this.options.key.account,
        to: order.to,
        amount: order.amount,
        nonce,
        txHash: built.hashHex,
        tx: built.base64,
        signedAt: new Date(this.now()).toISOString(),
        ...(built.transaction.message.fee ? { maxFee: built.transaction.message.fee.maxFee } : {}),
      };
      return { ok: true, payment };
    } catch (error) {
      return { ok: false, reason: 'invalid-request', message: `could not sign the transfer: ${errorText(error)}` };
    }
  }

  /** The lowest nonce at or above the chain's that no live transaction holds. */
  private freeNonce(chainNonce: bigint): bigint {
    let nonce = chainNonce;
    while (this.slots.some((s) => s.payment.nonce === nonce)) nonce++;
    return nonce;
  }

  private async send(slot: Slot): Promise<'accepted' | 'refused' | 'not-delivered' | 'stalled'> {
    const result = await submitTransaction(this.options.client, slot.payment.tx, slot.payment.txHash);
    slot.lastSentAt = this.now();
    if (result.kind === 'accepted') {
      slot.delivery = 'accepted';
      slot.problem = undefined;
      return 'accepted';
    }
    slot.problem = result.problem;
    if (result.kind === 'refused') slot.refusalCode = result.code;
    this.problem = result.problem;
    if (slot.delivery === 'unsent' && result.kind !== 'unknown') return result.kind;
    // A refusal of bytes that may already be in the mempool (a duplicate, say) proves nothing; it got through once.
    if (slot.delivery === 'accepted' && result.kind === 'refused') return 'accepted';
    if (slot.delivery === 'unsent') slot.delivery = 'maybe'; // an unknown fate: it may be in the mempool now
    return 'stalled';
  }

  // ---- reconciling with the chain (always inside the lane) ----------------------------------------------------

  private async reconcile(): Promise<void> {
    this.expire();
    if (this.closed) return;
    if (this.slots.length === 0) return this.processQueue();

    // What the chain's nonce says holds as of when it was asked for: a payment is overdue by that moment, not by the
    // end of the lookups below, which can take seconds, while it may land meanwhile.
    const askedAt = this.now();
    const nonces = await this.options.client.getAccountsNonces([this.options.key.account]);
    if (nonces.kind !== 'result') return this.noteProblem(sequencerProblem(nonces));
    const chainNonce = nonces.value[0]!;

    for (const slot of this.slots.filter((s) => s.payment.nonce < chainNonce)) {
      // The nonce is used. When the index does not know our hash (a restarted sequencer forgets the hashes of
      // earlier blocks), only the blocks can say whether ours landed or another transaction took the nonce.
      const located = await locateTransaction(this.options.client, this.options.search, {
        txHash: slot.payment.txHash,
        signer: { account: slot.payment.from, nonce: slot.payment.nonce },
        notBeforeMs: Date.parse(slot.payment.signedAt) - SIGNING_CLOCK_SKEW_MS,
      });
      if (located.kind === 'unavailable') return this.noteProblem(located.problem);
      if (located.kind === 'indexed' || located.kind === 'included')
        this.settleSlot(slot, { kind: 'included', payment: slot.payment });
      else if (located.kind === 'nonce-taken') {
        const message = `nonce ${slot.payment.nonce} was used by transaction ${located.byTxHash} (block ${located.blockId}), so ${slot.payment.txHash} can never land`;
        this.settleSlot(slot, failed('superseded', message));
      } else {
        // Neither is on the blocks read: in doubt it stays, since money may have moved.
        slot.problem = {
          reason: 'bad-response',
          message: `nonce ${slot.payment.nonce} is used, but neither ${slot.payment.txHash} nor another transaction with that nonce was found in the last ${located.searchedBlocks} block(s)${located.complete ? '' : ' (some could not be read)'}`,
        };
      }
    }

    const pending = this.slots.filter((s) => s.payment.nonce >= chainNonce && s.resend);
    const first = pending[0];
    const overdue = (s: Slot) => s.lastSentAt === undefined || askedAt - s.lastSentAt >= this.options.resubmitAfterMs;
    if (first && (first.delivery !== 'accepted' || overdue(first))) {
      for (const slot of pending) {
        const sent = await this.send(slot);
        if (sent === 'stalled') break;
        if (sent !== 'accepted')
          this.settleSlot(
            slot,
            failed(sent === 'refused' ? 'rejected' : 'sequencer-unavailable', slot.problem!.message),
          );
      }
    }
    await this.processQueue();
  }

  private noteProblem(problem: SequencerProblem): void {
    this.problem = problem;
    for (const slot of this.slots) {
      slot.problem = problem;
      // A sequencer that stopped answering may come back restarted, its mempool gone: what it had accepted is sent
      // again as soon as it answers, not after resubmitAfterMs (a second copy of bytes it still holds is harmless).
      if (slot.delivery === 'accepted') slot.lastSentAt = undefined;
    }
  }

  /** Waiters past their deadline: unsigned orders fail (nothing to undo); signed payments are in doubt. */
  private expire(): void {
    const now = this.now();
    for (const order of [...this.queue]) {
      order.waiters = order.waiters.filter((waiter) => {
        if (waiter.deadline > now) return true;
        const why = this.payerLockBusy
          ? '; another replica was paying from the same wallet all the while'
          : this.problem
            ? `; last sequencer problem: ${this.problem.message}`
            : '';
        waiter.resolve(
          failed('timeout', `the payment did not get its turn before the deadline, nothing was signed${why}`),
        );
        return false;
      });
      if (order.waiters.length === 0) this.dropOrder(order);
    }
    for (const slot of this.slots) {
      slot.waiters = slot.waiters.filter((waiter) => {
        if (waiter.deadline > now) return true;
        const problem = slot.problem;
        const message = problem
          ? `not seen in a block before the deadline: ${problem.message}`
          : `nonce ${slot.payment.nonce} not used on chain before the deadline; the transaction stays pending and may still land`;
        waiter.resolve(inDoubt(slot, problem?.reason ?? 'not-included', message));
        return false;
      });
    }
  }

  // ---- bookkeeping ---------------------------------------------------------------------------------------------

  private abandon(slot: Slot): void {
    if (this.active.get(slot.payment.paymentId) === slot) this.active.delete(slot.payment.paymentId);
    for (const waiter of slot.waiters.splice(0))
      waiter.resolve(inDoubt(slot, 'closed', 'the payment rail was closed while this payment was being sent'));
  }

  private failQueue(problem: SequencerProblem): void {
    this.problem = problem;
    for (const order of this.queue.splice(0)) {
      this.settleOrder(order, failed(problem.reason, `${problem.message}; nothing was signed`));
    }
  }

  private dropOrder(order: Order): void {
    const at = this.queue.indexOf(order);
    if (at >= 0) this.queue.splice(at, 1);
    if (this.active.get(order.paymentId) === order) this.active.delete(order.paymentId);
  }

  private settleOrder(order: Order, outcome: PipelineOutcome): void {
    this.dropOrder(order);
    for (const waiter of order.waiters.splice(0)) waiter.resolve(outcome);
  }

  private dropSlot(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    if (this.active.get(slot.payment.paymentId) === slot) this.active.delete(slot.payment.paymentId);
  }

  private settleSlot(slot: Slot, outcome: PipelineOutcome): void {
    this.dropSlot(slot);
    if (outcome.kind === 'included') {
      this.included.set(slot.payment.paymentId, slot.payment);
      // Idempotency beyond this many payments is the caller's durable record's job (resume), not memory's.
      if (this.included.size > REMEMBERED_PAYMENTS) this.included.delete(this.included.keys().next().value!);
    }
    for (const waiter of slot.waiters.splice(0)) waiter.resolve(outcome);
  }

  private insertSlot(slot: Slot): void {
    const at = this.slots.findIndex((s) => s.payment.nonce > slot.payment.nonce);
    if (at < 0) this.slots.push(slot);
    else this.slots.splice(at, 0, slot);
  }
}

function failed(reason: PayFailureReason, message: string): PipelineOutcome {
  return { kind: 'failed', reason, message };
}

function inDoubt(slot: Slot, reason: DoubtReason, message: string): PipelineOutcome {
  return { kind: 'in-doubt', reason, message, payment: slot.payment };
}

function sameTerms(existing: { to: string; amount: bigint }, order: PaymentOrder): PipelineOutcome | undefined {
  if (existing.to === order.to && existing.amount === order.amount) return undefined;
  return failed('conflict', `payment ${order.paymentId} is already for ${existing.amount} to ${existing.to}`);
}
