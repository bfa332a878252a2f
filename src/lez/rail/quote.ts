/**
 * Pricing a task on a rail. LEZ has no fees on `main` (docs/lez.md §3), so the total is the price; the fee field is
 * there so callers already budget for the total if a fee appears (some forks have `getFeeState`).
 */
import { formatU128Decimal } from '../json.ts';
import type { QuoteOutcome } from './payment-rail.ts';
import { parseAmount, type RailKind } from './receipt.ts';

export function quotePrice(rail: RailKind, network: string, price: bigint | string): QuoteOutcome {
  const parsed = parseAmount(price);
  if (!parsed.ok) {
    return {
      kind: 'invalid',
      reason: 'invalid-price',
      message: `price ${String(price)}: ${parsed.reason} (LEZ prices are whole base units)`,
    };
  }
  const amount = formatU128Decimal(parsed.value);
  return { kind: 'quoted', rail, network, amount, fee: '0', total: amount };
}
