/**
 * The devnet over real HTTP, driven by the project's SequencerClient exactly as a payer would drive a real
 * sequencer (docs/lez.md §2, §3, §7, §8): transfers, nonces, pipelining, the failure rules, supply, garbage, stop().
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { hexToBytes, toHex } from '../../src/lez/bytes.ts';
import { parseJson, type JsonValue } from '../../src/lez/json.ts';
import { buildAccountInitialisation, buildNativeTransfer } from '../../src/lez/native-transfer.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { signPublicMessage, type SigningMode } from '../../src/lez/signing.ts';
import {
  nativeTransferInstruction,
  nssaTransactionToBase64,
  publicTransactionHashHex,
  type PublicMessage,
  type PublicTransaction,
} from '../../src/lez/transaction.ts';
import { blockHash, decodeBlock } from '../../src/lez/block.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet, type DevnetOptions } from '../../src/devnet/devnet.ts';

const KEY_1 = hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32);
const KEY_2 = hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32);
const ACCOUNT_1 = DEVNET_GENESIS[0].account;
const ACCOUNT_2 = DEVNET_GENESIS[1].account;
const ACCOUNT_2_ID = publicAccountId(xOnlyPublicKey(KEY_2));
const SUPPLY = DEVNET_GENESIS[0].balance + DEVNET_GENESIS[1].balance;

/** A fresh key whose account no one has touched. */
const freshKey = (n: number) => new Uint8Array(32).fill(n);
const accountOf = (secretKey: Uint8Array) => publicAccountId(xOnlyPublicKey(secretKey));

const running: Devnet[] = [];

async function devnet(options: DevnetOptions = {}): Promise<{ devnet: Devnet; client: SequencerClient }> {
  const started = await startDevnet({ blockIntervalMs: 0, receipts: true, ...options });
  running.push(started);
  return { devnet: started, client: new SequencerClient({ url: started.url, timeoutMs: 5_000 }) };
}

afterEach(async () => {
  for (const started of running.splice(0)) {
    // Every test leaves the supply where genesis put it, whatever it did.
    expect(started.totalSupply()).toBe(started.genesis.reduce((sum, entry) => sum + entry.balance, 0n));
    await started.stop();
  }
});

function transfer(
  d: Devnet,
  input: { from?: Uint8Array; to?: Uint8Array; amount: bigint; nonce: bigint; mode?: SigningMode },
) {
  const built = buildNativeTransfer({
    programId: d.programIds.authenticated_transfer,
    secretKey: input.from ?? KEY_1,
    to: input.to ?? ACCOUNT_2_ID,
    amount: input.amount,
    nonce: input.nonce,
    mode: input.mode ?? 'prehash-v0.3',
  });
  if (!built.ok) throw new Error(built.reason);
  return built;
}

/** A raw JSON-RPC call, for what SequencerClient does not cover (receipts, named params, garbage). */
async function rpc(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'POST',
) {
  const response = await fetch(url, { method, headers, body: method === 'GET' ? undefined : body });
  const text = await response.text();
  const parsed = text ? parseJson(text) : undefined;
  return { status: response.status, text, json: parsed?.ok ? (parsed.value as Record<string, JsonValue>) : undefined };
}

async function receipt(url: string, hash: string) {
  const { json } = await rpc(
    url,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransactionReceipt', params: [hash] }),
  );
  return json?.result;
}

