/**
 * Replicas paying from one wallet: each has its own rail on the same key, and they take turns under a PostgreSQL
 * advisory lock (src/store/postgres/payer-lock.ts). Without it both would read the same chain nonce and sign it for
 * different transfers, and the devnet would drop all but one of each pair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../../src/devnet/devnet.ts';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../../src/lez/keys.ts';
import { LezRail } from '../../../src/lez/rail/lez-rail.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';
import { PostgresPayerLock } from '../../../src/store/postgres/payer-lock.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../../support/postgres.ts';

const PAYER = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32)); // 10 000 at genesis
const OTHER = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32));
const PAYEES = ['01', '02', '03'].map((b) => signingKeyFromSecretKey(hexToBytes(b.repeat(32), 32)).account);

describe.skipIf(postgresAdminUrl === undefined)('replicas sharing a wallet, by turns under a payer lock', () => {
  let database: TestDatabase;
  const locks: PostgresPayerLock[] = [];
  const lock = (account: string) => {
    const created = new PostgresPayerLock(database.url, account);
    locks.push(created);
    return created;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(locks.map((l) => l.close()));
    await database?.drop();
  });

  it('one holder per wallet at a time; free again on release or when its connection ends', async () => {
    const [a, b, c] = [lock(PAYER.account), lock(PAYER.account), lock(OTHER.account)];
    expect(await a.tryAcquire()).toBe(true);
    expect(await a.tryAcquire()).toBe(true); // held already
    expect(await b.tryAcquire()).toBe(false);
    expect(await c.tryAcquire()).toBe(true); // another wallet: no turn to wait for
    await a.release();
    expect(await b.tryAcquire()).toBe(true);
    expect(await a.tryAcquire()).toBe(false);
    await b.close(); // as when a replica dies: its connection goes, and the server frees the lock
    expect(await a.tryAcquire()).toBe(true);
    await a.release();
    await a.release(); // not held: nothing to do
    expect(await b.tryAcquire()).toBe(true); // a closed lock opens a connection anew when asked again
    await b.release();
  });

  it('two rails on one key, paying at once: every payment lands, with consecutive nonces and nothing dropped', async () => {
    const devnet: Devnet = await startDevnet({
      blockIntervalMs: 200,
      genesis: PAYEES.map((account) => ({ account, balance: 0n })),
    });
    const dropped: string[] = [];
    devnet.onBlock((block) => dropped.push(...block.dropped.map((d) => d.hash)));
    const replicas = [0, 1].map(
      () =>
        new LezRail(
          {
            client: new SequencerClient({ url: devnet.url, timeoutMs: 10_000 }),
            payer: PAYER,
            payerLock: lock(PAYER.account),
          },
          { signingMode: 'prehash-v0.3', pollIntervalMs: 50, inclusionTimeoutMs: 30_000, network: 'devnet' },
        ),
    );
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          replicas[i % 2]!.pay({ paymentId: `task:${i}`, to: PAYEES[i % 3]!, amount: BigInt(i + 1) }),
        ),
      );
      const failures = outcomes.filter((o) => o.kind !== 'paid');
      expect(failures).toEqual([]);
      const nonces = outcomes.map((o) => (o.kind === 'paid' ? Number(o.receipt.nonce) : -1)).sort((x, y) => x - y);
      expect(nonces).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(dropped).toEqual([]);
      expect(devnet.nonce(PAYER.account)).toBe(30n);
      expect(devnet.balance(PAYER.account)).toBe(10_000n - 465n);
    } finally {
      for (const rail of replicas) rail.close();
      await devnet.stop();
    }
  });
});
