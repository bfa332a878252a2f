/**
 * The sequencer's JSON-RPC methods (docs/lez.md §2.2), over a DevnetChain, with results encoded as the real
 * server's serde_json writes them: hashes as lowercase hex, blocks and transactions as base64(borsh), u64/u128
 * as bare JSON numbers (bigints here; rpc.ts writes them losslessly), an account as
 * `{program_owner, balance, data, nonce}`, program ids as `[u32 × 8]` keyed by name in sorted order.
 *
 * `getTransactionReceipt` is no method of the real sequencer. With the `receipts` option the devnet serves it
 * (`{tx_hash, status: "Pending" | {"Included":{block_id}} | {"Rejected":{reason}} | "Unknown", timestamp_ms}`),
 * the only way over HTTP to learn why a transaction was dropped; without it, it is -32601 as on the real one.
 */
import { base64 } from '@scure/base';
import type { z } from 'zod';
import { admissionError } from '../lez/fees.ts';
import type { JsonValue } from '../lez/json.ts';
import type { LezAccount } from '../lez/sequencer-client.ts';
import type { DevnetChain, SubmitOutcome, TransactionReceipt } from './chain.ts';
import { GENESIS_BLOCK_ID } from './chain.ts';
import { PROGRAM_NAMES } from './programs.ts';
import { invalidParams, methodNotFound, RPC_CODES, type RpcError } from './rpc-errors.ts';
import { params, readParams } from './rpc-params.ts';

export type MethodOutcome = { ok: true; result: unknown } | { ok: false; error: RpcError };

type Method = (chain: DevnetChain, raw: JsonValue | undefined) => MethodOutcome;

/** Reads the params with `spec`, then runs `body` on them; bad params are -32602. */
function method<S extends z.ZodTypeAny>(
  spec: { names: readonly string[]; schema: S },
  body: (chain: DevnetChain, p: z.output<S>) => MethodOutcome,
): Method {
  return (chain, raw) => {
    const read = readParams(raw, spec.names, spec.schema);
    if (!read.ok) return { ok: false, error: invalidParams(read.reason) };
    return body(chain, read.value);
  };
}

const ok = (result: unknown): MethodOutcome => ({ ok: true, result });
const err = (code: number, message: string, data?: JsonValue): MethodOutcome => ({
  ok: false,
  error: data === undefined ? { code, message } : { code, message, data },
});

function accountJson(account: LezAccount): unknown {
  return {
    program_owner: [...account.programOwner],
    balance: account.balance,
    data: [...account.data],
    nonce: account.nonce,
  };
}

function submitted(outcome: SubmitOutcome): MethodOutcome {
  if (outcome.ok) return ok(outcome.hash);
  switch (outcome.reason) {
    case 'invalid-signature':
      return err(RPC_CODES.invalidParams, 'Invalid signature(-s)');
    case 'fee-rejected': {
      const { code, message, data } = admissionError(outcome.rejection);
      return err(code, message, data);
    }
    case 'too-large':
      return err(
        RPC_CODES.invalidParams,
        `Transaction size ${outcome.size} exceeds maximum allowed size of ${outcome.max} bytes`,
      );
    case 'malformed':
      return { ok: false, error: invalidParams(outcome.message) };
    case 'unsupported-kind':
      return err(
        RPC_CODES.unsupported,
        outcome.kind === 'privacy-preserving'
          ? 'devnet: privacy-preserving transactions are supported with --profile v0.2 and prehash-v0.3 signing only'
          : `devnet: ${outcome.kind} transactions are not supported`,
      );
    case 'mempool-full':
      return err(RPC_CODES.mempoolFull, `devnet: mempool is full (${outcome.maxSize} transactions)`);
    case 'already-known':
      return err(RPC_CODES.alreadyKnown, `Transaction already known: ${outcome.hash}`, { tx_hash: outcome.hash });
    case 'rejected':
      return err(RPC_CODES.rejected, outcome.failure.message, {
        tx_hash: outcome.hash,
        reason: outcome.failure.reason,
      });
  }
}