describe('devnet: the real methods and encodings (docs/lez.md §2)', () => {
  it('answers health, genesis accounts, program ids and the genesis block', async () => {
    const { devnet: d, client } = await devnet();
    expect(await client.checkHealth()).toEqual({ kind: 'result', value: null });
    expect(await client.getLastBlockId()).toEqual({ kind: 'result', value: 1n });
    expect(await client.getProgramIds()).toEqual({ kind: 'result', value: d.programIds });

    expect(await client.getAccount(ACCOUNT_1)).toEqual({
      kind: 'result',
      value: {
        programOwner: d.programIds.authenticated_transfer,
        balance: 10_000n,
        data: new Uint8Array(0),
        nonce: 0n,
      },
    });
    expect(await client.getAccountBalance(ACCOUNT_2)).toEqual({ kind: 'result', value: 20_000n });
    const stranger = accountOf(freshKey(9));
    expect(await client.getAccountsNonces([ACCOUNT_1, ACCOUNT_2, stranger])).toEqual({
      kind: 'result',
      value: [0n, 0n, 0n],
    });
    expect(await client.getAccount(stranger)).toEqual({
      kind: 'result',
      value: { programOwner: [0, 0, 0, 0, 0, 0, 0, 0], balance: 0n, data: new Uint8Array(0), nonce: 0n },
    });

    const genesis = await client.getBlock(1n);
    if (genesis.kind !== 'result' || !genesis.value) throw new Error('no genesis block');
    const block = decodeBlock(genesis.value);
    if (!block.ok) throw new Error(block.reason);
    expect(block.value).toMatchObject({
      blockId: 1n,
      timestampMs: 0n,
      publicTransactions: [],
      bedrockStatus: 'pending',
    });
    expect(block.value.prevBlockHash).toEqual(new Uint8Array(32));
    expect(block.value.hash).toEqual(blockHash({ ...block.value, transactions: [] }, 'main'));
    expect(await client.getBlock(0n)).toEqual({ kind: 'result', value: null });
    expect(await client.getBlock(2n)).toEqual({ kind: 'result', value: null });
  });

  it('writes u128 numbers losslessly', async () => {
    const big = (1n << 100n) + 1n;
    const rich = accountOf(freshKey(3));
    const { client } = await devnet({ genesis: [{ account: formatAccountId(rich), balance: big }] });
    expect(await client.getAccountBalance(rich)).toEqual({ kind: 'result', value: big });
  });

  it('takes params by position or by Rust name', async () => {
    const { devnet: d } = await devnet();
    const named = await rpc(
      d.url,
      JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'getAccountBalance', params: { account_id: ACCOUNT_1 } }),
    );
    expect(named.text).toBe('{"jsonrpc":"2.0","id":"a","result":10000}');
    const range = await rpc(
      d.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'getBlockRange',
        params: { start_block_id: 1, end_block_id: 1 },
      }),
    );
    expect(range.json?.result).toHaveLength(1);
  });

  it('getBlockRange returns blocks, and -31999 for the first missing one', async () => {
    const { devnet: d, client } = await devnet();
    d.produceBlock();
    const range = await client.getBlockRange(1n, 2n);
    expect(
      range.kind === 'result' &&
        range.value.map(
          (bytes) => decodeBlock(bytes).ok && (decodeBlock(bytes) as { value: { blockId: bigint } }).value.blockId,
        ),
    ).toEqual([1n, 2n]);
    expect(await client.getBlockRange(1n, 5n)).toEqual({
      kind: 'rpc-error',
      code: -31999,
      message: 'Block with id 3 not found',
    });
    expect(await client.getBlockRange(0n, 1n)).toMatchObject({ code: -31999, message: 'Block with id 0 not found' });
    expect(await client.getBlockRange(2n, 1n)).toEqual({ kind: 'result', value: [] });
  });
});

