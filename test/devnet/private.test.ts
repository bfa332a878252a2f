/**
 * The devnet takes privacy-preserving transactions as a RISC0_DEV_MODE=1 sequencer does (docs/lez.md §8.5): signatures,
 * nonces, commitments and nullifiers checked, the proof not; the public part applied, and the transaction given back
 * byte for byte by getTransaction and getBlock, so a receiver reads its note.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64 } from '@scure/base';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS, startDevnet, type Devnet, type DevnetOptions } from '../../src/devnet/devnet.ts';
import { decodeBlock } from '../../src/lez/block.ts';
import { hexToBytes, toHex } from '../../src/lez/bytes.ts';
import { derivePrivateKeys } from '../../src/lez/private-keys.ts';
import { notesFor, receiveKeys } from '../../src/lez/private/receive.ts';
import { decodePrivacyPreservingTransaction } from '../../src/lez/private/transaction.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { DEV_MODE_PROOF, shieldedTransfer } from '../support/shielded-transfer.ts';

const PAYER_KEY = hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32);
const PAYER = DEVNET_GENESIS[0].account;
const RECEIVER = derivePrivateKeys(new Uint8Array(64).fill(7), [0]);
const KEYS = receiveKeys(RECEIVER.nullifierSecretKey, RECEIVER.viewingSecretKey);

const running: Devnet[] = [];
const dirs: string[] = [];

async function devnet(options: DevnetOptions = {}): Promise<{ devnet: Devnet; client: SequencerClient }> {
  const started = await startDevnet({ blockIntervalMs: 0, receipts: true, ...options });
  running.push(started);
  return { devnet: started, client: new SequencerClient({ url: started.url, timeoutMs: 5_000 }) };
}

afterEach(async () => {
  for (const started of running.splice(0)) {
    expect(started.totalSupply()).toBe(started.genesis.reduce((sum, entry) => sum + entry.balance, 0n));
    await started.stop();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pay(d: Devnet, amount: bigint, identifier?: bigint) {
  return shieldedTransfer({
    senderKey: PAYER_KEY,
    sender: d.account(PAYER),
    npk: KEYS.nullifierPublicKey,
    vpk: KEYS.viewingPublicKey,
    amount,
    transferProgram: d.programIds.authenticated_transfer,
    ...(identifier === undefined ? {} : { identifier }),
  });
}

describe('privacy-preserving transactions on the devnet', () => {
  it('takes a shielded transfer, applies its public part and returns it whole by hash and in its block', async () => {
    const { devnet: d, client } = await devnet();
    const before = d.balance(PAYER);
    const shielded = pay(d, 30n);
    expect(await client.sendTransaction(base64.encode(shielded.bytes))).toEqual({
      kind: 'result',
      value: shielded.hash,
    });
    const block = d.produceBlock();
    expect(block.transactions).toEqual([shielded.hash]);
    expect(d.balance(PAYER)).toBe(before - 30n);
    expect(d.nonce(PAYER)).toBe(1n);

    const fetched = await client.getTransaction(shielded.hash);
    if (fetched.kind !== 'result' || !fetched.value) throw new Error(`not found: ${JSON.stringify(fetched)}`);
    expect(toHex(fetched.value.bytes)).toBe(toHex(shielded.bytes));
    if (fetched.value.transaction.kind !== 'privacy-preserving') throw new Error('not privacy-preserving');
    const decoded = decodePrivacyPreservingTransaction(fetched.value.transaction.body);
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(notesFor(decoded.value, KEYS)).toMatchObject([
      { index: 0, identifier: shielded.identifier, fresh: true, account: { balance: 30n } },
    ]);

    const bytes = await client.getBlock(block.blockId);
    if (bytes.kind !== 'result' || !bytes.value) throw new Error('no block');
    const read = decodeBlock(bytes.value);
    expect(read).toMatchObject({ ok: true, value: { unreadTransactions: 0 } });
    if (read.ok)
      expect(read.value.privacyPreservingTransactions.map((tx) => [tx.index, tx.hash])).toEqual([[0, shielded.hash]]);
  });

  it('drops a second payment into the same private account: its initialisation nullifier is spent', async () => {
    const { devnet: d, client } = await devnet();
    const first = pay(d, 5n, 42n);
    await client.sendTransaction(base64.encode(first.bytes));
    d.produceBlock();
    const again = pay(d, 6n, 42n);
    await client.sendTransaction(base64.encode(again.bytes));
    d.produceBlock();
    expect(d.receipt(again.hash)).toMatchObject({ status: 'dropped', failure: { reason: 'nullifier-seen' } });
    expect(d.balance(PAYER)).toBe(DEVNET_GENESIS[0].balance - 5n);
  });

  it('refuses a bad signature, a body that does not decode, and privacy-preserving transactions on lee-v0.3', async () => {
    const { devnet: d, client } = await devnet();
    const shielded = pay(d, 5n);
    const forged = shielded.bytes.slice();
    // The last bytes are the signature (64), its key (32) and the proof (u32 length and bytes).
    forged[forged.length - DEV_MODE_PROOF.byteLength - 4 - 32 - 10]! ^= 1;
    expect(await client.sendTransaction(base64.encode(forged))).toMatchObject({ kind: 'rpc-error', code: -32602 });
    expect(await client.sendTransaction(base64.encode(shielded.bytes.subarray(0, 50)))).toMatchObject({
      kind: 'rpc-error',
      code: -32602,
    });
    const { client: feeClient } = await devnet({ profile: 'lee-v0.3' });
    expect(await feeClient.sendTransaction(base64.encode(shielded.bytes))).toMatchObject({
      kind: 'rpc-error',
      code: -32003,
    });
  });

  it('refuses at once, with strict admission, what would fail: more out of private accounts than went in', async () => {
    const { devnet: d, client } = await devnet({ admission: 'strict' });
    const shielded = pay(d, 5n);
    // A "deshielding" that pays the payer 100 out of private accounts holding nothing.
    const minted = shieldedTransfer({
      senderKey: PAYER_KEY,
      sender: { ...d.account(PAYER), balance: d.balance(PAYER) + 200n },
      npk: KEYS.nullifierPublicKey,
      vpk: KEYS.viewingPublicKey,
      amount: 100n,
      transferProgram: d.programIds.authenticated_transfer,
    });
    expect(await client.sendTransaction(base64.encode(minted.bytes))).toMatchObject({
      kind: 'rpc-error',
      code: -32002,
    });
    expect(await client.sendTransaction(base64.encode(shielded.bytes))).toEqual({
      kind: 'result',
      value: shielded.hash,
    });
  });

  it('replays privacy-preserving transactions from a chain kept on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-private-'));
    dirs.push(dir);
    const { devnet: first, client } = await devnet({ dataDir: dir });
    const shielded = pay(first, 12n);
    await client.sendTransaction(base64.encode(shielded.bytes));
    first.produceBlock();
    await first.stop();
    running.splice(running.indexOf(first), 1);
    const { devnet: again } = await devnet({ dataDir: dir });
    expect(again.balance(PAYER)).toBe(DEVNET_GENESIS[0].balance - 12n);
    expect(again.nonce(PAYER)).toBe(1n);
    expect(again.chain.block(again.lastBlockId())).toBeDefined();
  });
});
