/**
 * The devnet's sequencer core without HTTP: block building order, nonce gaps, block limits, and the execution
 * rules of docs/lez.md §3 one by one.
 */
import { blockHashFormulaOf, decodeBlock } from '../../src/lez/block.ts';
import { describe, expect, it } from 'vitest';
import { formatAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { buildNativeTransfer } from '../../src/lez/native-transfer.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { signPublicMessage } from '../../src/lez/signing.ts';
import {
  encodeNssaTransaction,
  nativeTransferInstruction,
  type NssaTransaction,
  type PublicMessage,
  type PublicTransaction,
} from '../../src/lez/transaction.ts';
import { DevnetChain, type ChainConfig } from '../../src/devnet/chain.ts';
import { DEVNET_GENESIS, resolveGenesis } from '../../src/devnet/genesis.ts';
import { DEVNET_PROGRAM_IDS, resolveProgramIds } from '../../src/devnet/programs.ts';

const KEY_1 = hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32);
const KEY_2 = hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32);
const accountOf = (secretKey: Uint8Array) => publicAccountId(xOnlyPublicKey(secretKey));
const ACCOUNT_1 = accountOf(KEY_1);
const ACCOUNT_2 = accountOf(KEY_2);
const AUTH = DEVNET_PROGRAM_IDS.authenticated_transfer;

function chain(overrides: Partial<ChainConfig> = {}, limits: Partial<ChainConfig['limits']> = {}): DevnetChain {
  return new DevnetChain({
    profile: 'v0.2',
    transferGas: 0n,
    signingMode: 'prehash-v0.3',
    finalityDepth: 2,
    serveReceipts: true,
    admission: 'sequencer',
    mempoolMaxSize: 10_000,
    programIds: DEVNET_PROGRAM_IDS,
    genesis: resolveGenesis([], true),
    log: () => undefined,
    now: () => 1_000,
    ...overrides,
    limits: { maxTransactions: 10_000, maxBlockBytes: 1 << 20, holdFutureNonces: false, nonceGapBlocks: 0, ...limits },
  });
}

function submitTransfer(c: DevnetChain, nonce: bigint, amount = 1n, to = ACCOUNT_2, key = KEY_1): string {
  const built = buildNativeTransfer({ programId: AUTH, secretKey: key, to, amount, nonce, mode: 'prehash-v0.3' });
  if (!built.ok) throw new Error(built.reason);
  const outcome = submitPublic(c, built.transaction);
  if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
  return outcome.hash;
}

function submitPublic(c: DevnetChain, transaction: PublicTransaction) {
  const tx: NssaTransaction = { kind: 'public', transaction };
  return c.submit(tx, encodeNssaTransaction(tx));
}

function signed(message: PublicMessage, ...keys: Uint8Array[]): PublicTransaction {
  return { message, witnesses: keys.map((key) => signPublicMessage(message, key, 'prehash-v0.3')) };
}

describe('genesis', () => {
  it('the debug keys control the debug accounts', () => {
    for (const entry of DEVNET_GENESIS)
      expect(formatAccountId(accountOf(hexToBytes(entry.secretKeyHex, 32)))).toBe(entry.account);
  });

  it('genesis accounts are initialised, funded, at nonce 0; block 1 is the empty genesis block', () => {
    const c = chain();
    expect(c.account(ACCOUNT_1)).toEqual({ programOwner: AUTH, balance: 10_000n, data: new Uint8Array(0), nonce: 0n });
    expect(c.lastBlockId).toBe(1n);
    expect(c.block(1n)).toMatchObject({ blockId: 1n, transactions: [], timestampMs: 0n });
    expect(c.genesisSupply).toBe(30_000n);
  });

  it('refuses an account listed twice and balances past u128', () => {
    expect(() =>
      resolveGenesis(
        [{ account: { id: ACCOUNT_1, text: DEVNET_GENESIS[0].account, ok: true }, balance: 1n, initialised: true }],
        true,
      ),
    ).toThrow(/twice/);
    const other = {
      id: new Uint8Array(32).fill(1),
      text: formatAccountId(new Uint8Array(32).fill(1)),
      ok: true as const,
    };
    expect(() => resolveGenesis([{ account: other, balance: (1n << 128n) - 1n, initialised: true }], true)).toThrow(
      /u128/,
    );
  });

  it('program ids are stable stand-ins that can be pinned, never two alike', () => {
    expect(resolveProgramIds()).toEqual(DEVNET_PROGRAM_IDS);
    expect(resolveProgramIds({ token: [1, 2, 3, 4, 5, 6, 7, 8] }).token).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(() => resolveProgramIds({ token: [...AUTH] })).toThrow(/same/);
    expect(() => resolveProgramIds({ token: [1, 2, 3] })).toThrow();
  });
});

