/**
 * JSON-RPC 2.0 envelopes, as jsonrpsee handles them: one request or a batch; a request without `id` is a
 * notification and gets no answer; errors about the envelope itself carry `id: null`. Requests are parsed with
 * json.ts so u64/u128 params above 2^53 stay exact, and answers are written with bigints as bare numbers, as
 * serde_json writes u64/u128.
 *
 * Never throws: a failure inside a method is logged and answered with -32603.
 */
import { parseJson, stringifyJson, U64_MAX, type JsonValue } from '../lez/json.ts';
import type { DevnetChain } from './chain.ts';
import { callMethod, type MethodOutcome } from './rpc-methods.ts';
import { internalError, invalidRequest, parseError, type RpcError } from './rpc-errors.ts';

/** A batch longer than this is refused: each entry may cost a signature check, and one request should not stall the devnet. */
export const MAX_BATCH = 1000;

type Id = string | number | bigint | null;

function errorResponse(id: Id, error: RpcError): JsonValue {
  return { jsonrpc: '2.0', id, error: error as unknown as JsonValue };
}

/** jsonrpsee's `Id`: null, an unsigned integer, or a string. */
function readId(value: JsonValue | undefined): { ok: true; id: Id } | { ok: false } {
  if (value === null || typeof value === 'string') return { ok: true, id: value };
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return { ok: true, id: value };
  if (typeof value === 'bigint' && value >= 0n && value <= U64_MAX) return { ok: true, id: value };
  return { ok: false };
}

function handleOne(chain: DevnetChain, request: JsonValue, log: (line: string) => void): JsonValue | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    return errorResponse(null, invalidRequest('a request is a JSON object'));
  const hasId = Object.hasOwn(request, 'id');
  const id = hasId ? readId(request.id) : { ok: true as const, id: null };
  if (!id.ok) return errorResponse(null, invalidRequest('id must be a string, an unsigned integer or null'));
  if (request.jsonrpc !== '2.0') return errorResponse(id.id, invalidRequest('jsonrpc must be "2.0"'));
  if (typeof request.method !== 'string') return errorResponse(id.id, invalidRequest('method must be a string'));

  let outcome: MethodOutcome;
  try {
    outcome = callMethod(chain, request.method, request.params);
  } catch (error) {
    log(`devnet: ${request.method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    outcome = { ok: false, error: internalError() };
  }
  if (!hasId) return undefined;
  return outcome.ok
    ? { jsonrpc: '2.0', id: id.id, result: outcome.result as JsonValue }
    : errorResponse(id.id, outcome.error);
}

/** The body of the HTTP answer, or undefined when there is nothing to answer (notifications only). */
export function handleRpcText(chain: DevnetChain, text: string, log: (line: string) => void): string | undefined {
  const parsed = parseJson(text);
  if (!parsed.ok) return write(errorResponse(null, parseError()));
  const body = parsed.value;
  if (!Array.isArray(body)) {
    const answer = handleOne(chain, body, log);
    return answer === undefined ? undefined : write(answer);
  }
  if (body.length === 0) return write(errorResponse(null, invalidRequest('empty batch')));
  if (body.length > MAX_BATCH)
    return write(errorResponse(null, invalidRequest(`a batch holds at most ${MAX_BATCH} requests`)));
  const answers = body.map((request) => handleOne(chain, request, log)).filter((answer) => answer !== undefined);
  return answers.length === 0 ? undefined : write(answers);
}

function write(value: JsonValue): string {
  return stringifyJson(value, { bigints: 'number' });
}
