/** Rate-limit counts in Redis (`LOGOS_A2A_REDIS`), shared by every replica: one key per subject and window. */
import { createClient } from 'redis';

type Client = ReturnType<typeof createClient>;
import type { RateLimitStore } from './rate-limit.ts';

export class RedisRateLimitStore implements RateLimitStore {
  readonly #client: Client;
  readonly #prefix: string;

  private constructor(client: Client, prefix: string) {
    this.#client = client;
    this.#prefix = prefix;
  }

  /** Connects first, so that a wrong URL fails the start rather than every request. */
  static async connect(url: string, prefix = 'logos-a2a:rate:'): Promise<RedisRateLimitStore> {
    const client: Client = createClient({
      url,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(retries * 100, 2_000) },
    });
    // Errors after connecting surface through the commands (and are logged there); the event must have a listener.
    client.on('error', () => {});
    await client.connect();
    return new RedisRateLimitStore(client, prefix);
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const name = `${this.#prefix}${key}:${windowStart}`;
    // The key outlives its window a little, so a clock a bit behind among replicas still finds it.
    const [count] = await this.#client
      .multi()
      .incr(name)
      .pExpire(name, windowMs * 2)
      .exec();
    return Number(count);
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
