/**
 * The payer lock of replicas on one PostgreSQL database (src/lez/rail/payer-lock.ts): a session advisory lock named
 * after the payer's account, on a connection of its own (one the store's pool could hand to other work would take
 * the lock with it). A replica that dies drops that connection, and the server frees the lock with it.
 */
import { openPostgres, type Sql } from './connection.ts';

// Shaped as the rail's PayerLock, which the gateway hands it to (the store layer sits below the rail's).
export class PostgresPayerLock {
  readonly #url: string;
  readonly #name: string;
  #sql: Sql | undefined;
  #held = false;

  /** `account`: the payer's account id; replicas paying from other wallets do not wait for each other. */
  constructor(url: string, account: string) {
    this.#url = url;
    this.#name = `logos-a2a payer ${account}`;
  }

  async tryAcquire(): Promise<boolean> {
    if (this.#held) return true;
    // A lost connection took the lock with it: the pipeline finds out at its next tryAcquire.
    this.#sql ??= openPostgres(this.#url, { max: 1, session: { onClose: () => (this.#held = false) } });
    const [row] = await this.#sql<{ locked: boolean }[]>`
      SELECT pg_try_advisory_lock(hashtextextended(${this.#name}, 0)) AS locked`;
    this.#held = row?.locked === true;
    return this.#held;
  }

  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    await this.#sql!`SELECT pg_advisory_unlock(hashtextextended(${this.#name}, 0))`;
  }

  /** Ends the connection, and with it the lock if held. */
  async close(): Promise<void> {
    const sql = this.#sql;
    this.#sql = undefined;
    this.#held = false;
    await sql?.end({ timeout: 5 });
  }
}
