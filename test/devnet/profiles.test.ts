/**
 * The devnet in each protocol profile, over real HTTP with the project's SequencerClient: `lee-v0.3` quotes fees,
 * takes fee-bearing transfers, charges them, and refuses at the door what no block could include with the
 * sequencer's own codes (-31980…-31986); `v0.2` knows no getFeeState, refuses the lee-v0.3 layout, and drops a
 * transfer to an account never initialised.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { feeReserve } from '../../src/lez/fees.ts';
import { buildNativeTransfer } from '../../src/lez/native-transfer.ts';
import { probeProfile } from '../../src/lez/protocol-profile.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { DEVNET_GENESIS, startDevnet, type Devnet, type DevnetOptions } from '../../src/devnet/devnet.ts';

const KEY_1 = hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32);
const KEY_2 = hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32);
const ACCOUNT_1 = DEVNET_GENESIS[0].account;
const ACCOUNT_2_ID = publicAccountId(xOnlyPublicKey(KEY_2));
const FRESH = publicAccountId(xOnlyPublicKey(new Uint8Array(32).fill(9)));

const running: Devnet[] = [];
afterEach(async () => {
  for (const started of running.splice(0)) {
    // Fees move money to the sequencer's account; none is made or lost.
    expect(started.totalSupply()).toBe(started.genesis.reduce((sum, entry) => sum + entry.balance, 0n));
    await started.stop();
  }
});

async function devnet(options: DevnetOptions) {
  const started = await startDevnet({ blockIntervalMs: 0, receipts: true, ...options });
  running.push(started);
  const layout = options.profile ?? 'v0.2';
  return { devnet: started, client: new SequencerClient({ url: started.url, timeoutMs: 5_000, layout }) };
}

function transfer(
  d: Devnet,
  input: { to?: Uint8Array; amount: bigint; nonce: bigint; fee?: { gasLimit: bigint; tip: bigint; maxFee: bigint } },
) {
  const built = buildNativeTransfer({
    programId: d.programIds.authenticated_transfer,
    secretKey: KEY_1,
    to: input.to ?? ACCOUNT_2_ID,
    amount: input.amount,
    nonce: input.nonce,
    mode: 'prehash-v0.3',
    ...(input.fee ? { fee: input.fee } : {}),
  });
  if (!built.ok) throw new Error(built.reason);
  return built;
}

const FEE = { gasLimit: 100n, tip: 1n, maxFee: 5_000n };

describe('devnet --profile lee-v0.3', () => {
  it('quotes getFeeState, is probed as lee-v0.3, and charges a transfer its actual fee', async () => {
    const { devnet: d, client } = await devnet({ profile: 'lee-v0.3', transferGas: 10 });
    const quote = await client.getFeeState();
    expect(quote).toMatchObject({
      kind: 'result',
      value: {
        height: 1n,
        base_fee_exec: 8n,
        base_fee_stor: 8n,
        next_base_fee_exec_ceiling: 9n,
        max_gas_exec: 10_000_000n,
      },
    });
    expect(await probeProfile(client)).toMatchObject({ kind: 'detected', profile: 'lee-v0.3' });

    const tx = transfer(d, { amount: 150n, nonce: 0n, fee: FEE });
    expect(await client.sendTransaction(tx.base64)).toEqual({ kind: 'result', value: tx.hashHex });
    d.produceBlock();
    const size = BigInt(Buffer.from(tx.base64, 'base64').byteLength);
    const fee = 10n * 8n + size * 8n + 1n;
    expect(await client.getAccountBalance(ACCOUNT_1)).toEqual({ kind: 'result', value: 10_000n - 150n - fee });
    expect(await client.getAccountBalance(ACCOUNT_2_ID)).toEqual({ kind: 'result', value: 20_000n + 150n });
    const fetched = await client.getTransaction(tx.hashHex);
    expect(fetched).toMatchObject({ kind: 'result', value: { transaction: { kind: 'public' } } });
  });

  it('pays an account never initialised: there is no claiming step', async () => {
    const { devnet: d, client } = await devnet({ profile: 'lee-v0.3', transferGas: 10 });
    const tx = transfer(d, { to: FRESH, amount: 70n, nonce: 0n, fee: FEE });
    expect(await client.sendTransaction(tx.base64)).toMatchObject({ kind: 'result' });
    d.produceBlock();
    expect(await client.getAccountBalance(FRESH)).toEqual({ kind: 'result', value: 70n });
  });

  it('refuses at the door, with the sequencer codes, what no block could include; nothing moves', async () => {
    const { devnet: d, client } = await devnet({ profile: 'lee-v0.3', transferGas: 10 });
    const missing = transfer(d, { amount: 1n, nonce: 0n });
    // A v0.2-layout transaction does not even decode on this chain.
    expect(await client.sendTransaction(missing.base64)).toMatchObject({ kind: 'rpc-error', code: -32602 });

    const exempt = buildNativeTransfer({
      programId: d.programIds.authenticated_transfer,
      secretKey: KEY_1,
      to: ACCOUNT_2_ID,
      amount: 1n,
      nonce: 0n,
      mode: 'prehash-v0.3',
      fee: FEE,
    });
    if (!exempt.ok) throw new Error(exempt.reason);
    // The same transfer declaring no fee (`fee: None`), signed: MissingFeeDeclaration.
    const { signPublicMessage } = await import('../../src/lez/signing.ts');
    const { nssaTransactionToBase64 } = await import('../../src/lez/transaction.ts');
    const message = { ...exempt.transaction.message, fee: null };
    const unsigned = nssaTransactionToBase64({
      kind: 'public',
      transaction: { message, witnesses: [signPublicMessage(message, KEY_1, 'prehash-v0.3')] },
    });
    expect(await client.sendTransaction(unsigned)).toMatchObject({
      kind: 'rpc-error',
      code: -31986,
      message: 'a public transaction must declare a fee',
      data: 'MissingFeeDeclaration',
    });

    const low = transfer(d, { amount: 1n, nonce: 0n, fee: { ...FEE, maxFee: 10n } });
    const size = BigInt(Buffer.from(low.base64, 'base64').byteLength);
    const reserve = feeReserve(FEE, size, 8n, 8n);
    expect(await client.sendTransaction(low.base64)).toMatchObject({
      kind: 'rpc-error',
      code: -31982,
      message: `max_fee 10 below the fee reserve ${reserve}`,
      data: { MaxFeeBelowReserve: { fee_reserve: Number(reserve), max_fee: 10 } },
    });

    const greedy = transfer(d, { amount: 1n, nonce: 0n, fee: { ...FEE, gasLimit: 10_000_001n, maxFee: 1n << 100n } });
    expect(await client.sendTransaction(greedy.base64)).toMatchObject({ kind: 'rpc-error', code: -31981 });

    const broke = transfer(d, { amount: 1n, nonce: 0n, fee: { ...FEE, gasLimit: 5_000n, maxFee: 1n << 100n } });
    expect(await client.sendTransaction(broke.base64)).toMatchObject({
      kind: 'rpc-error',
      code: -31984,
      data: { PayerCannotFund: { payer: ACCOUNT_1, balance: 10_000 } },
    });
    expect(await client.getAccountBalance(ACCOUNT_1)).toEqual({ kind: 'result', value: 10_000n });
  });

  it('a payer that signs nothing is UnauthorizedPayer (-31983)', async () => {
    const { devnet: d, client } = await devnet({ profile: 'lee-v0.3', transferGas: 10 });
    const { signPublicMessage } = await import('../../src/lez/signing.ts');
    const { nssaTransactionToBase64 } = await import('../../src/lez/transaction.ts');
    const built = transfer(d, { amount: 1n, nonce: 0n, fee: FEE });
    const message = { ...built.transaction.message, fee: { ...built.transaction.message.fee!, payer: ACCOUNT_2_ID } };
    const tx = nssaTransactionToBase64({
      kind: 'public',
      transaction: { message, witnesses: [signPublicMessage(message, KEY_1, 'prehash-v0.3')] },
    });
    expect(await client.sendTransaction(tx)).toMatchObject({
      kind: 'rpc-error',
      code: -31983,
      data: { UnauthorizedPayer: { payer: formatAccountId(ACCOUNT_2_ID) } },
    });
  });
});

describe('devnet --profile v0.2', () => {
  it('knows no getFeeState, is probed as v0.2, and refuses the lee-v0.3 layout', async () => {
    const { devnet: d, client } = await devnet({ profile: 'v0.2' });
    expect(await client.getFeeState()).toMatchObject({ kind: 'rpc-error', code: -32601 });
    expect(await probeProfile(client)).toMatchObject({ kind: 'detected', profile: 'v0.2' });
    const tx = transfer(d, { amount: 1n, nonce: 0n, fee: FEE });
    expect(await client.sendTransaction(tx.base64)).toMatchObject({ kind: 'rpc-error', code: -32602 });
  });

  it('discards, without an error, a transfer to an account never initialised', async () => {
    const { devnet: d, client } = await devnet({ profile: 'v0.2' });
    const tx = transfer(d, { to: FRESH, amount: 70n, nonce: 0n });
    expect(await client.sendTransaction(tx.base64)).toEqual({ kind: 'result', value: tx.hashHex });
    d.produceBlock();
    expect(await client.getTransaction(tx.hashHex)).toEqual({ kind: 'result', value: null });
    expect(await client.getAccountBalance(FRESH)).toEqual({ kind: 'result', value: 0n });
    expect(await client.getAccountBalance(ACCOUNT_1)).toEqual({ kind: 'result', value: 10_000n });
  });
});