describe('devnet: transfers', () => {
  it('a transfer signed with a genesis key lands in the next block and moves the balance exactly', async () => {
    const { devnet: d, client } = await devnet();
    const built = transfer(d, { amount: 150n, nonce: 0n });

    expect(await client.sendTransaction(built.base64)).toEqual({ kind: 'result', value: built.hashHex });
    // Accepted is not included: nothing moves before the block.
    expect(await client.getTransaction(built.hashHex)).toEqual({ kind: 'result', value: null });
    expect(await receipt(d.url, built.hashHex)).toEqual({
      tx_hash: built.hashHex,
      status: 'Pending',
      timestamp_ms: null,
    });
    expect(await client.getAccountBalance(ACCOUNT_1)).toEqual({ kind: 'result', value: 10_000n });

    const block = d.produceBlock();
    expect(block).toMatchObject({ blockId: 2n, transactions: [built.hashHex], dropped: [] });

    const fetched = await client.getTransaction(built.hashHex);
    expect(fetched.kind === 'result' && fetched.value?.transaction).toEqual({
      kind: 'public',
      transaction: built.transaction,
    });
    expect(await client.getAccountBalance(ACCOUNT_1)).toEqual({ kind: 'result', value: 9_850n });
    expect(await client.getAccountBalance(ACCOUNT_2)).toEqual({ kind: 'result', value: 20_150n });
    expect(await client.getAccountsNonces([ACCOUNT_1, ACCOUNT_2])).toEqual({ kind: 'result', value: [1n, 0n] });
    expect(await client.getLastBlockId()).toEqual({ kind: 'result', value: 2n });
    expect(await receipt(d.url, built.hashHex)).toEqual({
      tx_hash: built.hashHex,
      status: { Included: { block_id: 2 } },
      timestamp_ms: Number(block.timestampMs),
    });

    const raw = await client.getBlock(2n);
    const decoded = raw.kind === 'result' && raw.value ? decodeBlock(raw.value) : undefined;
    if (!decoded?.ok) throw new Error('block 2 does not decode');
    expect(decoded.value.publicTransactions.map((tx) => tx.bytes)).toEqual([
      fetched.kind === 'result' && fetched.value?.bytes,
      expect.any(Uint8Array), // the clock transaction
    ]);
    expect(decoded.value.prevBlockHash).toEqual(d.chain.block(1n)!.hash);
    expect(toHex(decoded.value.hash)).toBe(block.hash);

    // The next nonce is the next transfer's.
    const second = transfer(d, { amount: 1n, nonce: 1n });
    await client.sendTransaction(second.base64);
    d.produceBlock();
    expect(await client.getAccountsNonces([ACCOUNT_1])).toEqual({ kind: 'result', value: [2n] });
    expect(await client.getAccountBalance(ACCOUNT_2)).toEqual({ kind: 'result', value: 20_151n });
  });

  it('verifies in the configured signing mode (raw-borsh, as up to v0.2.0-rc3)', async () => {
    const { devnet: d, client } = await devnet({ signingMode: 'raw-borsh' });
    const raw = transfer(d, { amount: 5n, nonce: 0n, mode: 'raw-borsh' });
    const prehash = transfer(d, { amount: 5n, nonce: 0n, mode: 'prehash-v0.3' });
    expect(await client.sendTransaction(prehash.base64)).toMatchObject({
      kind: 'rpc-error',
      code: -32602,
      message: 'Invalid signature(-s)',
    });
    expect(await client.sendTransaction(raw.base64)).toEqual({ kind: 'result', value: raw.hashHex });
    d.produceBlock();
    expect(await client.getAccountBalance(ACCOUNT_2)).toEqual({ kind: 'result', value: 20_005n });
  });

  it('with holdFutureNonces, 100 transfers with consecutive nonces land in one block, whatever order they arrive in', async () => {
    const { devnet: d, client } = await devnet({ holdFutureNonces: true });
    const transfers = Array.from({ length: 100 }, (_, i) => transfer(d, { amount: BigInt(i + 1), nonce: BigInt(i) }));
    // All at once over several connections: the server sees them in no particular order.
    const answers = await Promise.all(transfers.map((built) => client.sendTransaction(built.base64)));
    expect(answers).toEqual(transfers.map((built) => ({ kind: 'result', value: built.hashHex })));

    const block = d.produceBlock();
    expect(block.dropped).toEqual([]);
    expect(block.transactions).toEqual(transfers.map((built) => built.hashHex)); // in nonce order
    expect(await client.getAccountsNonces([ACCOUNT_1])).toEqual({ kind: 'result', value: [100n] });
    expect(await client.getAccountBalance(ACCOUNT_1)).toEqual({ kind: 'result', value: 10_000n - 5_050n });
    expect(await client.getAccountBalance(ACCOUNT_2)).toEqual({ kind: 'result', value: 20_000n + 5_050n });
  });

  it('with the block timer running, each of 100 pipelined transfers lands in the first block sealed after it arrived', async () => {
    const { devnet: d, client } = await devnet({ blockIntervalMs: 2_000 });
    const sealed: bigint[] = [];
    d.onBlock((block) => void sealed.push(block.blockId));
    const transfers = Array.from({ length: 100 }, (_, i) => transfer(d, { amount: 1n, nonce: BigInt(i) }));
    // How many blocks had been sealed when each send left and when its hash came back: the transfer arrived between.
    const sealedAround: { before: number; after: number }[] = [];
    // Pipelined: each send waits only for the hash, never for inclusion.
    for (const built of transfers) {
      const before = sealed.length;
      expect(await client.sendTransaction(built.base64)).toMatchObject({ kind: 'result' });
      sealedAround.push({ before, after: sealed.length });
    }

    const last = transfers.at(-1)!.hashHex;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const found = await client.getTransaction(last);
      if (found.kind === 'result' && found.value) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The timer seals whatever is waiting, however many: a transfer never waits past the first block after it
    // arrived, so the batch takes as few blocks as the timer sealed while it was being sent, plus one (one or two
    // on a quiet machine), and never one per transfer. Bounded by the blocks counted around each send, not by time.
    transfers.forEach((built, i) => {
      const r = d.receipt(built.hashHex);
      if (r.status !== 'included') throw new Error(`${built.hashHex} is ${r.status}`);
      const index = sealed.indexOf(r.blockId);
      expect(index, `transfer ${i}: the block it landed in`).toBeGreaterThanOrEqual(sealedAround[i]!.before);
      expect(index, `transfer ${i}: the block it landed in`).toBeLessThanOrEqual(sealedAround[i]!.after);
    });
    expect(d.nonce(ACCOUNT_1)).toBe(100n);
    expect(d.balance(ACCOUNT_2)).toBe(20_100n);
  });
});