function receiptJson(hash: string, receipt: TransactionReceipt): unknown {
  switch (receipt.status) {
    case 'unknown':
      return { tx_hash: hash, status: 'Unknown', timestamp_ms: null };
    case 'pending':
      return { tx_hash: hash, status: 'Pending', timestamp_ms: null };
    case 'included':
      return { tx_hash: hash, status: { Included: { block_id: receipt.blockId } }, timestamp_ms: receipt.timestampMs };
    case 'dropped':
      return {
        tx_hash: hash,
        status: { Rejected: { reason: receipt.failure.message } },
        timestamp_ms: receipt.timestampMs,
      };
  }
}

const sendV02 = method(params.sendTransaction, (chain, p) => submitted(chain.submit(p.tx.transaction, p.tx.bytes)));
const sendLee = method(params.sendLeeTransaction, (chain, p) => submitted(chain.submit(p.tx.transaction, p.tx.bytes)));

const METHODS: Record<string, Method> = {
  sendTransaction: (chain, raw) => (chain.config.profile === 'lee-v0.3' ? sendLee : sendV02)(chain, raw),
  // Only a sequencer with fees knows it (callMethod); elsewhere it is -32601, which is how clients tell them apart.
  getFeeState: method(params.none, (chain) => ok(chain.feeQuote() ?? null)),
  checkHealth: method(params.none, () => ok(null)),
  getLastBlockId: method(params.none, (chain) => ok(chain.lastBlockId)),
  getBlock: method(params.getBlock, (chain, p) => {
    const bytes = chain.blockBytes(p.block_id);
    return ok(bytes ? base64.encode(bytes) : null);
  }),
  getBlockRange: method(params.getBlockRange, (chain, p) => {
    const { start_block_id: start, end_block_id: end } = p;
    if (start > end) return ok([]);
    // The real server walks start..=end and fails at the first missing id; find that id without the walk.
    const missing =
      start < GENESIS_BLOCK_ID
        ? start
        : end > chain.lastBlockId
          ? start > chain.lastBlockId
            ? start
            : chain.lastBlockId + 1n
          : undefined;
    if (missing !== undefined) return err(RPC_CODES.notFound, `Block with id ${missing} not found`);
    const blocks: string[] = [];
    for (let id = start; id <= end; id++) blocks.push(base64.encode(chain.blockBytes(id)!));
    return ok(blocks);
  }),
  getAccountBalance: method(params.account, (chain, p) => ok(chain.account(p.account_id).balance)),
  getAccountsNonces: method(params.getAccountsNonces, (chain, p) =>
    ok(p.account_ids.map((id) => chain.account(id).nonce)),
  ),
  getAccount: method(params.account, (chain, p) => ok(accountJson(chain.account(p.account_id)))),
  getTransaction: method(params.txHash, (chain, p) => {
    const bytes = chain.transactionBytes(p.tx_hash);
    return ok(bytes ? base64.encode(bytes) : null);
  }),
  getTransactionReceipt: method(params.txHash, (chain, p) => ok(receiptJson(p.tx_hash, chain.receipt(p.tx_hash)))),
  getProofForCommitment: method(params.getProofForCommitment, () => ok(null)),
  getProgramIds: method(params.none, (chain) =>
    ok(Object.fromEntries(PROGRAM_NAMES.map((name) => [name, [...chain.config.programIds[name]]]))),
  ),
};

export function callMethod(chain: DevnetChain, name: string, raw: JsonValue | undefined): MethodOutcome {
  const found = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
  if (
    !found ||
    (name === 'getTransactionReceipt' && !chain.config.serveReceipts) ||
    (name === 'getFeeState' && chain.config.profile !== 'lee-v0.3')
  )
    return { ok: false, error: methodNotFound() };
  return found(chain, raw);
}
