/**
 * The PaymentRail on LEZ: public native transfers from one payer key through the sequencer JSON-RPC
 * (docs/lez.md §7.2–7.6). Pay = check the payee is initialised → queue in the payer's NoncePipeline (balance, nonce,
 * sign, record, submit, wait for inclusion). Verify = read the included transaction and compare.
 *
 * Deadlines: `pay` and `resume` wait at most `inclusionTimeoutMs` (a few block intervals: 15 s on the debug
 * sequencer config) and then answer `in-doubt` rather than guess; the transaction stays tracked.
 */
import { z } from 'zod';
import { parseAccountId } from '../account-id.ts';
import { formatU128Decimal } from '../json.ts';
import type { SigningKey } from '../keys.ts';
import { SIGNING_MODES, type SigningMode } from '../signing.ts';
import { assertProgramId } from '../transaction.ts';
import { BlockSearch } from './block-search.ts';
import { fromRecord, toReceipt } from './lez-payment.ts';
import { lookupLezTransfer } from './lez-transfer-lookup.ts';
import { NoncePipeline, type FeePolicy, type PipelineOutcome } from './nonce-pipeline.ts';
import { PROTOCOL_PROFILES, type ProtocolProfile } from '../protocol-profile.ts';
import { U128Decimal } from '../json.ts';
import { DEFAULT_GAS_LIMIT, DEFAULT_MAX_BASE_FEE, feeReserve } from '../fees.ts';
import { feeTransferBytes } from '../native-transfer.ts';
import { PayeeCheck } from './payee-check.ts';
import { readNativeTransfer } from '../native-transfer.ts';
import type {
  BalanceOutcome,
  FindTransferOutcome,
  TransferQuery,
  PayOutcome,
  PayRequest,
  PaymentRail,
  QuoteOutcome,
  VerifyExpectation,
  VerifyOutcome,
  VerifyRefundOutcome,
} from './payment-rail.ts';
import type { PayerLock } from './payer-lock.ts';
import { parseRailPaymentRecord } from './payment-record.ts';
import { AuthenticatedTransferProgram } from './transfer-program-id.ts';
import { quotePrice } from './quote.ts';
import { parseAmount, type TransferReceipt, type TransferReference } from './receipt.ts';
import { sequencerProblem, type SequencerApi } from './sequencer-api.ts';
import { MemoryUsedTxHashes, type UsedTxHashes } from './used-tx-hashes.ts';
import { verifyRefundTransfer, verifyTransfer, type VerifierContext } from './verification.ts';

export const LezRailSettings = z.object({
  /** `prehash-v0.3` for LEZ `main`, `raw-borsh` up to v0.2.0-rc3 (signing.ts). */
  signingMode: z.enum(SIGNING_MODES),
  /**
   * The protocol (protocol-profile.ts): `v0.2` checks that a payee is initialised before paying it; `lee-v0.3` has no
   * such step but fees: each transfer declares one (nonce-pipeline.ts), within `maxFee`. The client must read
   * transactions in the same profile's layout.
   */
  profile: z.enum(PROTOCOL_PROFILES).default('v0.2'),
  /**
   * lee-v0.3: the operator's hard cap on one payment's fee, base units (payments.maxFee). Without it, the cap is the
   * reserve at base fees of DEFAULT_MAX_BASE_FEE (fees.ts; docs/lez.md §10.5).
   */
  maxFee: U128Decimal.optional(),
  /** lee-v0.3: the gas limit each transfer declares (DEFAULT_GAS_LIMIT, fees.ts: no sequencer method tells it). */
  gasLimit: z.number().int().positive().max(10_000_000).default(DEFAULT_GAS_LIMIT),
  /** lee-v0.3: the priority tip each transfer declares. */
  tip: z.number().int().min(0).default(0),
  /** The label receipts and records carry; default: the sequencer URL. */
  network: z.string().min(1).max(512).optional(),
  /** Skips `getProgramIds` when set. */
  authenticatedTransferProgramId: z.array(z.number().int().min(0).max(0xffff_ffff)).length(8).optional(),
  inclusionTimeoutMs: z.number().int().positive().default(60_000),
  pollIntervalMs: z.number().int().positive().default(1_000),
  /** Resend an accepted but unincluded transaction (same bytes) after this long; above the block interval. */
  resubmitAfterMs: z.number().int().positive().default(30_000),
  /** How many recent blocks are searched for a transaction the sequencer's hash index does not know (block-search.ts). */
  searchBlocks: z.number().int().positive().default(2_000),
});
export type LezRailSettings = z.input<typeof LezRailSettings>;

export interface LezRailDependencies {
  client: SequencerApi;
  /** The payer: the gateway's wallet key (keys.ts / wallet-key-file.ts). */
  payer: SigningKey;
  /** Durable in a gateway (its payment store); in memory by default. */
  usedTxHashes?: UsedTxHashes;
  /** Replicas paying from the same key take turns under it (payer-lock.ts); a single process needs none. */
  payerLock?: PayerLock;
}