describe('devnet: what fails, fails with the right error and changes nothing', () => {
  /** Balances, nonces and owners of the accounts a test touches, to compare before and after. */
  async function snapshot(client: SequencerClient, accounts: (string | Uint8Array)[]) {
    return Promise.all(accounts.map((account) => client.getAccount(account)));
  }

  it('a replayed transaction is refused: the same hash again, applied once', async () => {
    const { devnet: d, client } = await devnet();
    const built = transfer(d, { amount: 100n, nonce: 0n });
    await client.sendTransaction(built.base64);
    d.produceBlock();
    const before = await snapshot(client, [ACCOUNT_1, ACCOUNT_2]);

    // Like the real sequencer, a resend is answered with its hash; its nonce is spent, so it never applies again.
    expect(await client.sendTransaction(built.base64)).toEqual({ kind: 'result', value: built.hashHex });
    const block = d.produceBlock();
    expect(block.transactions).toEqual([]);
    expect(await snapshot(client, [ACCOUNT_1, ACCOUNT_2])).toEqual(before);
    expect(await receipt(d.url, built.hashHex)).toMatchObject({ status: { Included: { block_id: 2 } } });
  });

  it('a bad signature is -32602 "Invalid signature(-s)" at once', async () => {
    const { devnet: d, client } = await devnet();
    const built = transfer(d, { amount: 100n, nonce: 0n });
    const signature = built.transaction.witnesses[0]!.signature.slice();
    signature[10]! ^= 0x01;
    const forged: PublicTransaction = {
      ...built.transaction,
      witnesses: [{ ...built.transaction.witnesses[0]!, signature }],
    };
    const before = await snapshot(client, [ACCOUNT_1, ACCOUNT_2]);

    expect(await client.sendTransaction({ kind: 'public', transaction: forged })).toEqual({
      kind: 'rpc-error',
      code: -32602,
      message: 'Invalid signature(-s)',
    });
    // Signed by someone else than the witness key claims.
    const wrongKey: PublicTransaction = {
      ...built.transaction,
      witnesses: [signPublicMessage(built.transaction.message, KEY_2, 'prehash-v0.3')].map((w) => ({
        ...w,
        publicKey: built.transaction.witnesses[0]!.publicKey,
      })),
    };
    expect(await client.sendTransaction({ kind: 'public', transaction: wrongKey })).toMatchObject({
      code: -32602,
      message: 'Invalid signature(-s)',
    });

    expect(d.mempoolSize()).toBe(0);
    d.produceBlock();
    expect(await snapshot(client, [ACCOUNT_1, ACCOUNT_2])).toEqual(before);
  });

  it('a wrong nonce is accepted, then dropped at block time with "Nonce mismatch"', async () => {
    const { devnet: d, client } = await devnet();
    const before = await snapshot(client, [ACCOUNT_1, ACCOUNT_2]);
    const ahead = transfer(d, { amount: 100n, nonce: 1n });

    expect(await client.sendTransaction(ahead.base64)).toEqual({ kind: 'result', value: ahead.hashHex });
    const block = d.produceBlock();
    expect(block.dropped).toEqual([
      { hash: ahead.hashHex, failure: { reason: 'nonce-mismatch', message: 'Invalid input: Nonce mismatch' } },
    ]);
    expect(await client.getTransaction(ahead.hashHex)).toEqual({ kind: 'result', value: null });
    expect(await receipt(d.url, ahead.hashHex)).toEqual({
      tx_hash: ahead.hashHex,
      status: { Rejected: { reason: 'Invalid input: Nonce mismatch' } },
      timestamp_ms: Number(block.timestampMs),
    });
    expect(await snapshot(client, [ACCOUNT_1, ACCOUNT_2])).toEqual(before);

    // A nonce already used (behind the account's) is dropped too.
    await client.sendTransaction(transfer(d, { amount: 1n, nonce: 0n }).base64);
    d.produceBlock();
    const stale = transfer(d, { amount: 2n, nonce: 0n });
    await client.sendTransaction(stale.base64);
    expect(d.produceBlock().dropped).toMatchObject([{ hash: stale.hashHex, failure: { reason: 'nonce-mismatch' } }]);
    expect(d.nonce(ACCOUNT_1)).toBe(1n);
  });

  it('an overspend is dropped with "Sender has insufficient balance"', async () => {
    const { devnet: d, client } = await devnet();
    const before = await snapshot(client, [ACCOUNT_1, ACCOUNT_2]);
    const overspend = transfer(d, { amount: 10_001n, nonce: 0n });
    await client.sendTransaction(overspend.base64);
    expect(d.produceBlock().dropped).toEqual([
      {
        hash: overspend.hashHex,
        failure: {
          reason: 'insufficient-balance',
          message: 'Failed to execute program: Sender has insufficient balance',
        },
      },
    ]);
    expect(await client.getTransaction(overspend.hashHex)).toEqual({ kind: 'result', value: null });
    // A dropped transaction spends no nonce.
    expect(await snapshot(client, [ACCOUNT_1, ACCOUNT_2])).toEqual(before);

    // Exactly the balance is fine.
    const all = transfer(d, { amount: 10_000n, nonce: 0n });
    await client.sendTransaction(all.base64);
    expect(d.produceBlock().transactions).toEqual([all.hashHex]);
    expect(d.balance(ACCOUNT_1)).toBe(0n);
  });

  it('an uninitialised recipient is dropped (ClaimedUnauthorizedAccount) until it initialises itself', async () => {
    const { devnet: d, client } = await devnet();
    const payeeKey = freshKey(7);
    const payee = accountOf(payeeKey);
    const before = await snapshot(client, [ACCOUNT_1, payee]);

    const early = transfer(d, { to: payee, amount: 50n, nonce: 0n });
    await client.sendTransaction(early.base64);
    expect(d.produceBlock().dropped).toEqual([
      {
        hash: early.hashHex,
        failure: {
          reason: 'claimed-unauthorized-account',
          message: `Program violated execution rules: Trying to claim account ${formatAccountId(payee)} which is not authorized`,
        },
      },
    ]);
    expect(await snapshot(client, [ACCOUNT_1, payee])).toEqual(before);

    // `wallet auth-transfer init`: the payee claims its own account for authenticated_transfer.
    const init = buildAccountInitialisation({
      programId: d.programIds.authenticated_transfer,
      secretKey: payeeKey,
      nonce: 0n,
      mode: 'prehash-v0.3',
    });
    await client.sendTransaction(init.base64);
    expect(d.produceBlock().transactions).toEqual([init.hashHex]);
    expect(await client.getAccount(payee)).toEqual({
      kind: 'result',
      value: { programOwner: d.programIds.authenticated_transfer, balance: 0n, data: new Uint8Array(0), nonce: 1n },
    });

    // Initialising twice fails: the account is no longer the default one.
    const again = buildAccountInitialisation({
      programId: d.programIds.authenticated_transfer,
      secretKey: payeeKey,
      nonce: 1n,
      mode: 'prehash-v0.3',
    });
    await client.sendTransaction(again.base64);
    expect(d.produceBlock().dropped).toMatchObject([
      {
        failure: {
          reason: 'account-already-initialised',
          message: 'Failed to execute program: Account must be uninitialized',
        },
      },
    ]);

    const paid = transfer(d, { to: payee, amount: 50n, nonce: 0n });
    await client.sendTransaction(paid.base64);
    expect(d.produceBlock().transactions).toEqual([paid.hashHex]);
    expect(await client.getAccountBalance(payee)).toEqual({ kind: 'result', value: 50n });
  });

  it('a transfer the uninitialised recipient co-signs claims it (what the wallet does for its own accounts)', async () => {
    const { devnet: d, client } = await devnet();
    const payeeKey = freshKey(8);
    const payee = accountOf(payeeKey);
    const message: PublicMessage = {
      programId: d.programIds.authenticated_transfer,
      accountIds: [accountOf(KEY_1), payee],
      nonces: [0n, 0n],
      instructionData: nativeTransferInstruction(25n),
    };
    const transaction: PublicTransaction = {
      message,
      witnesses: [
        signPublicMessage(message, KEY_1, 'prehash-v0.3'),
        signPublicMessage(message, payeeKey, 'prehash-v0.3'),
      ],
    };
    expect(await client.sendTransaction(nssaTransactionToBase64({ kind: 'public', transaction }))).toEqual({
      kind: 'result',
      value: publicTransactionHashHex(transaction),
    });
    expect(d.produceBlock().dropped).toEqual([]);
    expect(await client.getAccount(payee)).toEqual({
      kind: 'result',
      value: { programOwner: d.programIds.authenticated_transfer, balance: 25n, data: new Uint8Array(0), nonce: 1n },
    });
    expect(d.nonce(ACCOUNT_1)).toBe(1n);
  });

  it('supply is conserved across many transfers both ways', async () => {
    const { devnet: d, client } = await devnet();
    for (let i = 0n; i < 10n; i++) {
      await client.sendTransaction(
        transfer(d, { from: KEY_1, to: ACCOUNT_2_ID, amount: 7n * (i + 1n), nonce: i }).base64,
      );
      await client.sendTransaction(
        transfer(d, { from: KEY_2, to: accountOf(KEY_1), amount: 3n * (i + 1n), nonce: i }).base64,
      );
    }
    await client.sendTransaction(transfer(d, { amount: 1_000_000n, nonce: 10n }).base64); // overspend: dropped
    const block = d.produceBlock();
    expect(block.transactions).toHaveLength(20);
    expect(block.dropped).toHaveLength(1);
    const balances = await Promise.all([client.getAccountBalance(ACCOUNT_1), client.getAccountBalance(ACCOUNT_2)]);
    expect(balances.reduce((sum, b) => sum + (b.kind === 'result' ? b.value : 0n), 0n)).toBe(SUPPLY);
    expect(d.balance(ACCOUNT_1)).toBe(10_000n - 7n * 55n + 3n * 55n);
  });
});

