/**
 * Rate limits per API key and per client address: 429 with Retry-After (JSON-RPC: error -32000 in a JSON-RPC body),
 * counted in memory, in Redis and in PostgreSQL alike, the shared backends shared between two limiters as between
 * two replicas.
 */
import { randomUUID } from 'node:crypto';
import { migrate, openPostgres, type Sql } from '../../src/store/postgres/connection.ts';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, RATE_LIMITED_CODE, RateLimiter, type RateLimitStore } from '../../src/a2a/rate-limit.ts';
import { RedisRateLimitStore } from '../../src/a2a/rate-limit-redis.ts';
import { PostgresRateLimitStore } from '../../src/a2a/rate-limit-postgres.ts';
import { startTestBed, type TestBed } from '../support/gateway.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const settings = { perKey: 3, perAddress: 5, windowMs: 60_000, trustProxy: false };

describe('rate limits over HTTP (memory)', () => {
  let bed: TestBed;
  const key = 'rate-limit-test-key-0123456789';
  const sendBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'GetTask',
    params: { id: 'no-such-task' },
  });

  beforeAll(async () => {
    bed = await startTestBed({
      config: {
        apiKeys: [{ name: 'alice', key }],
        rateLimitPerKey: 2,
        rateLimitPerAddress: 4,
        rateLimitWindowMs: 60_000,
      },
    });
  });
  afterAll(() => bed.close());

  const jsonRpc = (headers: Record<string, string>) =>
    fetch(`${bed.gateway.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
      body: sendBody,
    });

  it('refuses the key over its limit with 429, Retry-After and the JSON-RPC error, then the address over its own', async () => {
    const auth = { Authorization: `Bearer ${key}` };
    expect((await jsonRpc(auth)).status).toBe(200);
    expect((await jsonRpc(auth)).status).toBe(200);
    const limited = await jsonRpc(auth);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: RATE_LIMITED_CODE,
        message: expect.stringMatching(/API key; retry in \d+ s/),
        data: { retryAfterSeconds: retryAfter },
      },
    });
    // The address has seen three calls; one more without a key is its fourth (allowed), the fifth is not.
    expect((await fetch(`${bed.gateway.url}/agents`)).status).toBe(200);
    const rest = await fetch(`${bed.gateway.url}/tasks/no-such-task`);
    expect(rest.status).toBe(429);
    expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await rest.json()).toEqual({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/client address/), details: [] },
    });
    // Probes and metrics are never limited: a load balancer must keep seeing them.
    expect((await fetch(`${bed.gateway.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${bed.gateway.url}/livez`)).status).toBe(200);
  });
});

/** Two limiters on one store stand for two replicas; each backend must count their hits together. */
function sharedStoreContract(name: string, open: () => Promise<RateLimitStore>) {
  describe(`the ${name} store`, () => {
    let stores: RateLimitStore[];
    beforeAll(async () => {
      stores = [await open(), await open()];
    });
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()));
    });

    it('counts hits across replicas, per subject and per window', async () => {
      const [a, b] = stores.map((store) => new RateLimiter(store, settings));
      const key = `k-${randomUUID()}`;
      const now = 1_700_000_000_000;
      const subject = { keyName: key, address: `addr-${randomUUID()}` };
      expect(await a!.check(subject, now)).toEqual({ kind: 'allowed' });
      expect(await b!.check(subject, now + 1)).toEqual({ kind: 'allowed' });
      expect(await a!.check(subject, now + 2)).toEqual({ kind: 'allowed' });
      expect(await b!.check(subject, now + 3)).toEqual({
        kind: 'limited',
        limit: 'key',
        retryAfterMs: settings.windowMs - ((now + 3) % settings.windowMs),
      });
      // Another key from another address is counted apart.
      expect(await b!.check({ keyName: `${key}-2`, address: `addr-${randomUUID()}` }, now + 4)).toEqual({
        kind: 'allowed',
      });
      // The next window starts afresh.
      const next = now - (now % settings.windowMs) + settings.windowMs;
      expect(await a!.check(subject, next)).toEqual({ kind: 'allowed' });
    });

    it('limits an address without a key', async () => {
      const limiter = new RateLimiter(stores[0]!, settings);
      const subject = { keyName: undefined, address: `addr-${randomUUID()}` };
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push((await limiter.check(subject, 1_700_000_000_000)).kind);
      expect(decisions).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'limited']);
    });
  });
}

// One process's memory, shared by the two limiters as the one store they both count in.
const memory = new MemoryRateLimitStore();
sharedStoreContract('memory', async () => ({
  hit: (key, windowStart) => memory.hit(key, windowStart),
  close: async () => {},
}));

const redisPrefix = `logos-a2a-test:${randomUUID()}:`;
sharedStoreContract('Redis', () => RedisRateLimitStore.connect(REDIS_URL, redisPrefix));
afterAll(async () => {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  const keys = await client.keys(`${redisPrefix}*`);
  if (keys.length > 0) await client.del(keys);
  client.destroy();
});

const schema = `rate_limit_test_${randomUUID().replaceAll('-', '')}`;
const admin = openPostgres(POSTGRES_URL, { max: 1 });
beforeAll(async () => {
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
});
afterAll(async () => {
  await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
});
sharedStoreContract('PostgreSQL', () => PostgresRateLimitStore.connect(POSTGRES_URL, { schema }));
// As a gateway on PostgreSQL makes it: on its stores' pool, migrated by them; closing the store leaves the pool open.
const pools: Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});
sharedStoreContract('PostgreSQL, on the stores’ pool', async () => {
  const sql = openPostgres(POSTGRES_URL, { max: 2, schema });
  pools.push(sql);
  await migrate(sql);
  return PostgresRateLimitStore.on(sql);
});
