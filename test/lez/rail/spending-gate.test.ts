/**
 * The spending gate's default limits on either profile (issue #25): without fees, 100 a task and 1000 a period;
 * with fees, the same prices with each payment's fee cap on top, so that out of the box a task priced within the
 * default goes ahead instead of waiting for an operator. Limits an operator set count price and fee as set, and a
 * set limit no payment can fit is said at start.
 */
import { describe, expect, it } from 'vitest';
import { checkSpend, limitsBelowFeeCap, spendingLimits } from '../../../src/lez/rail/spending-gate.ts';
import { feeReserve } from '../../../src/lez/fees.ts';
import { feeTransferBytes } from '../../../src/lez/native-transfer.ts';

const DAY = 86_400_000;
/** The default fee cap on lee-v0.3: the reserve at base fees of 8 times the minimum, at the default gas limit. */
const LEE_CAP = feeReserve({ gasLimit: 200n, tip: 0n }, feeTransferBytes(), 64n, 64n);

describe('the spending limits', () => {
  it('default to 100 a task and 1000 a period without fees', () => {
    expect(spendingLimits({ periodMs: DAY })).toEqual({ perTransaction: 100n, perPeriod: 1000n, periodMs: DAY });
    expect(spendingLimits({ periodMs: DAY }, 0n)).toEqual(spendingLimits({ periodMs: DAY }));
  });

  it('default, with fees, to the same prices with each payment’s fee cap on top', () => {
    expect(LEE_CAP).toBe(32_448n);
    const limits = spendingLimits({ periodMs: DAY }, LEE_CAP);
    expect(limits).toEqual({ perTransaction: 100n + LEE_CAP, perPeriod: 1000n + 10n * LEE_CAP, periodMs: DAY });
    // A task priced 100 goes ahead with its fee; one priced 101 waits for an operator, as without fees.
    expect(checkSpend({ price: 100n, fee: LEE_CAP }, 0n, limits)).toEqual({ kind: 'allow' });
    expect(checkSpend({ price: 101n, fee: LEE_CAP }, 0n, limits).kind).toBe('needs-approval');
    // Ten such tasks fit a period, an eleventh does not.
    expect(checkSpend({ price: 100n, fee: LEE_CAP }, 9n * (100n + LEE_CAP), limits)).toEqual({ kind: 'allow' });
    expect(checkSpend({ price: 1n, fee: LEE_CAP }, 10n * (100n + LEE_CAP), limits).kind).toBe('needs-approval');
  });

  it('takes the limits an operator set as set: price and fee together', () => {
    const limits = spendingLimits({ perTransaction: 50_000n, perPeriod: 60_000n, periodMs: DAY }, LEE_CAP);
    expect(limits).toEqual({ perTransaction: 50_000n, perPeriod: 60_000n, periodMs: DAY });
    expect(checkSpend({ price: 17_553n, fee: LEE_CAP }, 0n, limits).kind).toBe('needs-approval');
    // One set, the other left to its default.
    expect(spendingLimits({ perPeriod: 5n, periodMs: DAY }, LEE_CAP).perTransaction).toBe(100n + LEE_CAP);
  });

  it('says at start when a set limit leaves no room beside the fee cap, and only then', () => {
    expect(limitsBelowFeeCap({ periodMs: DAY }, LEE_CAP)).toBeUndefined();
    expect(limitsBelowFeeCap({ perTransaction: 100n, perPeriod: 1000n, periodMs: DAY })).toBeUndefined();
    expect(limitsBelowFeeCap({ perTransaction: 100n, perPeriod: 10n ** 9n, periodMs: DAY }, LEE_CAP)).toMatch(
      /^payments\.perTransactionLimit \(100\) is not above the fee cap of 32448 .* every paid task will wait for an operator's approval/,
    );
    expect(limitsBelowFeeCap({ perTransaction: 100n, perPeriod: 1000n, periodMs: DAY }, LEE_CAP)).toMatch(
      /^payments\.perTransactionLimit \(100\) and payments\.perPeriodLimit \(1000\) are not above/,
    );
  });
});