describe("devnet: admission 'strict' refuses at once what would fail", () => {
  it('duplicate, wrong nonce, overspend and uninitialised recipient are JSON-RPC errors, and nothing changes', async () => {
    const { devnet: d, client } = await devnet({ admission: 'strict' });
    const first = transfer(d, { amount: 100n, nonce: 0n });
    expect(await client.sendTransaction(first.base64)).toEqual({ kind: 'result', value: first.hashHex });
    // Pending or included, the same transaction is already known.
    expect(await client.sendTransaction(first.base64)).toMatchObject({
      kind: 'rpc-error',
      code: -32001,
      message: `Transaction already known: ${first.hashHex}`,
    });
    // Pipelining still works: the next nonce is checked against the state the mempool will leave.
    const second = transfer(d, { amount: 100n, nonce: 1n });
    expect(await client.sendTransaction(second.base64)).toEqual({ kind: 'result', value: second.hashHex });
    d.produceBlock();
    expect(await client.sendTransaction(first.base64)).toMatchObject({ kind: 'rpc-error', code: -32001 });
    const before = await snapshot(client, [ACCOUNT_1, ACCOUNT_2]);

    expect(await client.sendTransaction(transfer(d, { amount: 1n, nonce: 5n }).base64)).toMatchObject({
      kind: 'rpc-error',
      code: -32002,
      message: 'Invalid input: Nonce mismatch',
      data: { reason: 'nonce-mismatch' },
    });
    expect(await client.sendTransaction(transfer(d, { amount: 1_000_000n, nonce: 2n }).base64)).toMatchObject({
      code: -32002,
      message: 'Failed to execute program: Sender has insufficient balance',
      data: { reason: 'insufficient-balance' },
    });
    expect(
      await client.sendTransaction(transfer(d, { to: accountOf(freshKey(4)), amount: 1n, nonce: 2n }).base64),
    ).toMatchObject({
      code: -32002,
      data: { reason: 'claimed-unauthorized-account' },
    });
    expect(d.mempoolSize()).toBe(0);
    expect(d.produceBlock().dropped).toEqual([]);
    expect(await snapshot(client, [ACCOUNT_1, ACCOUNT_2])).toEqual(before);
  });

  async function snapshot(client: SequencerClient, accounts: string[]) {
    return Promise.all(accounts.map((account) => client.getAccount(account)));
  }
});

