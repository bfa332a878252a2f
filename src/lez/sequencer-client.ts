/**
 * A JSON-RPC 2.0 client for the LEZ sequencer (docs/lez.md §2: jsonrpsee over HTTP POST, camelCase methods, as on
 * `main` and `v0.2.0-rc3`; default port 3040). Params go positionally, which jsonrpsee accepts as readily as
 * objects keyed by the Rust names.
 *
 * Every call resolves, never rejects, to one of (an `RpcOutcome`, discriminated by `kind`):
 * - `{kind:'result', value}`: the JSON-RPC result, checked.
 * - `{kind:'unreachable', message, timedOut}`: no answer (refused, DNS, reset, timed out, or a proxy's
 *   502/503/504). `timedOut` says whether we gave up waiting; after a timed-out `sendTransaction` the transaction
 *   may still have reached the mempool, so a payer must look before it re-signs (docs/lez.md §7.2).
 * - `{kind:'rpc-error', code, message}`: the sequencer answered with a JSON-RPC error
 *   (e.g. -32602 InvalidSignature from `sendTransaction`).
 * - `{kind:'bad-response', message}`: an answer that is not the JSON-RPC result we expect.
 *
 * Answers are parsed with json.ts, so u64/u128 numbers above 2^53 stay exact; results are checked with zod.
 * Not covered: the `v0.1` snake_case API (`send_tx`, …), and `getProofForCommitment` (private transfers only).
 */
import { base64 } from '@scure/base';
import { z } from 'zod';
import { formatAccountId, parseAccountId } from './account-id.ts';
import { parseJson, stringifyJson, U128, U64, type JsonValue } from './json.ts';
import { FeeStateQuote } from './fees.ts';
import {
  decodeNssaTransaction,
  MESSAGE_LAYOUTS,
  nssaTransactionToBase64,
  type MessageLayout,
  type NssaTransaction,
  type ProgramId,
} from './transaction.ts';
import { isTxHash, TxHash } from './tx-hash.ts';

export type RpcOutcome<T> =
  | { kind: 'result'; value: T }
  | { kind: 'unreachable'; message: string; timedOut: boolean }
  | { kind: 'rpc-error'; code: number; message: string; data?: JsonValue }
  | { kind: 'bad-response'; message: string };

export type RpcFailure = Exclude<RpcOutcome<never>, { kind: 'result' }>;

export const SequencerClientOptions = z.object({
  /** e.g. http://127.0.0.1:3040 */
  url: z.url({ protocol: /^https?$/ }),
  /** Per call, covering connect, headers and body. */
  timeoutMs: z.number().int().positive().default(10_000),
  /** HTTP Basic credentials, for sequencers run with `--auth user[:password]`. */
  basicAuth: z.object({ user: z.string().min(1), password: z.string().optional() }).optional(),
  /** Larger answers are refused as bad responses (a block range can be big; garbage should not be unbounded). */
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /** How its public transactions are laid out: `lee-v0.3` on a sequencer with fees (protocol-profile.ts). */
  layout: z.enum(MESSAGE_LAYOUTS).default('v0.2'),
});
export type SequencerClientOptions = z.input<typeof SequencerClientOptions>;

export interface LezAccount {
  programOwner: ProgramId;
  balance: bigint;
  data: Uint8Array;
  nonce: bigint;
}

export interface FetchedTransaction {
  /** borsh(NSSATransaction), as stored by the sequencer. */
  bytes: Uint8Array;
  transaction: NssaTransaction;
}

/** getProgramIds: program name → image id; `authenticated_transfer` is the native token program. */
export type ProgramIds = { authenticated_transfer: ProgramId } & Record<string, ProgramId>;

// ---- result schemas -------------------------------------------------------------------------------------------

