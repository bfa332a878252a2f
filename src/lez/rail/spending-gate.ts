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

/** The limits as configured (payments.perTransactionLimit, perPeriodLimit): one left out takes its default. */
export type SpendingLimitSettings = Partial<Pick<SpendingLimits, 'perTransaction' | 'perPeriod'>> &
  Pick<SpendingLimits, 'periodMs'>;

/** The default limits' prices: a task priced up to 100, and 1000 over a period, go ahead without an operator. */
export const DEFAULT_PRICE_LIMITS = { perTransaction: 100n, perPeriod: 1000n } as const;

/**
 * The limits of a wallet whose payments each declare a fee of up to `feeCap` (0 without fees; docs/payments.md §6).
 * A limit the operator set is taken as set: it counts price and fee together, the wallet's real exposure. A default
 * one is for prices, with the fees of what it admits on top: 100 and the fee cap a task, 1000 and ten fee caps a
 * period (the ten payments at the default's largest price). Counted from prices alone, the default fee cap (32,448
 * on lee-v0.3) would be above the default limits, and out of the box every payment would wait for an operator.
 */
export function spendingLimits(settings: SpendingLimitSettings, feeCap = 0n): SpendingLimits {
  const paymentsPerPeriod = DEFAULT_PRICE_LIMITS.perPeriod / DEFAULT_PRICE_LIMITS.perTransaction;
  return {
    perTransaction: settings.perTransaction ?? DEFAULT_PRICE_LIMITS.perTransaction + feeCap,
    perPeriod: settings.perPeriod ?? DEFAULT_PRICE_LIMITS.perPeriod + paymentsPerPeriod * feeCap,
    periodMs: settings.periodMs,
  };
}

/**
 * A configured limit that no payment on this chain fits (it is at most the fee cap each payment counts): every paid
 * task would wait for an operator. Said at start, once; undefined when the limits leave room for a price.
 */
export function limitsBelowFeeCap(settings: SpendingLimitSettings, feeCap = 0n): string | undefined {
  if (feeCap === 0n) return undefined;
  const low = (['perTransaction', 'perPeriod'] as const).filter((name) => (settings[name] ?? feeCap + 1n) <= feeCap);
  if (low.length === 0) return undefined;
  const names = low.map((name) => `payments.${name}Limit (${settings[name]})`).join(' and ');
  return `${names} ${low.length === 1 ? 'is' : 'are'} not above the fee cap of ${feeCap} that each payment counts beside its price: every paid task will wait for an operator's approval (leave the limits out for their defaults, 100 and 1000 for prices plus the fees, or raise them)`;
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
      reason: `${describeCost(cost)} ${cost.fee === 0n ? 'is' : 'are'} above the per-transaction limit of ${limits.perTransaction}`,
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