describe('devnet: garbage gets a JSON-RPC error, never a crash', () => {
  it.each([
    ['not JSON', 'this is not json', -32700],
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"checkHealth"', -32700],
    ['an empty batch', '[]', -32600],
    ['a bare number', '42', -32600],
    ['no jsonrpc member', '{"id":1,"method":"checkHealth"}', -32600],
    ['a method that is not a string', '{"jsonrpc":"2.0","id":1,"method":7}', -32600],
    ['an object as id', '{"jsonrpc":"2.0","id":{},"method":"checkHealth"}', -32600],
    ['an unknown method', '{"jsonrpc":"2.0","id":1,"method":"send_tx","params":[]}', -32601],
    ['a prototype key as method', '{"jsonrpc":"2.0","id":1,"method":"toString"}', -32601],
    ['bad base64', '{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["%%%"]}', -32602],
    ['base64 of garbage bytes', '{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["AAECAwQ="]}', -32602],
    [
      'an unknown NSSATransaction variant',
      '{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["Bw=="]}',
      -32602,
    ],
    ['a missing param', '{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":[]}', -32602],
    ['params as a string', '{"jsonrpc":"2.0","id":1,"method":"getBlock","params":"1"}', -32602],
    ['a block id as a string', '{"jsonrpc":"2.0","id":1,"method":"getBlock","params":["1"]}', -32602],
    ['a negative block id', '{"jsonrpc":"2.0","id":1,"method":"getBlock","params":[-1]}', -32602],
    ['a block id above u64', '{"jsonrpc":"2.0","id":1,"method":"getBlock","params":[18446744073709551616]}', -32602],
    ['a bad account id', '{"jsonrpc":"2.0","id":1,"method":"getAccount","params":["0OIl"]}', -32602],
    ['a short tx hash', '{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["abcd"]}', -32602],
    [
      'nonces of something else than a list',
      '{"jsonrpc":"2.0","id":1,"method":"getAccountsNonces","params":[{"a":1}]}',
      -32602,
    ],
  ])('%s → %i', async (_, body, code) => {
    const { devnet: d, client } = await devnet();
    const answer = await rpc(d.url, body);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code } });
    expect(await client.checkHealth()).toEqual({ kind: 'result', value: null });
  });

  it('refuses a privacy-preserving body that does not decode (-32602), and deployments it cannot run (-32003)', async () => {
    const { client } = await devnet();
    expect(await client.sendTransaction({ kind: 'privacy-preserving', body: new Uint8Array([1, 2, 3]) })).toMatchObject(
      { code: -32602 },
    );
    expect(await client.sendTransaction({ kind: 'program-deployment', body: new Uint8Array([1]) })).toMatchObject({
      code: -32003,
    });
  });

  it('refuses a transaction larger than a block allows with the real message', async () => {
    const { devnet: d, client } = await devnet({ maxBlockBytes: 1024 });
    const message: PublicMessage = {
      programId: d.programIds.authenticated_transfer,
      accountIds: Array.from({ length: 30 }, (_, i) => freshKey(i + 1)),
      nonces: [],
      instructionData: [],
    };
    const outcome = await client.sendTransaction({ kind: 'public', transaction: { message, witnesses: [] } });
    expect(outcome).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Transaction size \d+ exceeds maximum allowed size of 824 bytes$/),
    });
  });

  it('answers batches and ignores notifications', async () => {
    const { devnet: d } = await devnet();
    const batch = await rpc(
      d.url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getLastBlockId' },
        { jsonrpc: '2.0', method: 'checkHealth' },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
      ]),
    );
    expect(batch.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: 1 },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    ]);
    const notification = await rpc(d.url, JSON.stringify({ jsonrpc: '2.0', method: 'checkHealth' }));
    expect(notification).toMatchObject({ status: 200, text: '' });
  });

  it('HTTP-level garbage: wrong verb 405, wrong content type 415, oversized body 413 with -32007, bad UTF-8 -32700', async () => {
    const { devnet: d, client } = await devnet({ maxBodyBytes: 2048 });
    expect((await rpc(d.url, '', {}, 'GET')).status).toBe(405);
    expect((await rpc(d.url, '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const big = await rpc(
      d.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['A'.repeat(4096)] }),
    );
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ error: { code: -32007, message: 'Request is too big' } });
    const response = await fetch(d.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Uint8Array.of(0xff, 0xfe, 0x7b),
    });
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
    expect(await client.checkHealth()).toEqual({ kind: 'result', value: null });
  });
});