const U32 = z.number().int().min(0).max(0xffff_ffff);
const ProgramIdSchema = z.array(U32).length(8);
const Base64Schema = z.string().transform((text, ctx) => {
  try {
    return base64.decode(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not standard padded base64' });
    return z.NEVER;
  }
});
const AccountSchema = z
  .object({
    program_owner: ProgramIdSchema,
    balance: U128,
    data: z.array(z.number().int().min(0).max(255)),
    nonce: U128,
  })
  .transform((a): LezAccount => ({
    programOwner: a.program_owner,
    balance: a.balance,
    data: Uint8Array.from(a.data),
    nonce: a.nonce,
  }));
const ProgramIdsSchema = z
  .record(z.string(), ProgramIdSchema)
  .refine((ids) => Object.hasOwn(ids, 'authenticated_transfer'), 'authenticated_transfer is missing')
  .transform((ids) => ids as unknown as ProgramIds);

const ErrorObject = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

// ---- the client -----------------------------------------------------------------------------------------------

export class SequencerClient {
  readonly url: string;
  readonly layout: MessageLayout;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly authorization: string | undefined;
  private nextId = 1;

  /** Bad options are a configuration error and throw. */
  constructor(options: SequencerClientOptions) {
    const parsed = SequencerClientOptions.parse(options);
    this.url = parsed.url;
    this.layout = parsed.layout;
    this.timeoutMs = parsed.timeoutMs;
    this.maxResponseBytes = parsed.maxResponseBytes;
    this.authorization = parsed.basicAuth
      ? `Basic ${Buffer.from(`${parsed.basicAuth.user}:${parsed.basicAuth.password ?? ''}`).toString('base64')}`
      : undefined;
  }

  /** Submits a transaction (stateless checks only) and returns its hash as lowercase hex. */
  sendTransaction(tx: NssaTransaction | string): Promise<RpcOutcome<string>> {
    const encoded = typeof tx === 'string' ? tx : nssaTransactionToBase64(tx);
    return this.call('sendTransaction', [encoded], TxHash);
  }

  /** `null` result means healthy. */
  checkHealth(): Promise<RpcOutcome<null>> {
    return this.call('checkHealth', [], z.null());
  }

  getLastBlockId(): Promise<RpcOutcome<bigint>> {
    return this.call('getLastBlockId', [], U64);
  }

  /** borsh(Block) bytes, or null when there is no such block. Decoding blocks is left to their user. */
  getBlock(blockId: bigint): Promise<RpcOutcome<Uint8Array | null>> {
    return this.call('getBlock', [checkU64(blockId)], Base64Schema.nullable());
  }

  /** Blocks `start..=end`; the sequencer answers -31999 when one is missing. */
  getBlockRange(start: bigint, end: bigint): Promise<RpcOutcome<Uint8Array[]>> {
    return this.call('getBlockRange', [checkU64(start), checkU64(end)], z.array(Base64Schema));
  }

  getAccountBalance(account: string | Uint8Array): Promise<RpcOutcome<bigint>> {
    return this.call('getAccountBalance', [accountText(account)], U128);
  }

  /** The current nonce of each account, in order; an unknown account has nonce 0. */
  getAccountsNonces(accounts: readonly (string | Uint8Array)[]): Promise<RpcOutcome<bigint[]>> {
    return this.call('getAccountsNonces', [accounts.map(accountText)], z.array(U128).length(accounts.length));
  }

  /** An unknown account comes back as the default one: owner all zero, balance 0, nonce 0. */
  getAccount(account: string | Uint8Array): Promise<RpcOutcome<LezAccount>> {
    return this.call('getAccount', [accountText(account)], AccountSchema);
  }

  /**
   * The transaction with this hash, or null. Non-null means included and successfully executed: the sequencer
   * drops failing transactions at block time instead of recording them (docs/lez.md §2).
   */
  getTransaction(hashHex: string): Promise<RpcOutcome<FetchedTransaction | null>> {
    // Checked before anything async, so a bad hash throws here like every other bad argument.
    if (!isTxHash(hashHex)) throw new RangeError('a tx hash is 64 hex characters');
    return this.fetchTransaction(hashHex.toLowerCase());
  }

  private async fetchTransaction(hashHex: string): Promise<RpcOutcome<FetchedTransaction | null>> {
    const outcome = await this.call('getTransaction', [hashHex], Base64Schema.nullable());
    if (outcome.kind !== 'result' || outcome.value === null) return outcome as RpcOutcome<null>;
    const decoded = decodeNssaTransaction(outcome.value, this.layout);
    if (!decoded.ok) return badResponse(`getTransaction: ${decoded.reason}`);
    return { kind: 'result', value: { bytes: outcome.value, transaction: decoded.value } };
  }

  getProgramIds(): Promise<RpcOutcome<ProgramIds>> {
    return this.call('getProgramIds', [], ProgramIdsSchema);
  }

  /** The fee market's quote (fees.ts); a sequencer without fees answers -32601. */
  getFeeState(): Promise<RpcOutcome<FeeStateQuote>> {
    return this.call('getFeeState', [], FeeStateQuote);
  }

  // ---- transport ----------------------------------------------------------------------------------------------

  private async call<T>(method: string, params: unknown[], schema: z.ZodType<T, unknown>): Promise<RpcOutcome<T>> {
    const id = this.nextId++;
    const body = stringifyJson({ jsonrpc: '2.0', id, method, params }, { bigints: 'number' });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;

    let status: number;
    let text: string;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      const read = await readBody(response, this.maxResponseBytes);
      if (read.kind === 'refused') return badResponse(`${method}: ${read.reason}`);
      text = read.text;
    } catch (error) {
      return unreachable(method, error, this.timeoutMs);
    }

    const parsed = parseJson(text);
    const envelope = parsed.ok ? readEnvelope(parsed.value, id) : undefined;

    if (status < 200 || status > 299) {
      // A JSON-RPC error body wins over the status; otherwise a gateway's "upstream is down" means unreachable.
      if (envelope?.kind === 'error') return rpcError(envelope.error);
      if (status === 502 || status === 503 || status === 504) {
        const message = `${method}: HTTP ${status} from ${this.url}`;
        return { kind: 'unreachable', message, timedOut: status === 504 };
      }
      const hint = status === 401 || status === 403 ? ' (the sequencer wants credentials: set basicAuth)' : '';
      return badResponse(`${method}: HTTP ${status}${hint}: ${snippet(text)}`);
    }
    if (!parsed.ok) return badResponse(`${method}: answer is not JSON (${parsed.reason}): ${snippet(text)}`);
    if (!envelope) return badResponse(`${method}: not a JSON-RPC 2.0 response: ${snippet(text)}`);
    if (envelope.kind === 'wrong-id') return badResponse(`${method}: response id does not match request id ${id}`);
    if (envelope.kind === 'error') return rpcError(envelope.error);

    const result = schema.safeParse(envelope.result);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      return badResponse(`${method}: unexpected result${where}: ${issue?.message ?? 'invalid'}`);
    }
    return { kind: 'result', value: result.data };
  }
}

