/**
 * Payment rails as the two sides need them: the gateway pays from its wallet (`Payer`), an agent checks what it
 * was paid and pays refunds (`AgentPayments`). Thin adapters over one `PaymentRail`, over fetch only: the Worker
 * builds its wallet's rail here too (the wallet key file is read in wallet-payer.ts).
 */
import type { Payer, TaskPaymentsOptions } from '../bridge/task-payments.ts';
import type { AgentPayments } from '../logos/agent-runtime.ts';
import type { AgentPaymentStore, HeldPayment } from '../store/agent-payment-store.ts';
import { ConfigError, type GatewayConfig, type PaymentsConfig } from './config.ts';
import type { SigningKey } from '../lez/keys.ts';
import { LezRail } from '../lez/rail/lez-rail.ts';
import { SequencerClient } from '../lez/sequencer-client.ts';
import type { PayerLock } from '../lez/rail/payer-lock.ts';
import type { PaymentRail } from '../lez/rail/payment-rail.ts';
import { privateFirst, type PrivateReceiving } from '../lez/private/payment-check.ts';
import { paymentKeys } from '../lez/private/receive.ts';
import { chooseProfile, probeProfile, type ProtocolProfile } from '../lez/protocol-profile.ts';
import { chooseSigningMode, probeSequencer } from '../lez/sequencer-probe.ts';
import type { SigningMode } from '../lez/signing.ts';
import { sleep } from '../time-limit.ts';

export function gatewayPayer(rail: PaymentRail): Payer {
  return {
    rail: rail.rail,
    account: rail.payer,
    ...(rail.feeCap === undefined ? {} : { feeCap: rail.feeCap }),
    ...(rail.profile === undefined ? {} : { profile: rail.profile }),
    pay: (paymentId, to, amount, record) => rail.pay({ paymentId, to, amount, onSigned: (signed) => record(signed) }),
    resume: (state) => rail.resume(state),
    verify: (txHash, expect) => rail.verify(txHash, { ...expect, purpose: `refund:${txHash}` }),
    findTransfers: (query) => rail.findTransfer(query),
  };
}

/** What the gateway may spend: the wallet's limits and each API key's budget, from the configuration. */
export function spendingRules(
  config: GatewayConfig,
): Pick<TaskPaymentsOptions, 'limits' | 'budgets' | 'approveWithoutRefunds'> {
  return {
    approveWithoutRefunds: config.payments.approveWithoutRefunds,
    budgets: new Map(
      config.apiKeys.flatMap((key) => (key.budget === undefined ? [] : [[key.name, BigInt(key.budget)] as const])),
    ),
    limits: {
      ...(config.payments.perTransactionLimit === undefined
        ? {}
        : { perTransaction: BigInt(config.payments.perTransactionLimit) }),
      ...(config.payments.perPeriodLimit === undefined ? {} : { perPeriod: BigInt(config.payments.perPeriodLimit) }),
      periodMs: config.payments.periodMs,
    },
  };
}

/** How long an agent asks again about a payment the sequencer cannot confirm yet before it refuses the task. */
const VERIFY_WAIT_MS = 10_000;

/**
 * An agent's side of a rail. With a store (store/agent-payment-store.ts) its money survives a restart: a payment
 * reference pays for one task only, ever, a refund is signed once and resumed after a crash, a refund that could not be
 * made (the sequencer was down, say) is tried again (`retryRefunds`) until it lands, and the payments of tasks it
 * can no longer complete are refunded at its next start (`refundOwed`).
 */
