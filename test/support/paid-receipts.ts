/**
 * What the crash suites check of paid tasks once the crashes are over: every task ends and no receipt is left in
 * doubt, and the chain itself (read block by block, not from the gateway's records) agrees with every receipt: each
 * task is one payment at most, its refund is on chain exactly when the receipt says so, nothing was paid twice or
 * lost, and the balances moved by exactly that (and, on a chain with fees, by each landed transfer's fee).
 */
import { expect } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { transfersBetween } from './chain-transfers.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const ENDED = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

export const hasEnded = (task: Task) => ENDED.includes(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

interface Receipt {
  status: string;
  amount: string;
  txHash?: string;
  refundTxHash?: string;
  /** On a chain with fees: the most the payment's fee could take (its declared max_fee). */
  maxFee?: string;
}

const receiptOf = (task: Task) => (task.metadata as { lez?: Receipt } | undefined)?.lez;

/** Ended, with a receipt that is neither pending nor missing its refund. */
function isSettled(task: Task): boolean {
  const receipt = receiptOf(task);
  return hasEnded(task) && receipt !== undefined && !['pending', 'refund-missing'].includes(receipt.status);
}

/**
 * Reads the tasks every half second until all are settled; `eachRound` sees them each time (to cancel again, say).
 * Fails after `timeoutMs` with every task's state and receipt, naming the seed.
 */
export async function untilSettled(
  read: () => Promise<Task[]>,
  seed: number,
  eachRound: (tasks: Task[], round: number) => void = () => {},
  timeoutMs = 60_000,
): Promise<Task[]> {
  let tasks: Task[] = [];
  for (let round = 0, deadline = Date.now() + timeoutMs; tasks.length === 0 || !tasks.every(isSettled); round++) {
    if (Date.now() > deadline) {
      const states = tasks.map((task) => [
        task.id,
        TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED],
        receiptOf(task),
        task.status?.message?.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''),
      ]);
      throw new Error(`not settled (seed ${seed}): ${JSON.stringify(states)}`);
    }
    await sleep(500);
    tasks = await read();
    eachRound(tasks, round);
  }
  return tasks;
}

export interface ChainCheck {
  sequencer: SequencerClient;
  price: bigint;
  /** The gateway's wallet and the agent's account. */
  payer: string;
  payee: string;
  /** Their balances before the first task, and how to read one now. */
  before: { payer: bigint; payee: bigint };
  balance: (account: string) => Promise<bigint>;
  seed: number;
  /**
   * On a chain with fees (lee-v0.3): what each transfer that lands costs its sender in fees, at base fees that stay
   * put (the devnet's, while its blocks are less than half full). Every payment's receipt must have declared at
   * least this, and each side's balance moves by its transfers' fees too.
   */
  feePerTransfer?: bigint;
}

/**
 * Checks every settled task's receipt against the transfers between payer and payee on chain, and that no transfer
 * is left that no receipt names. Returns what moved.
 */
export async function expectChainAgrees(
  tasks: Task[],
  check: ChainCheck,
): Promise<{ transactions: number; paidOut: bigint; paidBack: bigint }> {
  const { price, payer, payee, seed } = check;
  const transfers = await transfersBetween(check.sequencer, payer, payee);
  const payments = new Map(transfers.filter((t) => t.from === payer).map((t) => [t.hash, t]));
  const refunds = new Map(transfers.filter((t) => t.from === payee).map((t) => [t.hash, t]));
  const claimed = new Set<string>();
  let paidOut = 0n;
  let paidBack = 0n;
  for (const task of tasks) {
    const receipt = receiptOf(task)!;
    const state = TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];
    const where = `task ${task.id} (${state}, seed ${seed}): ${JSON.stringify(receipt)}`;
    expect(receipt.amount, where).toBe(price.toString());
    if (receipt.status === 'failed') {
      // Nothing was charged: no transaction of it is claimed, and the task did not complete.
      expect(receipt.txHash, where).toBeUndefined();
      expect(state, where).not.toContain('COMPLETED');
      continue;
    }
    // paid or refunded: the payment is on chain, of the price, to the agent, and counted for this task only.
    expect(['paid', 'refunded'], where).toContain(receipt.status);
    const payment = payments.get(receipt.txHash!);
    expect(payment, where).toMatchObject({ to: payee, amount: price });
    expect(claimed.has(receipt.txHash!), where).toBe(false);
    if (check.feePerTransfer !== undefined) {
      expect(receipt, where).toHaveProperty('maxFee');
      expect(BigInt(receipt.maxFee!), where).toBeGreaterThanOrEqual(check.feePerTransfer);
    }
    claimed.add(receipt.txHash!);
    paidOut += price;
    if (state.includes('COMPLETED')) {
      expect(receipt.status, where).toBe('paid');
      continue;
    }
    // Paid and not completed: the agent paid it back, on chain, once.
    expect(receipt.status, where).toBe('refunded');
    expect(refunds.get(receipt.refundTxHash!), where).toMatchObject({ to: payer, amount: price });
    expect(claimed.has(receipt.refundTxHash!), where).toBe(false);
    claimed.add(receipt.refundTxHash!);
    paidBack += price;
  }
  // Nothing moved that no receipt accounts for: no double payment, no refund of nothing, and the balances agree.
  expect(
    [...payments.keys()].filter((hash) => !claimed.has(hash)),
    `payments no receipt names (seed ${seed})`,
  ).toEqual([]);
  expect(
    [...refunds.keys()].filter((hash) => !claimed.has(hash)),
    `refunds no receipt names (seed ${seed})`,
  ).toEqual([]);
  // With fees, each landed transfer also cost its sender its fee: the payments the wallet's, the refunds the agent's.
  const fee = check.feePerTransfer ?? 0n;
  expect(await check.balance(payer)).toBe(check.before.payer - paidOut + paidBack - BigInt(payments.size) * fee);
  expect(await check.balance(payee)).toBe(check.before.payee + paidOut - paidBack - BigInt(refunds.size) * fee);
  return { transactions: claimed.size, paidOut, paidBack };
}