type Envelope =
  { kind: 'result'; result: JsonValue } | { kind: 'error'; error: z.infer<typeof ErrorObject> } | { kind: 'wrong-id' };

function readEnvelope(value: JsonValue, id: number): Envelope | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (value.jsonrpc !== '2.0') return undefined;
  const hasResult = Object.hasOwn(value, 'result');
  const hasError = Object.hasOwn(value, 'error');
  if (hasResult === hasError) return undefined;
  if (hasError) {
    const error = ErrorObject.safeParse(value.error);
    // An error about the request itself (parse error, invalid request) may carry id null.
    if (!error.success) return undefined;
    if (value.id !== id && value.id !== null) return { kind: 'wrong-id' };
    return { kind: 'error', error: error.data };
  }
  if (value.id !== id) return { kind: 'wrong-id' };
  return { kind: 'result', result: value.result as JsonValue };
}

function badResponse(message: string): RpcOutcome<never> {
  return { kind: 'bad-response', message };
}

function rpcError(error: z.infer<typeof ErrorObject>): RpcOutcome<never> {
  const outcome: RpcOutcome<never> = { kind: 'rpc-error', code: error.code, message: error.message };
  if (error.data !== undefined) outcome.data = error.data as JsonValue;
  return outcome;
}

function unreachable(method: string, error: unknown, timeoutMs: number): RpcOutcome<never> {
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { kind: 'unreachable', message: `${method}: no answer within ${timeoutMs} ms`, timedOut: true };
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'unreachable', message: `${method}: ${message}${cause}`, timedOut: false };
}

/** Reads the body as UTF-8 up to a size cap, so a runaway or hostile answer cannot exhaust memory. */
async function readBody(
  response: Response,
  maxBytes: number,
): Promise<{ kind: 'read'; text: string } | { kind: 'refused'; reason: string }> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    return { kind: 'refused', reason: `answer of ${declared} bytes exceeds the ${maxBytes}-byte limit` };
  }
  if (!response.body) return { kind: 'read', text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return { kind: 'refused', reason: `answer exceeds the ${maxBytes}-byte limit` };
    }
    chunks.push(value);
  }
  try {
    return { kind: 'read', text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    return { kind: 'refused', reason: 'answer is not UTF-8' };
  }
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty body)';
}

function checkU64(n: bigint): bigint {
  if (n < 0n || n >= 1n << 64n) throw new RangeError(`not a u64: ${n}`);
  return n;
}

function accountText(account: string | Uint8Array): string {
  if (typeof account !== 'string') return formatAccountId(account);
  const parsed = parseAccountId(account);
  if (!parsed.ok) throw new RangeError(`bad account id "${account}": ${parsed.reason}`);
  return parsed.text;
}

/** Failures narrowed for callers that only report them. */
export function describeRpcFailure(failure: RpcFailure): string {
  switch (failure.kind) {
    case 'unreachable':
      return `sequencer unreachable: ${failure.message}`;
    case 'rpc-error':
      return `sequencer error ${failure.code}: ${failure.message}`;
    case 'bad-response':
      return `bad sequencer response: ${failure.message}`;
  }
}