describe('devnet: stop()', () => {
  it('stops the server and the block timer, leaves nothing running, and is idempotent', async () => {
    // Counted against what was there before: a worker runs other test files before this one (vitest isolate: false).
    const count = (resource: string) => process.getActiveResourcesInfo().filter((kind) => kind === resource).length;
    const timeoutsBefore = count('Timeout');
    const serversBefore = count('TCPServerWrap');
    const started = await startDevnet({ blockIntervalMs: 20 });
    const client = new SequencerClient({ url: started.url, timeoutMs: 2_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started.lastBlockId()).toBeGreaterThan(1n); // the timer was building blocks
    expect(await client.checkHealth()).toEqual({ kind: 'result', value: null }); // and a keep-alive connection is open

    const t0 = Date.now();
    await started.stop();
    expect(Date.now() - t0).toBeLessThan(1_000);
    await started.stop();

    const height = started.lastBlockId();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started.lastBlockId()).toBe(height);
    expect(() => started.produceBlock()).toThrow(/stopped/);
    expect(await client.checkHealth()).toMatchObject({ kind: 'unreachable' });
    expect(count('Timeout')).toBeLessThanOrEqual(timeoutsBefore);
    expect(count('TCPServerWrap')).toBeLessThanOrEqual(serversBefore);
  });

  it('fails to start on a port in use, with nothing left behind', async () => {
    const { devnet: first } = await devnet();
    await expect(startDevnet({ port: first.port, blockIntervalMs: 10 })).rejects.toThrow(/EADDRINUSE/);
  });
});
