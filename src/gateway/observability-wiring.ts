/**
 * The operator's view, from the config: the JSON logger (with every configured secret to scrub), tracing, the
 * rate limiter on the store replicas share, and the transport wrapper that counts Logos messages.
 */
import { createLogger, type Logger } from '../observability/logger.ts';
import { countLogosMessage } from '../observability/metrics.ts';
import { startTracing, type Tracing } from '../observability/tracing.ts';
import type { LogosTransport, PayloadHandler } from '../logos/transport.ts';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from '../a2a/rate-limit.ts';
import { isPostgresUrl, type Sql } from '../store/postgres/connection.ts';
import type { GatewayConfig } from './config.ts';

/** Every secret the config holds or points at, for the logger to scrub from free text. */
function secretsOf(config: GatewayConfig, env: NodeJS.ProcessEnv): string[] {
  const passwordOf = (url: string | undefined) => {
    if (!url) return undefined;
    try {
      return decodeURIComponent(new URL(url).password) || undefined;
    } catch {
      return undefined;
    }
  };
  return [
    ...config.apiKeys.map((key) => key.key),
    config.adminToken,
    env.LOGOS_A2A_WALLET_PASSPHRASE,
    passwordOf(config.redis),
    isPostgresUrl(config.database) ? passwordOf(config.database) : undefined,
  ].filter((secret): secret is string => secret !== undefined && secret.length > 0);
}

export function loggerFromConfig(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): Logger {
  return createLogger({ level: config.logLevel, secrets: secretsOf(config, env) });
}

export function tracingFromConfig(config: GatewayConfig): Promise<Tracing> {
  return startTracing(config.otlpEndpoint ? { otlpEndpoint: config.otlpEndpoint } : {});
}

/**
 * Redis when configured, else the PostgreSQL database when the gateway runs on one (`sql`, its stores' pool, migrated
 * already), else this process's memory. The
 * Redis and PostgreSQL stores are loaded only when chosen: the Redis client alone is some 650 modules, a second of a
 * cold start.
 */
export async function rateLimiterFromConfig(config: GatewayConfig, sql?: Sql): Promise<RateLimiter | undefined> {
  if (config.rateLimitPerKey === undefined && config.rateLimitPerAddress === undefined) return undefined;
  let store: RateLimitStore;
  if (config.redis) {
    const { RedisRateLimitStore } = await import('../a2a/rate-limit-redis.ts');
    store = await RedisRateLimitStore.connect(config.redis);
  } else if (sql) {
    const { PostgresRateLimitStore } = await import('../a2a/rate-limit-postgres.ts');
    store = PostgresRateLimitStore.on(sql);
  } else store = new MemoryRateLimitStore();
  return new RateLimiter(store, {
    perKey: config.rateLimitPerKey,
    perAddress: config.rateLimitPerAddress,
    windowMs: config.rateLimitWindowMs,
    trustProxy: config.trustProxy,
  });
}

/**
 * The gateway's transport, counting what it sends and publishes (out) and what reaches its handlers (in). Sends and
 * publications wait for `heldUntil` when given: a gateway answers HTTP while its in-process agents still join the
 * network, and a message published before they are in the mesh would be lost.
 */
export function countingTransport(transport: LogosTransport, heldUntil?: Promise<void>): LogosTransport {
  // Forgotten once it has come: every later send would otherwise wait a turn on a promise long settled. (Were it
  // to fail, every send would go on failing with its error, as before.)
  let held = heldUntil;
  heldUntil?.then(
    () => (held = undefined),
    () => {},
  );
  const counted =
    (handler: PayloadHandler): PayloadHandler =>
    (payload, delivery) => {
      countLogosMessage('in');
      handler(payload, delivery);
    };
  return {
    get address() {
      return transport.address;
    },
    get maxPayloadBytes() {
      return transport.maxPayloadBytes;
    },
    ...(transport.peerCount ? { peerCount: () => transport.peerCount!() } : {}),
    ...(transport.addressProof ? { addressProof: (accountId: string) => transport.addressProof!(accountId) } : {}),
    start: () => transport.start(),
    stop: () => transport.stop(),
    send: (address, payload) => whenHeld(held, () => transport.send(address, payload)),
    publish: (topic, payload, options) => whenHeld(held, () => transport.publish(topic, payload, options)),
    onDirect: (handler) => transport.onDirect(counted(handler)),
    subscribe: (topic, handler, options) => transport.subscribe(topic, counted(handler), options),
  };
}

/**
 * `step` once `held` has come (at once without it), counted out when it has gone. Chained rather than an async
 * function: every task sends, and an async frame and its awaits are promises of their own. A throw rejects, as from
 * an async function.
 */
function whenHeld(held: Promise<void> | undefined, step: () => Promise<void>): Promise<void> {
  if (held) return held.then(step).then(countOut);
  try {
    return step().then(countOut);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

function countOut(): void {
  countLogosMessage('out');
}
