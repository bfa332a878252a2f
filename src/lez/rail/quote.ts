/**
 * Pricing a task on a rail. LEZ v0.2 (the testnet today) has no fees, so the total is the price; on lee-v0.3 the fee
 * is the most one payment's fee may take (the operator's cap, payments.maxFee), and the total what the wallet may
 * spend for the task.
 */
import { formatU128Decimal } from '../json.ts';
import type { QuoteOutcome } from './payment-rail.ts';
import { parseAmount, type RailKind } from './receipt.ts';

export function quotePrice(rail: RailKind, network: string, price: bigint | string, fee = 0n): QuoteOutcome {
  const parsed = parseAmount(price);
  if (!parsed.ok) {
    return {
      kind: 'invalid',
      reason: 'invalid-price',
      message: `price ${String(price)}: ${parsed.reason} (LEZ prices are whole base units)`,
    };
  }
  const amount = formatU128Decimal(parsed.value);
  return {
    kind: 'quoted',
    rail,
    network,
    amount,
    fee: formatU128Decimal(fee),
    total: formatU128Decimal(parsed.value + fee),
  };
}
