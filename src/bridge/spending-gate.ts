/**
 * The spending gate of the gateway's wallet: a payment within the per-transaction and per-period limits goes ahead;
 * one above them waits for an operator. Pure: the caller supplies what was spent in the period. On a chain with fees
 * (lez/fees.ts) a payment costs its price and up to `fee` more, and the limits hold for both together.
 */
export interface SpendingLimits {
  /** Largest single payment made without approval, base units. */
  perTransaction: bigint;
  /** Largest total over one period made without approval, base units. */
  perPeriod: bigint;
  periodMs: number;
}

/** What one payment may take from the wallet: the agent's price, and the most its fee may be (0 without fees). */
export interface SpendCost {
  price: bigint;
  fee: bigint;
}

export type GateDecision = { kind: 'allow' } | { kind: 'needs-approval'; reason: string };

/** "the price 25" or "the price 25 and a fee of up to 4000 (4025)". */
export function describeCost(cost: SpendCost): string {
  return cost.fee === 0n
    ? `the price ${cost.price}`
    : `the price ${cost.price} and a fee of up to ${cost.fee} (${cost.price + cost.fee})`;
}

export function checkSpend(cost: SpendCost, spentInPeriod: bigint, limits: SpendingLimits): GateDecision {
  const total = cost.price + cost.fee;
  if (total > limits.perTransaction) {
    return {
      kind: 'needs-approval',
      reason: `${describeCost(cost)} ${cost.fee === 0n ? 'is' : 'are'} above the gateway's per-transaction limit of ${limits.perTransaction}`,
    };
  }
  if (spentInPeriod + total > limits.perPeriod) {
    const hours = Math.round((limits.periodMs / 3_600_000) * 10) / 10;
    const paying = cost.fee === 0n ? `paying ${total}` : `paying ${describeCost(cost)}`;
    return {
      kind: 'needs-approval',
      reason: `${paying} would bring this period's spending to ${spentInPeriod + total}, above the limit of ${limits.perPeriod} per ${hours} h`,
    };
  }
  return { kind: 'allow' };
}
