/**
 * The gateway wallet on Workers, in one Durable Object: the only place its key signs. A wallet's payments take
 * consecutive nonces from one queue (the rail's nonce pipeline); two objects signing with the same key would take
 * the same nonce, and one of the two payments could never land. TaskObjects reach it through wallet-client.ts.
 *
 * It pays through the same LEZ rail as the Node gateway, over fetch, and writes each signed transfer into the
 * task's payment row in D1 before submitting it (what TaskPayments' `record` does on Node), so a task object
 * evicted mid-payment resumes that very transfer and never signs a second one.
 */
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { z } from 'zod';
import type { Payer } from '../bridge/task-payments.ts';
import { detectLezProtocol, gatewayPayer, lezRail } from '../gateway/payment-wiring.ts';
import { parseRailPaymentRecord } from '../lez/rail/payment-record.ts';
import { D1PaymentStore } from '../store/d1/payment-store.ts';
import { workerSettings, type WorkerEnv } from './worker-env.ts';

const Amount = z.string().regex(/^\d{1,39}$/, 'a decimal amount');
const Account = z.string().min(1).max(128);

/** What a TaskObject asks of the wallet: the `Payer` methods, with amounts as decimal strings. */
export const WalletCall = z.discriminatedUnion('op', [
  z.object({ op: z.literal('pay'), taskId: z.string().min(1), paymentId: z.string(), to: Account, amount: Amount }),
  z.object({ op: z.literal('resume'), state: z.unknown() }),
  z.object({ op: z.literal('verify'), txHash: z.string(), from: Account, to: Account, amount: Amount }),
  z.object({ op: z.literal('findTransfers'), from: Account, to: Account, amount: Amount, notBeforeMs: z.number() }),
  z.object({ op: z.literal('terms') }),
]);
export type WalletCall = z.infer<typeof WalletCall>;

/**
 * What a payment costs beyond its price on the wallet's sequencer: the fee cap when the probed profile charges fees
 * (decimal base units), none without. A TaskObject's spending gate counts it, as the Node gateway's does.
 */
export type WalletTerms = { kind: 'known'; feeCap?: string } | { kind: 'unknown'; message: string };

export class WalletObject {
  private readonly env: WorkerEnv;
  private payer: Promise<Payer> | undefined;

  constructor(_state: DurableObjectState, env: WorkerEnv) {
    this.env = env;
  }

  async fetch(request: Request): Promise<Response> {
    const parsed = WalletCall.safeParse(await request.json().catch(() => undefined));
    if (!parsed.success) return Response.json({ error: parsed.error.message }, { status: 400 });
    const call = parsed.data;
    let payer: Payer;
    try {
      payer = await this.open();
    } catch (error) {
      console.error(error);
      return Response.json(unreachable(call, `the wallet cannot reach its sequencer: ${(error as Error).message}`));
    }
    switch (call.op) {
      case 'terms':
        return Response.json({
          kind: 'known',
          ...(payer.feeCap === undefined ? {} : { feeCap: payer.feeCap.toString() }),
        } satisfies WalletTerms);
      case 'pay': {
        const store = new D1PaymentStore(this.env.DB);
        const record = (state: unknown) => store.update(call.taskId, { railState: state });
        return Response.json(await payer.pay(call.paymentId, call.to, BigInt(call.amount), record));
      }
      case 'resume':
        return Response.json(await payer.resume(call.state));
      case 'verify':
        return Response.json(await payer.verify(call.txHash, { ...call, amount: BigInt(call.amount) }));
      case 'findTransfers':
        return Response.json(await payer.findTransfers({ ...call, amount: BigInt(call.amount) }));
    }
  }

  /** The rail, once the sequencer has said how it signs; tried again at the next call when it could not. */
  private open(): Promise<Payer> {
    this.payer ??= (async () => {
      const settings = workerSettings(this.env);
      if (!settings.payments) throw new Error('payments are off (LOGOS_A2A_PAYMENTS_RAIL)');
      const { sequencerUrl, wallet } = settings.payments;
      // No waiting here: a call answers at once, and the next call asks again (below).
      const { signingMode, protocol } = await detectLezProtocol(
        sequencerUrl,
        settings.config.payments,
        () => undefined,
        0,
      );
      return gatewayPayer(lezRail(sequencerUrl, wallet, signingMode, undefined, protocol));
    })().catch((error: unknown) => {
      this.payer = undefined;
      throw error;
    });
    return this.payer;
  }
}

/**
 * The answer to a call the wallet could not make: nothing was signed for a new payment (failed, safe to retry),
 * a recorded one may have landed (in doubt), a check is undecided.
 */
function unreachable(call: WalletCall, message: string): unknown {
  const reason = 'sequencer-unavailable';
  switch (call.op) {
    case 'terms':
      return { kind: 'unknown', message } satisfies WalletTerms;
    case 'pay':
      return { kind: 'failed', paymentId: call.paymentId, reason, message };
    case 'resume': {
      const parsed = parseRailPaymentRecord(call.state);
      if (!parsed.ok) return { kind: 'failed', paymentId: '', reason: 'invalid-request', message: parsed.message };
      const { network, txHash, from, to, amount, nonce, paymentId } = parsed.record;
      const receipt = { rail: 'lez', network, txHash, from, to, amount, nonce, status: 'submitted' };
      return { kind: 'in-doubt', paymentId, reason, message, receipt };
    }
    case 'verify':
    case 'findTransfers':
      return { kind: 'unconfirmed', reason, message };
  }
}
