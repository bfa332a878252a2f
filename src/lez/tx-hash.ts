/**
 * A transaction hash as text (docs/lez.md §3.5): 64 hex characters, the sha256 of the borsh-encoded transaction.
 * The sequencer's `hex` crate reads either case, and so do `TxHash` and `isTxHash`; what this project writes is
 * lowercase, and where a hash travels between gateway and agent only lowercase is valid (`LowercaseTxHash`,
 * docs/payments.md §2).
 */
import { z } from 'zod';

const TX_HASH_PATTERN = /^[0-9a-fA-F]{64}$/;

/** Whether `text` is a tx hash, in either case. */
export function isTxHash(text: string): boolean {
  return TX_HASH_PATTERN.test(text);
}

/** A tx hash in either case, lowercased. */
export const TxHash = z
  .string()
  .regex(TX_HASH_PATTERN, 'a tx hash is 64 hex characters')
  .transform((s) => s.toLowerCase());

/** A tx hash exactly as the binding's wire writes it: 64 lowercase hex characters. */
export const LowercaseTxHash = z.string().regex(/^[0-9a-f]{64}$/, 'a tx hash is 64 lowercase hex characters');