export function agentPayments(
  rail: PaymentRail,
  store?: AgentPaymentStore,
  receiving?: PrivateReceiving,
): AgentPayments {
  /** Refunds under way, by payment: a retry joins the attempt in flight instead of signing beside it. */
  const refunding = new Map<string, Promise<{ ok: true; txHash: string } | { ok: false; message: string }>>();
  /** Pays `payment` back, resuming a refund signed before a crash rather than signing a second one. */
  const payBack = (payment: { txHash: string; payer: string; amount: string }, paymentId: string) => {
    const key = payment.txHash.toLowerCase();
    const running = refunding.get(key);
    if (running) return running;
    const attempt = (async () => {
      const signed = store?.get(payment.txHash)?.refundState;
      const outcome = signed
        ? await rail.resume(signed)
        : await rail.pay({
            paymentId,
            to: payment.payer,
            amount: payment.amount,
            onSigned: (record) => store?.setRefundState(payment.txHash, record),
          });
      if (outcome.kind === 'paid') {
        store?.setStatus(payment.txHash, 'refunded');
        return { ok: true as const, txHash: outcome.receipt.txHash };
      }
      // Failed means it can never land (nothing was sent, or its nonce went to another transaction): the next
      // attempt signs a new refund. In doubt, the signed one is kept and resumed.
      if (outcome.kind === 'failed') store?.setRefundState(payment.txHash, undefined);
      return { ok: false as const, message: outcome.message };
    })().finally(() => refunding.delete(key));
    refunding.set(key, attempt);
    return attempt;
  };
  const payBackAll = async (payments: HeldPayment[]) => {
    for (const payment of payments) {
      const result = await payBack(payment, `refund:${payment.txHash}`);
      if (!result.ok) console.error(`refunding payment ${payment.txHash} failed: ${result.message}`);
    }
  };
  const checkPublic = (txHash: string, from: string, amount: bigint | string) =>
    rail.verify(txHash, { from, to: rail.payer, amount, purpose: `task-payment:${txHash}` });
  // With a private account, a shielded payment into it is read with its viewing key (lez/private/payment-check.ts).
  const check = receiving ? privateFirst(receiving, checkPublic) : checkPublic;
  /** References this run reserved: any other still `checking` was left by a run that died checking it. */
  const reservedHere = new Set<string>();
  /** Settles what a previous run left unsettled: a reference it was checking is owed back if it is money. */
  const settleLeftChecking = async (owner: AgentPaymentStore) => {
    for (const payment of owner.withStatus('checking')) {
      if (reservedHere.has(payment.txHash)) continue;
      const outcome = await check(payment.txHash, payment.payer, payment.amount);
      if (outcome.kind === 'verified') owner.setStatus(payment.txHash, 'owed');
      else if (outcome.kind === 'rejected') owner.release(payment.txHash);
      // Unconfirmed (the sequencer is away): asked again at the next retry.
    }
  };
  /** What is owed is paid back, and what a run that died left being checked is settled first. */
  const retryRefunds = async () => {
    if (!store) return;
    await settleLeftChecking(store);
    await payBackAll(store.withStatus('owed'));
  };
  return {
    rail: rail.rail,
    account: rail.payer,
    ...(receiving ? { privateKeys: paymentKeys(receiving.keys) } : {}),
    verify: async (txHash, expect) => {
      if (store && !store.reserve(txHash, expect.from, expect.amount.toString(), expect.taskId)) {
        const taken = store.get(txHash);
        if (taken?.taskId !== expect.taskId)
          return { ok: false, message: `transaction ${txHash} already paid for another task` };
        // The same task asked again: this agent lost it in a restart before its result reached the gateway, which
        // sends the request once more. The payment it earned (or still holds) pays for this run: one result for one
        // payment. One refunded, or owed back, pays for nothing any more.
        if (taken.status === 'earned' || taken.status === 'held') {
          store.setStatus(txHash, 'held');
          return { ok: true };
        }
        return {
          ok: false,
          message: `transaction ${txHash} paid for task ${expect.taskId}, and is refunded (or being refunded)`,
        };
      }
      reservedHere.add(txHash.toLowerCase());
      try {
        let outcome = await check(txHash, expect.from, expect.amount);
        // Not decidable yet (the sequencer is away, or restarting): asked again for a while before giving up.
        const deadline = Date.now() + VERIFY_WAIT_MS;
        for (let delayMs = 250; outcome.kind === 'unconfirmed' && Date.now() < deadline; delayMs *= 2) {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          outcome = await check(txHash, expect.from, expect.amount);
        }
        if (outcome.kind === 'verified') {
          store?.setStatus(txHash, 'held');
          return { ok: true };
        }
        // Still unconfirmed, the transfer may be money all the same: the reservation stays, and retryRefunds pays
        // it back once the chain shows it. Only a definite no gives the reference back.
        if (outcome.kind === 'rejected') store?.release(txHash);
        return { ok: false, message: outcome.message };
      } finally {
        reservedHere.delete(txHash.toLowerCase());
      }
    },
    refund: (paymentId, to, amount, paymentTxHash) => {
      const txHash = paymentTxHash ?? paymentId;
      // Owed from now on: if this attempt fails, retryRefunds (or the next start) pays it back.
      if (store?.get(txHash)?.status === 'held') store.setStatus(txHash, 'owed');
      return payBack({ txHash, payer: to, amount: amount.toString() }, paymentId);
    },
    earned: (paymentTxHash) => store?.setStatus(paymentTxHash, 'earned'),
    refundOwed: async () => {
      // Every task of the previous run is gone: what it held is owed back.
      for (const payment of store?.withStatus('held') ?? []) store!.setStatus(payment.txHash, 'owed');
      await retryRefunds();
    },
    retryRefunds,
  };
}

