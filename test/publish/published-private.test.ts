/**
 * A priced entry of the gateway's `published` setting with `privateMnemonicFile`, on the devnet: the publication
 * also takes shielded payments into the private account of the operator's wallet node /0 (docs/payments.md §10).
 * The caller's side of the binding is driven by hand, as a Logos caller paying with the official wallet would: a
 * shielded transfer of the price is taken and the HTTP agent called; a note to other keys is refused before it is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { generateMnemonic } from '../../src/lez/keys.ts';
import { paymentKeys, privatePayee, type PrivateReceiveKeys } from '../../src/lez/private/receive.ts';
import { walletPrivateNode } from '../../src/lez/private/wallet-node.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import {
  decodeAgentEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelope,
  type GatewayEnvelopeInput,
} from '../../src/logos/envelope.ts';
import { newStatusKey, statusKeyBytes } from '../../src/logos/status-key.ts';
import { MemoryNetwork, type MemoryTransport } from '../../src/logos/transports/memory.ts';
import { WALLET } from '../support/devnet-wallet.ts';
import { eventually } from '../support/eventually.ts';
import { startPricedPublication, type PricedPublication } from '../support/priced-publication.ts';
import { shieldedTransfer } from '../support/shielded-transfer.ts';

const PUBLISHED = 'agent:published-weather-desk';
const secrets = mkdtempSync(join(tmpdir(), 'logos-a2a-published-private-'));
const mnemonicFile = join(secrets, 'wallet-mnemonic.txt');
const mnemonic = generateMnemonic();
writeFileSync(mnemonicFile, mnemonic, { mode: 0o600 });
const node = walletPrivateNode(mnemonic);
if (!node.ok) throw new Error(node.reason);
const OPERATOR = node.keys;
const other = walletPrivateNode(mnemonic, '/1');
if (!other.ok) throw new Error(other.reason);

const network = new MemoryNetwork();
const lines: string[] = [];
let bed: PricedPublication;
let gateway: Gateway;
let caller: MemoryTransport;

beforeAll(async () => {
  bed = await startPricedPublication('published-private', { privateMnemonicFile: mnemonicFile });
  gateway = await startGateway(bed.config, { network, log: (line) => lines.push(line) });
  caller = network.node('caller');
  await caller.start();
}, 60_000);

afterAll(async () => {
  await caller?.stop();
  await gateway?.stop();
  await bed?.stop();
  rmSync(secrets, { recursive: true, force: true });
});

/** Pays 5 from WALLET into a new private account of `keys`, and waits for its block. */
async function payPrivately(keys: PrivateReceiveKeys): Promise<string> {
  const shielded = shieldedTransfer({
    senderKey: WALLET.secretKey,
    sender: bed.devnet.account(WALLET.account),
    npk: keys.nullifierPublicKey,
    vpk: keys.viewingPublicKey,
    amount: 5n,
    transferProgram: bed.devnet.programIds.authenticated_transfer,
  });
  const sent = await new SequencerClient({ url: bed.devnet.url }).sendTransaction(base64.encode(shielded.bytes));
  expect(sent).toEqual({ kind: 'result', value: shielded.hash });
  bed.devnet.produceBlock();
  return shielded.hash;
}

let n = 0;
/** A paid echo request naming `txHash` as a private payment to the operator's keys; its final reply. */
async function echo(txHash: string, text: string): Promise<AgentEnvelope> {
  const taskId = `published-private-${++n}`;
  const statusKey = newStatusKey();
  const replies: AgentEnvelope[] = [];
  caller.subscribe(
    taskStatusTopic(taskId),
    (payload) => {
      const decoded = decodeAgentEnvelope(payload);
      if (decoded.ok) replies.push(decoded.envelope);
    },
    { key: statusKeyBytes(statusKey) },
  );
  await caller.send(
    PUBLISHED,
    encodeEnvelope({
      v: 1,
      id: `${taskId}-request`,
      from: 'caller',
      to: PUBLISHED,
      status_key: statusKey,
      type: 'task_request',
      task_id: taskId,
      context_id: 'c',
      skill: 'echo',
      params: { text },
      lez_price: '5',
      payment: {
        rail: 'lez',
        tx_hash: txHash,
        from: WALLET.account,
        to: privatePayee(paymentKeys(OPERATOR)),
        amount: '5',
      },
    } as GatewayEnvelopeInput),
  );
  return eventually(() => replies.find((reply) => reply.type === 'task_result'), 60_000);
}

describe("a priced published entry with the operator's private account", () => {
  it('says where to pay privately, takes a shielded payment of the price, and refuses a note to other keys', async () => {
    const { npk, vpk } = paymentKeys(OPERATOR);
    expect(lines.join('\n')).toContain(`paid privately too, to the wallet's node /0: --to-npk ${npk} --to-vpk ${vpk}`);

    const done = await echo(await payPrivately(OPERATOR), 'hello');
    expect(done).toMatchObject({ state: 'completed' });
    const parts = done.type === 'task_result' ? (done.artifacts ?? []).flatMap((artifact) => artifact.parts) : [];
    expect(parts.map((part) => ('text' in part ? part.text : '')).join('')).toBe('echo: hello');
    expect(await echo(await payPrivately(other.keys), 'unpaid')).toMatchObject({
      state: 'rejected',
      error: { code: 'payment_invalid', message: expect.stringMatching(/no note for this agent's private keys/) },
    });
    expect(bed.http.output()).not.toMatch(/unpaid/);
  }, 120_000);

  it('refuses an entry whose private account is not priced, or whose mnemonic file is missing', async () => {
    const published = (entry: Record<string, unknown>) => () =>
      loadConfig({
        env: {},
        overrides: { payments: bed.config.payments, published: [{ url: bed.http.url, ...entry }] },
      });
    expect(published({ privateMnemonicFile: mnemonicFile })).toThrow(/private payments are for a priced publication/);
    expect(published({ prices: { echo: '5' }, privatePath: '/1' })).toThrow(/privateMnemonicFile: set it too/);
    const missing = {
      ...bed.config,
      published: [{ ...bed.config.published[0]!, privateMnemonicFile: join(secrets, 'none.txt') }],
    };
    await expect(startGateway(missing, { network: new MemoryNetwork(), log: () => undefined })).rejects.toThrow(
      /published\[0\]\.privateMnemonicFile: cannot read .*none\.txt \(ENOENT\)/,
    );
    // Private payments are read on the v0.2 profile only: on a sequencer with fees the start stops, saying so.
    const fees = await startDevnet({ blockIntervalMs: 0, profile: 'lee-v0.3' });
    try {
      const onFees = {
        ...bed.config,
        payments: { ...bed.config.payments, maxFee: '100000' },
        published: [{ ...bed.config.published[0]!, sequencerUrl: fees.url, privateMnemonicFile: mnemonicFile }],
      };
      await expect(startGateway(onFees, { network: new MemoryNetwork(), log: () => undefined })).rejects.toThrow(
        /published\[0\]\.privateMnemonicFile: private payments are read on the v0\.2 profile only; .* speaks lee-v0\.3/,
      );
    } finally {
      await fees.stop();
    }
  }, 60_000);
});
