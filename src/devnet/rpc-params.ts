/**
 * Method params as jsonrpsee reads them (docs/lez.md §2): a positional array, or an object keyed by the Rust
 * parameter names; absent params are an empty list. Values are checked with zod, typed as the Rust parameter
 * types deserialize (u64 ids are JSON integers, account ids base58 strings, tx hashes hex, the transaction
 * base64(borsh)); any failure is -32602 Invalid params, as a serde error is on the real server.
 */
import { base64 } from '@scure/base';
import { z } from 'zod';
import { parseAccountId } from '../lez/account-id.ts';
import { U64, type JsonValue } from '../lez/json.ts';
import { decodeNssaTransaction, type MessageLayout, type NssaTransaction } from '../lez/transaction.ts';
import { TxHash } from '../lez/tx-hash.ts';

export type ParamsOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Picks the declared params, by position or by name, then validates them together. */
export function readParams<T extends z.ZodTypeAny>(
  params: JsonValue | undefined,
  names: readonly string[],
  schema: T,
): ParamsOutcome<z.output<T>> {
  let values: (JsonValue | undefined)[];
  if (params === undefined || params === null) values = [];
  else if (Array.isArray(params)) values = params;
  else if (typeof params === 'object')
    values = names.map((name) => (Object.hasOwn(params, name) ? params[name] : undefined));
  else return { ok: false, reason: 'params must be an array or an object' };

  const named = Object.fromEntries(names.map((name, i) => [name, values[i]]));
  const parsed = schema.safeParse(named);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return { ok: false, reason: `${where}${issue?.message ?? 'invalid params'}` };
}

export interface DecodedTransactionParam {
  bytes: Uint8Array;
  transaction: NssaTransaction;
}

/** `tx`: base64(borsh(NSSATransaction)), its public messages in `layout`. */
const txParam = (layout: MessageLayout) =>
  z.string().transform((text, ctx): DecodedTransactionParam => {
    let bytes: Uint8Array;
    try {
      bytes = base64.decode(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not standard padded base64' });
      return z.NEVER;
    }
    const decoded = decodeNssaTransaction(bytes, layout);
    if (!decoded.ok) {
      ctx.addIssue({ code: 'custom', message: decoded.reason });
      return z.NEVER;
    }
    return { bytes, transaction: decoded.value };
  });

export const AccountIdParam = z.string().transform((text, ctx) => {
  const parsed = parseAccountId(text);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  }
  return parsed.id;
});

export const params = {
  sendTransaction: { names: ['tx'], schema: z.object({ tx: txParam('v0.2') }) },
  sendLeeTransaction: { names: ['tx'], schema: z.object({ tx: txParam('lee-v0.3') }) },
  getBlock: { names: ['block_id'], schema: z.object({ block_id: U64 }) },
  getBlockRange: {
    names: ['start_block_id', 'end_block_id'],
    schema: z.object({ start_block_id: U64, end_block_id: U64 }),
  },
  account: { names: ['account_id'], schema: z.object({ account_id: AccountIdParam }) },
  getAccountsNonces: { names: ['account_ids'], schema: z.object({ account_ids: z.array(AccountIdParam) }) },
  txHash: { names: ['tx_hash'], schema: z.object({ tx_hash: TxHash }) },
  /** The devnet has no private state; any commitment is accepted and none is found. */
  getProofForCommitment: {
    names: ['commitment'],
    schema: z.object({ commitment: z.unknown().refine((value) => value !== undefined, 'missing') }),
  },
  none: { names: [], schema: z.object({}) },
} as const;
