/**
 * A sequencer that restarts forgets the hashes of the transactions it included before (docs/lez.md §2.3 item 6):
 * the devnet kept on disk does the same. What landed must still count as landed, for the payer resuming its
 * record and for a payee verifying a reference, and a nonce taken by another transaction is proven from the
 * blocks, not guessed from a missing hash.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS, startDevnet, type Devnet } from '../../../src/devnet/devnet.ts';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../../src/lez/keys.ts';
import { buildNativeTransfer } from '../../../src/lez/native-transfer.ts';
import { LezRail } from '../../../src/lez/rail/lez-rail.ts';
import type { RailPaymentRecord } from '../../../src/lez/rail/payment-record.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';

const PAYER = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
const AGENT = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-devnet-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function devnetOn(dir: string, port = 0): Promise<Devnet> {
  const devnet = await startDevnet({ blockIntervalMs: 0, dataDir: dir, port });
  cleanups.push(() => devnet.stop());
  return devnet;
}

function railOn(devnet: Devnet, payer = PAYER): LezRail {
  const rail = new LezRail(
    { client: new SequencerClient({ url: devnet.url }), payer },
    { signingMode: 'prehash-v0.3', network: 'devnet', pollIntervalMs: 50, inclusionTimeoutMs: 5_000 },
  );
  cleanups.push(() => rail.close());
  return rail;
}

/** Produces blocks until `done` resolves (the devnet here builds only when asked). */
async function withBlocks<T>(devnet: Devnet, done: Promise<T>): Promise<T> {
  let settled = false;
  void done.finally(() => (settled = true));
  while (!settled) {
    devnet.produceBlock();
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  return done;
}

describe('a devnet kept on disk', () => {
  it('continues its chain after a restart, and forgets the tx hashes of earlier blocks as the real one does', async () => {
    const dir = dataDir();
    const first = await devnetOn(dir);
    const rail = railOn(first);
    const records: RailPaymentRecord[] = [];
    const outcome = await withBlocks(
      first,
      rail.pay({ paymentId: 'p1', to: AGENT.account, amount: 150n, onSigned: (r) => void records.push(r) }),
    );
    expect(outcome.kind).toBe('paid');
    const txHash = records[0]!.txHash;
    const lastBlock = first.lastBlockId();
    rail.close();
    await first.stop();

    const second = await devnetOn(dir);
    const client = new SequencerClient({ url: second.url });
    expect(second.lastBlockId()).toBe(lastBlock);
    expect(second.balance(PAYER.account)).toBe(10_000n - 150n);
    expect(second.nonce(PAYER.account)).toBe(1n);
    expect(await client.getTransaction(txHash)).toEqual({ kind: 'result', value: null });
    expect((await client.getBlock(lastBlock)).kind).toBe('result');

    // The payer, resuming its record, and the payee, verifying the reference, both find it in the blocks.
    const resumed = railOn(second);
    expect(await resumed.resume(JSON.parse(JSON.stringify(records[0])))).toMatchObject({
      kind: 'paid',
      receipt: { txHash },
    });
    const payee = railOn(second, AGENT);
    expect(
      await payee.verify(txHash, { from: PAYER.account, to: AGENT.account, amount: 150n, purpose: 'task-payment:1' }),
    ).toMatchObject({ kind: 'verified', receipt: { txHash, amount: '150' } });
    // A hash that is nowhere stays unconfirmed, never rejected.
    expect(await payee.verify('ab'.repeat(32), { to: AGENT.account, amount: 150n })).toMatchObject({
      kind: 'unconfirmed',
      reason: 'not-included',
    });
  });

  it('a payment accepted into the mempool of a sequencer that then restarts is sent again as soon as it answers', async () => {
    const dir = dataDir();
    const first = await devnetOn(dir);
    const port = Number(new URL(first.url).port);
    const before = first.balance(AGENT.account);
    // Resending only after a minute: the payment lands within its 10 s only if the restart is noticed.
    const rail = new LezRail(
      { client: new SequencerClient({ url: first.url }), payer: PAYER },
      {
        signingMode: 'prehash-v0.3',
        network: 'devnet',
        pollIntervalMs: 50,
        inclusionTimeoutMs: 10_000,
        resubmitAfterMs: 60_000,
      },
    );
    cleanups.push(() => rail.close());
    let signed!: () => void;
    const submitted = new Promise<void>((resolve) => (signed = resolve));
    const outcome = rail.pay({ paymentId: 'p1', to: AGENT.account, amount: 7n, onSigned: () => signed() });
    await submitted;
    // In the mempool, not yet in a block, when the sequencer goes down; it comes back without it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await first.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await devnetOn(dir, port);
    expect(await withBlocks(second, outcome)).toMatchObject({ kind: 'paid' });
    expect(second.balance(AGENT.account)).toBe(before + 7n);
  });

  it('a record whose nonce another transaction took is settled superseded, with that transaction named', async () => {
    const dir = dataDir();
    const first = await devnetOn(dir);
    const programId = first.programIds.authenticated_transfer;
    const sign = (amount: bigint) => {
      const built = buildNativeTransfer({
        programId,
        secretKey: PAYER.secretKey,
        to: AGENT.accountId,
        amount,
        nonce: 0n,
        mode: 'prehash-v0.3',
      });
      if (!built.ok) throw new Error(built.reason);
      return built;
    };
    const ours = sign(7n);
    const theirs = sign(9n); // the same nonce, signed elsewhere with this key, lands first
    const client = new SequencerClient({ url: first.url });
    await client.sendTransaction(theirs.base64);
    first.produceBlock();
    await first.stop();

    const second = await devnetOn(dir);
    const record: RailPaymentRecord = {
      format: 'logos-a2a/rail-payment',
      version: 1,
      rail: 'lez',
      network: 'devnet',
      paymentId: 'p2',
      from: PAYER.account,
      to: AGENT.account,
      amount: '7',
      nonce: '0',
      txHash: ours.hashHex,
      tx: ours.base64,
      signedAt: new Date().toISOString(),
    };
    const outcome = await withBlocks(second, railOn(second).resume(record));
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'superseded' });
    if (outcome.kind === 'failed') expect(outcome.message).toContain(theirs.hashHex);
    expect(second.balance(AGENT.account)).toBe(20_000n + 9n);
  });

  it('refuses a directory holding another chain, and cuts a torn last block', async () => {
    const dir = dataDir();
    const first = await devnetOn(dir);
    first.produceBlock();
    await first.stop();
    await expect(startDevnet({ blockIntervalMs: 0, dataDir: dir, debugAccounts: false })).rejects.toThrow(
      /another chain/,
    );
    const { appendFileSync } = await import('node:fs');
    appendFileSync(join(dir, 'blocks'), 'AAAA'); // a block cut short by a kill -9
    const second = await devnetOn(dir);
    expect(second.lastBlockId()).toBe(2n);
    second.produceBlock();
    await second.stop();
    expect((await devnetOn(dir)).lastBlockId()).toBe(3n);
  });
});