/**
 * The signing mode of the sequencer at `url`, probed (lez/sequencer-probe.ts) and checked against the configured
 * one. A contradiction, an API this client does not speak, or no way to tell is a ConfigError: the start stops
 * with one line, before anything opens.
 */
export async function detectSigningMode(
  url: string,
  configured: PaymentsConfig['signingMode'],
  log: (line: string) => void = console.info,
): Promise<SigningMode> {
  const choice = chooseSigningMode(await probeSequencer(new SequencerClient({ url })), configured, url);
  if (!choice.ok) throw new ConfigError(choice.message);
  log(choice.note);
  return choice.signingMode;
}

/** How long a start waits for a sequencer that does not answer before it says it cannot tell its protocol. */
export const PROFILE_PROBE_WAIT_MS = 30_000;

/**
 * The protocol profile of the sequencer at `url`, probed (lez/protocol-profile.ts) and checked against the configured
 * one. A contradiction, or no way to tell, is a ConfigError: the start stops with one line, before anything opens.
 * A sequencer that does not answer is asked again for up to `waitMs` first: one restarting as the gateway or agent
 * starts (a host rebooting, a kill -9 of both) must not stop the start.
 */
export async function detectProfile(
  url: string,
  configured: PaymentsConfig['profile'],
  log: (line: string) => void = console.info,
  waitMs = PROFILE_PROBE_WAIT_MS,
): Promise<ProtocolProfile> {
  const client = new SequencerClient({ url });
  const deadline = Date.now() + waitMs;
  let probe = await probeProfile(client);
  for (let pauseMs = 250; probe.kind === 'unknown' && !configured && Date.now() < deadline; pauseMs *= 2) {
    if (pauseMs === 250)
      log(`the sequencer at ${url} does not answer (${probe.message}); waiting up to ${waitMs / 1000} s for it`);
    await sleep(Math.min(pauseMs, 4_000, Math.max(0, deadline - Date.now())));
    probe = await probeProfile(client);
  }
  const choice = chooseProfile(probe, configured, url);
  if (!choice.ok) throw new ConfigError(choice.message);
  log(choice.note);
  return choice.profile;
}

/**
 * Everything a LEZ rail needs to know of the sequencer at `url` beyond its key: the signing mode and the protocol
 * profile, both probed and checked against `payments` (detectSigningMode, detectProfile), with the fee settings.
 */
export async function detectLezProtocol(
  url: string,
  payments: Pick<PaymentsConfig, 'signingMode' | 'profile' | 'maxFee' | 'gasLimit'>,
  log: (line: string) => void = console.info,
  waitMs = PROFILE_PROBE_WAIT_MS,
): Promise<{ signingMode: SigningMode; protocol: LezRailProtocol }> {
  const signingMode = await detectSigningMode(url, payments.signingMode, log);
  const profile = await detectProfile(url, payments.profile, log, waitMs);
  const protocol: LezRailProtocol = {
    profile,
    ...(payments.maxFee === undefined ? {} : { maxFee: payments.maxFee }),
    ...(payments.gasLimit === undefined ? {} : { gasLimit: payments.gasLimit }),
  };
  return { signingMode, protocol };
}

/** What a LEZ rail is told beyond its sequencer and key: the protocol, and on one with fees the operator's cap. */
export interface LezRailProtocol {
  profile: ProtocolProfile;
  /** lee-v0.3: a hard cap on one payment's fee, base units, decimal (default: the bound of docs/lez.md §10.5). */
  maxFee?: string;
  /** lee-v0.3: the gas limit each payment declares (default: DEFAULT_GAS_LIMIT, lez/fees.ts). */
  gasLimit?: number;
}

/** A rail paying from `key` on the sequencer at `url`; with `payerLock`, by turns with the others sharing `key`. */
export function lezRail(
  url: string,
  key: SigningKey,
  signingMode: SigningMode,
  payerLock?: PayerLock,
  protocol: LezRailProtocol = { profile: 'v0.2' },
): LezRail {
  const client = new SequencerClient({ url, layout: protocol.profile });
  const dependencies = { client, payer: key, ...(payerLock ? { payerLock } : {}) };
  // Poll for inclusion well inside a block interval: a paid task waits for its payment's block, no longer.
  return new LezRail(dependencies, {
    signingMode,
    pollIntervalMs: 200,
    profile: protocol.profile,
    ...(protocol.maxFee === undefined ? {} : { maxFee: protocol.maxFee }),
    ...(protocol.gasLimit === undefined ? {} : { gasLimit: protocol.gasLimit }),
  });
}