/**
 * How a lee-v0.3 transfer declares its fee. An operator's `maxFee` is a hard cap; without one the cap is what the
 * transfer's gas limit and bytes reserve at DEFAULT_MAX_BASE_FEE per unit: the declared `max_fee` still follows each
 * quote, and a quote whose next-block ceilings pass that bound refuses the payment.
 */
function feePolicy(settings: z.output<typeof LezRailSettings>): FeePolicy {
  const gasLimit = BigInt(settings.gasLimit);
  const tip = BigInt(settings.tip);
  if (settings.maxFee !== undefined) return { gasLimit, tip, maxFee: settings.maxFee, capSource: 'configured' };
  const bound = feeReserve({ gasLimit, tip }, feeTransferBytes(), DEFAULT_MAX_BASE_FEE, DEFAULT_MAX_BASE_FEE);
  return { gasLimit, tip, maxFee: bound, capSource: 'default' };
}

export class LezRail implements PaymentRail {
  readonly rail = 'lez' as const;
  readonly network: string;
  readonly payer: string;
  readonly profile: ProtocolProfile;
  /** lee-v0.3: how fees are declared, and the cap on one. */
  readonly fees: FeePolicy | undefined;
  private readonly signingMode: SigningMode;
  private readonly inclusionTimeoutMs: number;
  private readonly client: SequencerApi;
  private readonly program: AuthenticatedTransferProgram;
  private readonly payees: PayeeCheck;
  private readonly pipeline: NoncePipeline;
  private readonly verifier: VerifierContext;
  private readonly search: BlockSearch;

  /** Bad settings are a configuration error and throw. */
  constructor(dependencies: LezRailDependencies, settings: LezRailSettings) {
    const parsed = LezRailSettings.parse(settings);
    if (dependencies.client.layout !== parsed.profile)
      throw new RangeError(
        `the sequencer client reads ${dependencies.client.layout} transactions, the rail is ${parsed.profile}`,
      );
    this.profile = parsed.profile;
    this.fees = parsed.profile === 'lee-v0.3' ? feePolicy(parsed) : undefined;
    this.client = dependencies.client;
    this.network = parsed.network ?? dependencies.client.url;
    this.payer = dependencies.payer.account;
    this.signingMode = parsed.signingMode;
    this.inclusionTimeoutMs = parsed.inclusionTimeoutMs;
    const configured = parsed.authenticatedTransferProgramId;
    this.program = new AuthenticatedTransferProgram(this.client, configured && assertProgramId(configured));
    this.payees = new PayeeCheck(this.client, this.program);
    const search = new BlockSearch(this.client, { maxBlocks: parsed.searchBlocks, cacheBlocks: parsed.searchBlocks });
    this.search = search;
    this.pipeline = new NoncePipeline({
      search,
      client: this.client,
      key: dependencies.payer,
      signingMode: parsed.signingMode,
      programId: () => this.program.id(),
      network: this.network,
      pollIntervalMs: parsed.pollIntervalMs,
      resubmitAfterMs: parsed.resubmitAfterMs,
      ...(dependencies.payerLock ? { payerLock: dependencies.payerLock } : {}),
      ...(this.fees ? { fees: this.fees } : {}),
    });
    this.verifier = {
      rail: this.rail,
      network: this.network,
      usedTxHashes: dependencies.usedTxHashes ?? new MemoryUsedTxHashes(),
      checkAccount: (text) => {
        const parsedId = parseAccountId(text);
        return parsedId.ok ? undefined : parsedId.reason;
      },
      lookup: (txHash) => lookupLezTransfer(this.client, this.program, search, this.signingMode, txHash),
    };
  }

  get feeCap(): bigint | undefined {
    return this.fees?.maxFee;
  }

  /** With fees, the fee quoted is the cap: the most one payment may cost beyond its price. */
  async quote(price: bigint | string): Promise<QuoteOutcome> {
    return quotePrice(this.rail, this.network, price, this.fees?.maxFee ?? 0n);
  }

