/**
 * LezRail.verify against a scripted sequencer (no HTTP): the transaction it returns is crafted here, so the
 * cases a real sequencer would never include (wrong signer, bad signature, another program) can be checked.
 */
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../../src/lez/keys.ts';
import { buildNativeTransfer } from '../../../src/lez/native-transfer.ts';
import { LezRail } from '../../../src/lez/rail/lez-rail.ts';
import type { SequencerApi } from '../../../src/lez/rail/sequencer-api.ts';
import type { FetchedTransaction, ProgramIds, RpcOutcome } from '../../../src/lez/sequencer-client.ts';
import { signPublicMessage } from '../../../src/lez/signing.ts';
import {
  encodeNssaTransaction,
  nativeTransferInstruction,
  publicTransactionHashHex,
  type PublicTransaction,
} from '../../../src/lez/transaction.ts';

const AUTH_TRANSFER = [11, 22, 33, 44, 55, 66, 77, 88];
const gateway = signingKeyFromSecretKey(hexToBytes('11'.repeat(32), 32));
const agent = signingKeyFromSecretKey(hexToBytes('22'.repeat(32), 32));
const mallory = signingKeyFromSecretKey(hexToBytes('33'.repeat(32), 32));

/** A sequencer that knows exactly the transactions handed to it. */
function scripted(transactions: PublicTransaction[]): SequencerApi {
  const byHash = new Map(transactions.map((tx) => [publicTransactionHashHex(tx), tx]));
  const unused = () => Promise.reject(new Error('not scripted'));
  return {
    url: 'http://sequencer.test',
    layout: 'v0.2',
    getProgramIds: async (): Promise<RpcOutcome<ProgramIds>> => ({
      kind: 'result',
      value: { authenticated_transfer: AUTH_TRANSFER },
    }),
    getTransaction: async (hash: string): Promise<RpcOutcome<FetchedTransaction | null>> => {
      const tx = byHash.get(hash);
      if (!tx) return { kind: 'result', value: null };
      return {
        kind: 'result',
        value: {
          bytes: encodeNssaTransaction({ kind: 'public', transaction: tx }),
          transaction: { kind: 'public', transaction: tx },
        },
      };
    },
    sendTransaction: unused,
    getAccount: unused,
    getAccountBalance: unused,
    getAccountsNonces: unused,
    // A chain with no blocks: the search for a hash the index does not know finds nothing.
    getLastBlockId: async () => ({ kind: 'result', value: 0n }),
    getBlockRange: unused,
    getFeeState: unused,
  };
}

function transfer(
  amount: bigint,
  options: { mode?: 'prehash-v0.3' | 'raw-borsh'; programId?: number[] } = {},
): PublicTransaction {
  const built = buildNativeTransfer({
    programId: options.programId ?? AUTH_TRANSFER,
    secretKey: gateway.secretKey,
    to: agent.accountId,
    amount,
    nonce: 3n,
    mode: options.mode ?? 'prehash-v0.3',
  });
  if (!built.ok) throw new Error(built.reason);
  return built.transaction;
}

/** Names the gateway as sender but is signed by someone else. */
function signedByMallory(): PublicTransaction {
  const message = {
    programId: AUTH_TRANSFER,
    accountIds: [gateway.accountId, agent.accountId],
    nonces: [3n],
    instructionData: nativeTransferInstruction(5n),
  };
  return { message, witnesses: [signPublicMessage(message, mallory.secretKey, 'prehash-v0.3')] };
}

function railFor(...transactions: PublicTransaction[]) {
  return new LezRail({ client: scripted(transactions), payer: gateway }, { signingMode: 'prehash-v0.3' });
}

describe('LezRail.verify: reading the included transaction (docs/lez.md §7.3)', () => {
  it('verifies a transfer and reports it as a §7d receipt', async () => {
    const tx = transfer(5n);
    const hash = publicTransactionHashHex(tx);
    expect(await railFor(tx).verify(hash, { from: gateway.account, to: agent.account, amount: '5' })).toEqual({
      kind: 'verified',
      receipt: {
        rail: 'lez',
        network: 'http://sequencer.test',
        txHash: hash,
        from: gateway.account,
        to: agent.account,
        amount: '5',
        nonce: '3',
        status: 'included',
      },
    });
  });

  it('rejects the wrong payee, payer and amount', async () => {
    const tx = transfer(5n);
    const rail = railFor(tx);
    const hash = publicTransactionHashHex(tx);
    expect(await rail.verify(hash, { to: mallory.account, amount: 5n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-payee',
    });
    expect(await rail.verify(hash, { from: mallory.account, to: agent.account, amount: 5n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-payer',
    });
    expect(await rail.verify(hash, { to: agent.account, amount: 6n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-amount',
    });
  });

  it('rejects a transfer not signed by its sender', async () => {
    const tx = signedByMallory();
    expect(await railFor(tx).verify(publicTransactionHashHex(tx), { to: agent.account, amount: 5n })).toMatchObject({
      kind: 'rejected',
      reason: 'wrong-signer',
    });
  });

  it('rejects a signature that does not verify in the configured mode', async () => {
    const tx = transfer(5n, { mode: 'raw-borsh' });
    expect(await railFor(tx).verify(publicTransactionHashHex(tx), { to: agent.account, amount: 5n })).toMatchObject({
      kind: 'rejected',
      reason: 'bad-signature',
    });
  });

  it('rejects a call of another program', async () => {
    const tx = transfer(5n, { programId: [1, 1, 1, 1, 1, 1, 1, 1] });
    expect(await railFor(tx).verify(publicTransactionHashHex(tx), { to: agent.account, amount: 5n })).toMatchObject({
      kind: 'rejected',
      reason: 'not-a-transfer',
    });
  });

  it('rejects a hash already accepted for another purpose', async () => {
    const tx = transfer(5n);
    const rail = railFor(tx);
    const hash = publicTransactionHashHex(tx);
    expect(await rail.verify(hash, { to: agent.account, amount: 5n, purpose: 'task:a' })).toMatchObject({
      kind: 'verified',
    });
    expect(await rail.verify(hash, { to: agent.account, amount: 5n, purpose: 'task:b' })).toMatchObject({
      kind: 'rejected',
      reason: 'reused',
    });
  });

  it('says "not included" for an unknown hash, and refuses bad expectations', async () => {
    const rail = railFor();
    expect(await rail.verify('00'.repeat(32), { to: agent.account, amount: 5n })).toMatchObject({
      kind: 'unconfirmed',
      reason: 'not-included',
    });
    expect(await rail.verify('00'.repeat(32), { to: 'not-an-account', amount: 5n })).toMatchObject({
      kind: 'rejected',
      reason: 'invalid-request',
    });
  });
});