describe('block building', () => {
  it('a nonce ahead of its signer’s fails as on the real sequencer, even when the gap is filled later', () => {
    const c = chain();
    const hashes = [4n, 2n, 0n, 3n, 1n].map((nonce) => submitTransfer(c, nonce));
    const block = c.produceBlock();
    expect(block.transactions).toEqual([hashes[2], hashes[4]]);
    expect(block.dropped.map((d) => [d.hash, d.failure.reason])).toEqual([
      [hashes[0], 'nonce-mismatch'],
      [hashes[1], 'nonce-mismatch'],
      [hashes[3], 'nonce-mismatch'],
    ]);
    expect(c.account(ACCOUNT_1).nonce).toBe(2n);
  });

  it('with holdFutureNonces, consecutive nonces that arrive out of order land in one block, in nonce order', () => {
    const c = chain({}, { holdFutureNonces: true });
    const hashes = [4n, 2n, 0n, 3n, 1n].map((nonce) => ({ nonce, hash: submitTransfer(c, nonce) }));
    const block = c.produceBlock();
    expect(block.dropped).toEqual([]);
    expect(block.transactions).toEqual(
      [...hashes].sort((a, b) => Number(a.nonce - b.nonce)).map((entry) => entry.hash),
    );
    expect(c.account(ACCOUNT_1).nonce).toBe(5n);
  });

  it('a nonce gap is dropped at the first block by default, as the real sequencer drops it', () => {
    const c = chain();
    const ahead = submitTransfer(c, 1n);
    expect(c.produceBlock().dropped).toMatchObject([{ hash: ahead, failure: { reason: 'nonce-mismatch' } }]);
    expect(c.receipt(ahead)).toMatchObject({ status: 'dropped', blockId: 2n });
    expect(c.mempoolSize).toBe(0);
  });

  it('with holdFutureNonces and nonceGapBlocks, a future nonce waits that many builds for its turn', () => {
    const c = chain({}, { holdFutureNonces: true, nonceGapBlocks: 2 });
    const ahead = submitTransfer(c, 1n);
    expect(c.produceBlock()).toMatchObject({ transactions: [], dropped: [] });
    expect(c.receipt(ahead)).toEqual({ status: 'pending' });
    const first = submitTransfer(c, 0n);
    expect(c.produceBlock().transactions).toEqual([first, ahead]);

    const lonely = submitTransfer(c, 5n);
    expect(c.produceBlock().dropped).toEqual([]);
    expect(c.produceBlock().dropped).toEqual([]);
    expect(c.produceBlock().dropped).toMatchObject([{ hash: lonely }]);
  });

  it('a full block leaves the rest queued in order, without counting it as a gap', () => {
    const c = chain({}, { maxTransactions: 10, holdFutureNonces: true });
    const hashes = Array.from({ length: 25 }, (_, i) => submitTransfer(c, BigInt(24 - i))).reverse(); // arrive newest first
    const blocks = [c.produceBlock(), c.produceBlock(), c.produceBlock()];
    expect(blocks.map((block) => block.transactions.length)).toEqual([10, 10, 5]);
    expect(blocks.flatMap((block) => block.transactions)).toEqual(hashes);
    expect(blocks.flatMap((block) => block.dropped)).toEqual([]);
  });

  it('maxBlockBytes defers what does not fit, keeping room for the clock transaction', () => {
    const c = chain({}, { maxBlockBytes: 1024 });
    const hashes = Array.from({ length: 6 }, (_, i) => submitTransfer(c, BigInt(i)));
    const blocks = [c.produceBlock(), c.produceBlock(), c.produceBlock()];
    expect(blocks.map((block) => block.transactions.length)).toEqual([2, 2, 2]);
    expect(blocks.flatMap((block) => block.transactions)).toEqual(hashes);
    expect(Math.max(...blocks.map((block) => c.blockBytes(block.blockId)!.byteLength))).toBeLessThanOrEqual(1024);
  });

  it('ends every block with the clock transaction, which updates the clock accounts', () => {
    const c = chain({ now: () => 7_000 });
    const hash = submitTransfer(c, 0n);
    const summary = c.produceBlock();
    const block = decodeBlock(c.blockBytes(summary.blockId)!);
    if (!block.ok) throw new Error(block.reason);
    const [transfer, clock] = block.value.publicTransactions;
    expect(transfer!.hash).toBe(hash);
    expect(clock!.transaction).toMatchObject({ message: { nonces: [], instructionData: [7_000, 0] }, witnesses: [] });
    const clockAccount = c.account(clock!.transaction.message.accountIds[0]!);
    expect([...clockAccount.data]).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0x58, 0x1b, 0, 0, 0, 0, 0, 0]);
    // The index knows it, as the real one indexes every transaction of a block.
    expect(c.transactionBytes(clock!.hash)).toBeDefined();
  });

  it('hashes blocks under the block prefix on main, without it in raw-borsh (rc) mode, and finalizes them', () => {
    const main = chain();
    const rc = chain({ signingMode: 'raw-borsh' });
    for (const c of [main, rc]) for (let i = 0; i < 3; i++) c.produceBlock();
    expect(blockHashFormulaOf(main.blockBytes(4n)!)).toBe('main');
    expect(blockHashFormulaOf(rc.blockBytes(4n)!)).toBe('rc');
    expect(decodeBlock(rc.blockBytes(4n)!)).toMatchObject({ ok: true, value: { publicTransactions: [] } });
    expect([1n, 2n, 3n, 4n].map((id) => main.block(id)!.bedrockStatus)).toEqual([
      'finalized',
      'finalized',
      'pending',
      'pending',
    ]);
  });

  it('block hashes chain, and timestamps never go back', () => {
    let now = 5_000;
    const c = chain({ now: () => now });
    const a = c.produceBlock();
    now = 4_000;
    const b = c.produceBlock();
    expect(b.timestampMs).toBe(a.timestampMs);
    expect(c.block(3n)!.prevBlockHash).toEqual(c.block(2n)!.hash);
  });

  it('a resend of a queued or included transaction is answered with its hash and queued once', () => {
    const c = chain();
    const built = buildNativeTransfer({
      programId: AUTH,
      secretKey: KEY_1,
      to: ACCOUNT_2,
      amount: 5n,
      nonce: 0n,
      mode: 'prehash-v0.3',
    });
    if (!built.ok) throw new Error(built.reason);
    expect(submitPublic(c, built.transaction)).toMatchObject({ ok: true, status: 'queued' });
    expect(submitPublic(c, built.transaction)).toMatchObject({ ok: true, status: 'already-pending' });
    expect(c.mempoolSize).toBe(1);
    c.produceBlock();
    expect(submitPublic(c, built.transaction)).toMatchObject({
      ok: true,
      status: 'already-included',
      hash: built.hashHex,
    });
    expect(c.mempoolSize).toBe(0);
  });

  it('a full mempool refuses', () => {
    const c = chain({ mempoolMaxSize: 2 });
    submitTransfer(c, 0n);
    submitTransfer(c, 1n);
    const built = buildNativeTransfer({
      programId: AUTH,
      secretKey: KEY_1,
      to: ACCOUNT_2,
      amount: 1n,
      nonce: 2n,
      mode: 'prehash-v0.3',
    });
    if (!built.ok) throw new Error(built.reason);
    expect(submitPublic(c, built.transaction)).toEqual({ ok: false, reason: 'mempool-full', maxSize: 2 });
  });
});

