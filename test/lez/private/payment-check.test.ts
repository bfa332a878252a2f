/**
 * The private payment check (docs/payments.md §10) against transactions a scripted sequencer returns: which
 * transactions pay an agent privately, and the reason given for each that does not.
 */
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import { DEVNET_GENESIS } from '../../../src/devnet/genesis.ts';
import { signingKeyFromSecretKey } from '../../../src/lez/keys.ts';
import { derivePrivateKeys } from '../../../src/lez/private-keys.ts';
import { checkPrivatePayment, privateFirst } from '../../../src/lez/private/payment-check.ts';
import { receiveKeys, type PrivateReceiveKeys } from '../../../src/lez/private/receive.ts';
import type { PrivacyPreservingTransaction } from '../../../src/lez/private/transaction.ts';
import {
  encodePrivacyPreservingTransaction,
  privacyPreservingMessageHash,
} from '../../../src/lez/private/transaction.ts';
import { schnorrSign } from '../../../src/lez/signing.ts';
import type { FetchedTransaction, RpcOutcome } from '../../../src/lez/sequencer-client.ts';
import { shieldedTransfer } from '../../support/shielded-transfer.ts';

const PAYER = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
const PROGRAM = [1, 2, 3, 4, 5, 6, 7, 8];
const keysFrom = (fill: number): PrivateReceiveKeys => {
  const node = derivePrivateKeys(new Uint8Array(64).fill(fill), [3]);
  return receiveKeys(node.nullifierSecretKey, node.viewingSecretKey);
};
const AGENT = keysFrom(1);
const HASH = 'ab'.repeat(32);

function paying(amount: bigint, keys = AGENT) {
  return shieldedTransfer({
    senderKey: PAYER.secretKey,
    sender: { programOwner: PROGRAM, balance: 1_000n, data: new Uint8Array(0), nonce: 4n },
    npk: keys.nullifierPublicKey,
    vpk: keys.viewingPublicKey,
    amount,
    transferProgram: PROGRAM,
  }).transaction;
}

/** A sequencer whose getTransaction answers `outcome`. */
const answering = (outcome: RpcOutcome<FetchedTransaction | null>) => ({ getTransaction: async () => outcome });
const holding = (tx: PrivacyPreservingTransaction) =>
  answering({
    kind: 'result',
    value: {
      bytes: new Uint8Array(0),
      transaction: { kind: 'privacy-preserving', body: encodePrivacyPreservingTransaction(tx) },
    },
  });
const check = (tx: PrivacyPreservingTransaction, amount = 10n, from = PAYER.account) =>
  checkPrivatePayment(holding(tx), HASH, AGENT, { from, amount });

describe('checking a private payment', () => {
  it('accepts a new private account of the agent holding at least the amount', async () => {
    expect(await check(paying(10n))).toMatchObject({
      kind: 'verified',
      note: { fresh: true, account: { balance: 10n } },
    });
    expect(await check(paying(12n))).toMatchObject({ kind: 'verified' });
  });

  it('refuses less, a note for other keys, another payer, and an update of an account the agent held', async () => {
    expect(await check(paying(9n))).toEqual({
      kind: 'rejected',
      message: `transaction ${HASH} pays 9 privately to this agent, not 10`,
    });
    expect(await check(paying(10n, keysFrom(2)))).toEqual({
      kind: 'rejected',
      message: `transaction ${HASH} holds no note for this agent's private keys`,
    });
    expect(await check(paying(10n), 10n, DEVNET_GENESIS[1].account)).toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/is not signed by/),
    });
    // The same note, but the transaction does not create the account: without its initialisation nullifier it is an
    // update, whose balance is not what this transaction paid.
    const tx = paying(10n);
    const message = { ...tx.message, newNullifiers: [] };
    const signature = schnorrSign(privacyPreservingMessageHash(message), PAYER.secretKey);
    const update = { ...tx, message, witnesses: [{ ...tx.witnesses[0]!, signature }] };
    expect(await check(update)).toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/only updates a private account this agent already holds/),
    });
  });

  it('refuses a transaction without a public payer, and one whose signature does not verify', async () => {
    const tx = paying(10n);
    expect(await check({ ...tx, witnesses: [] })).toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/no public payer/),
    });
    const forged = { ...tx, witnesses: [{ ...tx.witnesses[0]!, signature: new Uint8Array(64).fill(1) }] };
    expect(await check(forged)).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/does not verify/) });
  });

  it('cannot decide when the transaction is not included or the sequencer is away; leaves public ones to the rail', async () => {
    const agent = { from: PAYER.account, amount: 10n };
    expect(await checkPrivatePayment(answering({ kind: 'result', value: null }), HASH, AGENT, agent)).toMatchObject({
      kind: 'unconfirmed',
      message: expect.stringMatching(/not included/),
    });
    const away = answering({ kind: 'unreachable', message: 'connection refused', timedOut: false });
    expect(await checkPrivatePayment(away, HASH, AGENT, agent)).toMatchObject({ kind: 'unconfirmed' });
    const publicTx = answering({
      kind: 'result',
      value: {
        bytes: new Uint8Array(0),
        transaction: {
          kind: 'public',
          transaction: {
            message: { programId: PROGRAM, accountIds: [], nonces: [], instructionData: [] },
            witnesses: [],
          },
        },
      },
    });
    expect(await checkPrivatePayment(publicTx, HASH, AGENT, agent)).toEqual({ kind: 'not-private' });
    const checked: string[] = [];
    const check = privateFirst({ keys: AGENT, sequencer: publicTx }, async (txHash) => {
      checked.push(txHash);
      return { kind: 'verified' };
    });
    expect(await check(HASH, PAYER.account, '10')).toEqual({ kind: 'verified' });
    expect(checked).toEqual([HASH]);
  });
});
