/**
 * The spending gate of the gateway's wallet: a payment within the per-transaction and per-period limits goes ahead;
 * one above them waits for an operator. Pure: the caller supplies what was spent in the period.
 */
export interface SpendingLimits {
  /** Largest single payment made without approval, base units. */
  perTransaction: bigint;
  /** Largest total over one period made without approval, base units. */
  perPeriod: bigint;
  periodMs: number;
}

export type GateDecision = { kind: 'allow' } | { kind: 'needs-approval'; reason: string };

export function checkSpend(amount: bigint, spentInPeriod: bigint, limits: SpendingLimits): GateDecision {
  if (amount > limits.perTransaction) {
    return {
      kind: 'needs-approval',
      reason: `the price ${amount} is above the gateway's per-transaction limit of ${limits.perTransaction}`,
    };
  }
  if (spentInPeriod + amount > limits.perPeriod) {
    const hours = Math.round((limits.periodMs / 3_600_000) * 10) / 10;
    return {
      kind: 'needs-approval',
      reason: `paying ${amount} would bring this period's spending to ${spentInPeriod + amount}, above the limit of ${limits.perPeriod} per ${hours} h`,
    };
  }
  return { kind: 'allow' };
}