describe('execution rules (docs/lez.md §3), each dropping the transaction and changing nothing', () => {
  function dropReason(c: DevnetChain, transaction: PublicTransaction) {
    const before = [c.account(ACCOUNT_1), c.account(ACCOUNT_2)];
    const outcome = submitPublic(c, transaction);
    if (!outcome.ok) return `refused: ${outcome.reason}`;
    const block = c.produceBlock();
    expect([c.account(ACCOUNT_1), c.account(ACCOUNT_2)]).toEqual(before);
    expect(c.totalSupply()).toBe(c.genesisSupply);
    return block.dropped[0]?.failure;
  }

  const message = (overrides: Partial<PublicMessage> = {}): PublicMessage => ({
    programId: AUTH,
    accountIds: [ACCOUNT_1, ACCOUNT_2],
    nonces: [0n],
    instructionData: nativeTransferInstruction(10n),
    ...overrides,
  });

  it.each([
    [
      'the same account twice',
      message({ accountIds: [ACCOUNT_1, ACCOUNT_1] }),
      [KEY_1],
      'duplicate-account-ids',
      'Invalid input: Duplicate account_ids found in message',
    ],
    [
      'more nonces than signatures',
      message({ nonces: [0n, 0n] }),
      [KEY_1],
      'nonce-count-mismatch',
      'Invalid input: Mismatch between number of nonces and signatures/public keys',
    ],
    [
      'an unsigned transfer',
      message({ nonces: [] }),
      [],
      'sender-not-authorized',
      'Failed to execute program: Sender must be authorized',
    ],
    [
      'a sender that did not sign',
      message({ accountIds: [ACCOUNT_2, ACCOUNT_1] }),
      [KEY_1],
      'sender-not-authorized',
      'Failed to execute program: Sender must be authorized',
    ],
    [
      'an unknown program',
      message({ programId: [9, 9, 9, 9, 9, 9, 9, 9] }),
      [KEY_1],
      'unknown-program',
      'Invalid input: Unknown program',
    ],
    [
      'a program the devnet does not run',
      message({ programId: DEVNET_PROGRAM_IDS.token }),
      [KEY_1],
      'program-not-emulated',
      expect.stringContaining('authenticated_transfer'),
    ],
    [
      'an instruction that is not a u128',
      message({ instructionData: [1, 2] }),
      [KEY_1],
      'invalid-instruction',
      expect.stringContaining('Failed to execute program'),
    ],
    [
      'three accounts',
      message({ accountIds: [ACCOUNT_1, ACCOUNT_2, new Uint8Array(32).fill(3)] }),
      [KEY_1],
      'invalid-instruction',
      expect.stringContaining('Failed to execute program'),
    ],
    [
      'one account with an amount',
      message({ accountIds: [ACCOUNT_1] }),
      [KEY_1],
      'invalid-instruction',
      expect.stringContaining('Failed to execute program'),
    ],
    [
      'initialising an initialised account',
      message({ accountIds: [ACCOUNT_1], instructionData: nativeTransferInstruction(0n) }),
      [KEY_1],
      'account-already-initialised',
      'Failed to execute program: Account must be uninitialized',
    ],
  ])('%s', (_, msg, keys, reason, text) => {
    expect(dropReason(chain(), signed(msg, ...keys))).toEqual({ reason, message: text });
  });

  it('an account that is not owned by the program cannot be debited', () => {
    const holder = new Uint8Array(32).fill(42);
    const holderAccount = accountOf(holder);
    const c = chain({
      genesis: resolveGenesis(
        [
          {
            account: { ok: true, id: holderAccount, text: formatAccountId(holderAccount) },
            balance: 100n,
            initialised: false,
          },
        ],
        true,
      ),
    });
    const tx = signed(message({ accountIds: [holderAccount, ACCOUNT_2], nonces: [0n] }), holder);
    expect(dropReason(c, tx)).toMatchObject({ reason: 'balance-lowered-by-non-owner' });
    expect(c.account(holderAccount).balance).toBe(100n);
  });

  it('a zero transfer to an initialised account only spends the nonce', () => {
    const c = chain();
    submitPublic(c, signed(message({ instructionData: nativeTransferInstruction(0n) }), KEY_1));
    expect(c.produceBlock().dropped).toEqual([]);
    expect(c.account(ACCOUNT_1)).toMatchObject({ balance: 10_000n, nonce: 1n });
    expect(c.account(ACCOUNT_2)).toMatchObject({ balance: 20_000n, nonce: 0n });
  });

  it('a signature for the other signing mode is refused at admission', () => {
    const c = chain({ signingMode: 'raw-borsh' });
    expect(submitPublic(c, signed(message(), KEY_1))).toEqual({ ok: false, reason: 'invalid-signature' });
  });

  it('strict admission checks against the state the mempool will leave', () => {
    const c = chain({ admission: 'strict' });
    expect(
      submitPublic(c, signed(message({ nonces: [0n], instructionData: nativeTransferInstruction(9_000n) }), KEY_1)),
    ).toMatchObject({ ok: true });
    // 9 000 are already promised: 2 000 more would overspend once the first lands.
    expect(
      submitPublic(c, signed(message({ nonces: [1n], instructionData: nativeTransferInstruction(2_000n) }), KEY_1)),
    ).toMatchObject({
      ok: false,
      reason: 'rejected',
      failure: { reason: 'insufficient-balance' },
    });
    expect(
      submitPublic(c, signed(message({ nonces: [1n], instructionData: nativeTransferInstruction(1_000n) }), KEY_1)),
    ).toMatchObject({ ok: true });
    expect(c.produceBlock().transactions).toHaveLength(2);
    expect(c.account(ACCOUNT_1).balance).toBe(0n);
  });
});