  async pay(request: PayRequest): Promise<PayOutcome> {
    const { paymentId } = request;
    const fail = (reason: 'invalid-request', message: string): PayOutcome => ({
      kind: 'failed',
      paymentId,
      reason,
      message,
    });
    if (typeof paymentId !== 'string' || paymentId.length === 0 || paymentId.length > 256) {
      return fail('invalid-request', 'paymentId must be a string of 1 to 256 characters');
    }
    const amount = parseAmount(request.amount);
    if (!amount.ok) return fail('invalid-request', `amount: ${amount.reason}`);
    if (amount.value === 0n) return fail('invalid-request', 'a payment amount must be positive');
    const payee = parseAccountId(request.to);
    if (!payee.ok) return fail('invalid-request', `payee: ${payee.reason}`);
    if (payee.text === this.payer) return fail('invalid-request', 'the payer cannot pay itself');

    // A repeat of a known payment goes straight to the pipeline, which joins it or reports a conflict. Only v0.2
    // drops transfers to accounts never initialised; lee-v0.3 has no claiming step.
    if (this.profile === 'v0.2' && !this.pipeline.knows(paymentId)) {
      const check = await this.payees.check(payee.text);
      if (check.kind !== 'payable') return { kind: 'failed', paymentId, reason: check.reason, message: check.message };
    }
    const outcome = await this.pipeline.order({
      paymentId,
      to: payee.text,
      amount: amount.value,
      onSigned: request.onSigned,
      deadline: Date.now() + this.inclusionTimeoutMs,
    });
    return this.payOutcome(paymentId, outcome);
  }

  async resume(input: unknown): Promise<PayOutcome> {
    const parsed = parseRailPaymentRecord(input);
    if (!parsed.ok) return { kind: 'failed', paymentId: '', reason: 'invalid-request', message: parsed.message };
    const record = parsed.record;
    const programId = await this.program.id();
    if (programId.kind !== 'result') {
      // The record cannot be checked, so nothing is sent; but it may have landed already, so this is no failure.
      const problem = sequencerProblem(programId);
      const receipt: TransferReceipt = {
        rail: 'lez',
        network: this.network,
        txHash: record.txHash,
        from: record.from,
        to: record.to,
        amount: record.amount,
        nonce: record.nonce,
        status: 'submitted',
      };
      return {
        kind: 'in-doubt',
        paymentId: record.paymentId,
        reason: problem.reason,
        message: problem.message,
        receipt,
      };
    }
    const restored = fromRecord(record, {
      network: this.network,
      payer: this.payer,
      programId: programId.value,
      signingMode: this.signingMode,
      layout: this.profile,
    });
    if (!restored.ok)
      return { kind: 'failed', paymentId: record.paymentId, reason: 'invalid-request', message: restored.message };
    const outcome = await this.pipeline.adopt(restored.payment, Date.now() + this.inclusionTimeoutMs);
    return this.payOutcome(record.paymentId, outcome);
  }

  verify(ref: TransferReference | string, expect: VerifyExpectation): Promise<VerifyOutcome> {
    return verifyTransfer(this.verifier, ref, expect);
  }

  verifyRefund(
    original: TransferReceipt,
    refundTxHash: string,
    options?: { amount?: bigint | string },
  ): Promise<VerifyRefundOutcome> {
    return verifyRefundTransfer(this.verifier, original, refundTxHash, options);
  }

  async findTransfer(query: TransferQuery): Promise<FindTransferOutcome> {
    const amount = parseAmount(query.amount);
    if (!amount.ok) return { kind: 'found', txHashes: [], complete: true };
    const programId = await this.program.id();
    if (programId.kind !== 'result') return { kind: 'unconfirmed', ...sequencerProblem(programId) };
    const searched = await this.search.findAll((tx) => {
      const transfer = readNativeTransfer(tx.transaction, programId.value);
      return (
        transfer.ok && transfer.from === query.from && transfer.to === query.to && transfer.amount === amount.value
      );
    }, query.notBeforeMs);
    if (searched.kind === 'unavailable') return { kind: 'unconfirmed', ...searched.problem };
    return { kind: 'found', txHashes: searched.transactions.map((tx) => tx.hash), complete: searched.complete };
  }

  async balance(account: string = this.payer): Promise<BalanceOutcome> {
    const parsed = parseAccountId(account);
    if (!parsed.ok) return { kind: 'failed', reason: 'invalid-request', message: `account: ${parsed.reason}` };
    const balance = await this.client.getAccountBalance(parsed.text);
    if (balance.kind !== 'result') return { kind: 'failed', ...sequencerProblem(balance) };
    return { kind: 'ok', account: parsed.text, balance: formatU128Decimal(balance.value) };
  }

  /** Stops polling; payments not yet signed fail, signed ones come back in doubt (resume their records later). */
  close(): void {
    this.pipeline.close();
  }

  private payOutcome(paymentId: string, outcome: PipelineOutcome): PayOutcome {
    switch (outcome.kind) {
      case 'included':
        return { kind: 'paid', paymentId, receipt: toReceipt(outcome.payment, this.network, 'included') };
      case 'failed':
        return { kind: 'failed', paymentId, reason: outcome.reason, message: outcome.message };
      case 'in-doubt':
        return {
          kind: 'in-doubt',
          paymentId,
          reason: outcome.reason,
          message: outcome.message,
          receipt: toReceipt(outcome.payment, this.network, 'submitted'),
        };
    }
  }
}
