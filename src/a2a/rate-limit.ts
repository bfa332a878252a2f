/**
 * Rate limits per API key and per client address: a fixed window of `windowMs`, counted in a store that replicas
 * share (Redis, PostgreSQL) or in memory for one process. A request over either limit is answered 429 with
 * `Retry-After` (JSON-RPC: the error -32000 below, in a JSON-RPC body, still with 429). If the shared store fails,
 * the request goes through and the failure is logged: limits protect the gateway, they must not take it down.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { metrics } from '../observability/metrics.ts';
import type { ApiKeys } from './api-keys.ts';
import type { ErrorLog } from './errors.ts';
import { jsonResponse } from './responses.ts';

/**
 * The JSON-RPC code of a refusal for too many requests. A2A defines none, and every A2A error means "this call can
 * never succeed as sent"; this one means "retry later", so it takes the first code of JSON-RPC's
 * implementation-defined server-error range, outside the ones A2A assigns.
 */
export const RATE_LIMITED_CODE = -32000;

/** A window's count after one more hit, and when the window ends. */
export interface WindowCount {
  count: number;
  resetAt: number;
}

/** Where hits are counted: shared across replicas, or not. */
export interface RateLimitStore {
  /** Counts one hit of `key` in the window that holds `now`, answering the count so far. */
  hit(key: string, windowStart: number, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

export interface RateLimitSettings {
  /** Requests per window for each API key; no limit when absent. */
  perKey?: number | undefined;
  /** Requests per window for each client address; no limit when absent. */
  perAddress?: number | undefined;
  windowMs: number;
  /** Take the client address from the first `X-Forwarded-For` entry (behind a load balancer that sets it). */
  trustProxy: boolean;
}

export type RateLimitDecision =
  { kind: 'allowed' } | { kind: 'limited'; limit: 'key' | 'address'; retryAfterMs: number };

/** Counts the hit against each limit that applies and says whether the request may go on. */
export class RateLimiter {
  readonly #store: RateLimitStore;
  readonly #settings: RateLimitSettings;

  constructor(store: RateLimitStore, settings: RateLimitSettings) {
    this.#store = store;
    this.#settings = settings;
  }

  async check(subject: { keyName: string | undefined; address: string }, now = Date.now()): Promise<RateLimitDecision> {
    const { windowMs, perKey, perAddress } = this.#settings;
    const windowStart = now - (now % windowMs);
    const retryAfterMs = windowStart + windowMs - now;
    const checks: { limit: 'key' | 'address'; key: string; max: number }[] = [];
    if (perKey !== undefined && subject.keyName !== undefined)
      checks.push({ limit: 'key', key: `key:${subject.keyName}`, max: perKey });
    if (perAddress !== undefined) checks.push({ limit: 'address', key: `addr:${subject.address}`, max: perAddress });
    const counts = await Promise.all(checks.map(({ key }) => this.#store.hit(key, windowStart, windowMs)));
    const over = checks.find((check, index) => counts[index]! > check.max);
    return over ? { kind: 'limited', limit: over.limit, retryAfterMs } : { kind: 'allowed' };
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

/** One process's counts; windows that ended are swept as new ones start. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counts = new Map<string, { windowStart: number; count: number }>();
  #sweptAt = 0;

  hit(key: string, windowStart: number): Promise<number> {
    if (windowStart !== this.#sweptAt) {
      for (const [name, entry] of this.#counts) if (entry.windowStart < windowStart) this.#counts.delete(name);
      this.#sweptAt = windowStart;
    }
    const entry = this.#counts.get(key);
    const count = entry && entry.windowStart === windowStart ? entry.count + 1 : 1;
    this.#counts.set(key, { windowStart, count });
    return Promise.resolve(count);
  }

  async close(): Promise<void> {
    this.#counts.clear();
  }
}

/** The client's address: the socket's peer, or with `trustProxy` the first X-Forwarded-For entry. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? 'unknown';
}

/** What a refused request is told, counted in the metric as it is: the seconds to wait, and the words. */
export function refusal(decision: Extract<RateLimitDecision, { kind: 'limited' }>): {
  retryAfter: number;
  message: string;
} {
  metrics.rateLimited.inc({ limit: decision.limit });
  const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const message = `Too many requests for this ${decision.limit === 'key' ? 'API key' : 'client address'}; retry in ${retryAfter} s.`;
  return { retryAfter, message };
}

/** A JSON-RPC call: a POST to an agent's base URL (the root, or /agents/{id}). */
const isJsonRpcCall = (c: Context) => c.req.method === 'POST' && /^\/(agents\/[^/]+\/?)?$/.test(c.req.path);

export function rateLimit(
  limiter: RateLimiter,
  options: { apiKeys: ApiKeys; trustProxy: boolean; log: ErrorLog },
): MiddlewareHandler {
  return async (c, next) => {
    const authentication = options.apiKeys.authenticate(c);
    const keyName = authentication.ok ? authentication.user?.userName : undefined;
    let decision: RateLimitDecision;
    try {
      decision = await limiter.check({ keyName, address: clientAddress(c, options.trustProxy) });
    } catch (error) {
      options.log('rate limits could not be checked; letting the request through', error);
      return next();
    }
    if (decision.kind === 'allowed') return next();
    const { retryAfter, message } = refusal(decision);
    const headers = { 'Retry-After': String(retryAfter) };
    if (isJsonRpcCall(c)) {
      return jsonResponse(
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: RATE_LIMITED_CODE, message, data: { retryAfterSeconds: retryAfter } },
        },
        429,
        headers,
      );
    }
    return jsonResponse({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message, details: [] } }, 429, headers);
  };
}
