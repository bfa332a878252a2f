/**
 * The gateway wallet as a TaskObject pays with it: a `Payer` whose calls go to the one WalletObject
 * (wallet-object.ts), which signs. Outcomes come back as the rail gave them.
 */
import type { Payer } from '../bridge/task-payments.ts';
import type { FindTransferOutcome, PayOutcome, VerifyOutcome } from '../lez/rail/payment-rail.ts';
import type { WalletCall, WalletTerms } from './wallet-object.ts';
import type { WorkerEnv, WorkerPayments } from './worker-env.ts';

const WALLET_OBJECT_NAME = 'wallet';

async function callWallet<Outcome>(env: WorkerEnv, body: WalletCall): Promise<Outcome> {
  const stub = env.WALLET.get(env.WALLET.idFromName(WALLET_OBJECT_NAME));
  const response = (await stub.fetch('https://wallet.internal/', {
    method: 'POST',
    body: JSON.stringify(body),
  })) as unknown as Response;
  // Only a call this Worker got wrong is refused: a bug, not an outcome.
  if (!response.ok) throw new Error(`the wallet object refused ${body.op}: ${await response.text()}`);
  return (await response.json()) as Outcome;
}

/**
 * The most one payment's fee may be on the wallet's sequencer (none on a profile without fees), as the wallet probed
 * it. When the wallet cannot tell (its sequencer is away), the configured cap counts: a gate that counts too much
 * holds a payment for approval, one that counts too little lets it pass a limit (and the payment fails anyway then).
 */
export async function walletFeeCap(env: WorkerEnv, configured: string | undefined): Promise<bigint | undefined> {
  const terms = await callWallet<WalletTerms>(env, { op: 'terms' });
  const cap = terms.kind === 'known' ? terms.feeCap : configured;
  return cap === undefined ? undefined : BigInt(cap);
}

/**
 * The payer of `taskId`'s object: the wallet records the signed transfer in that task's payment row itself. The
 * front Worker (no task) reads payments and approvals but never pays: each task's object does.
 */
export function walletPayer(
  env: WorkerEnv,
  payments: WorkerPayments,
  taskId: string | undefined,
  feeCap?: bigint,
): Payer {
  const call = <Outcome>(body: WalletCall) => callWallet<Outcome>(env, body);
  return {
    rail: 'lez',
    account: payments.wallet.account,
    // Counted by the spending gate beside the price (walletFeeCap).
    ...(feeCap === undefined ? {} : { feeCap }),
    // `record` is what the wallet object does before it submits, where the signature is made (wallet-object.ts).
    pay: (paymentId, to, amount) => {
      if (taskId === undefined) throw new Error(`the front Worker cannot pay (${paymentId}): a task's object pays`);
      return call<PayOutcome>({ op: 'pay', taskId, paymentId, to, amount: amount.toString() });
    },
    resume: (state) => call<PayOutcome>({ op: 'resume', state }),
    verify: (txHash, expect) =>
      call<VerifyOutcome>({ op: 'verify', txHash, ...expect, amount: expect.amount.toString() }),
    findTransfers: (query) =>
      call<FindTransferOutcome>({ op: 'findTransfers', ...query, amount: query.amount.toString() }),
  };
}
