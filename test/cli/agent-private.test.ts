/**
 * `logos-a2a agent paid --private-mnemonic-file` as a process against `logos-a2a devnet` (docs/payments.md §10): the
 * operator gives the agent its LEZ wallet's mnemonic, the agent prints the keys of the wallet's first private node
 * (/0) and puts them on its card, and a task paid by a shielded transfer to those keys is done; one that pays too
 * little, or pays the same wallet's next node (/1, which the agent does not read), is refused. The test is the
 * caller: a Waku node of its own on 127.0.0.1, the agent's only peer, speaking the binding's task_request. On a
 * sequencer with fees (lee-v0.3), whose private transactions it cannot read, the agent does not start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { DEVNET_PROGRAM_IDS } from '../../src/devnet/programs.ts';
import { generateMnemonic, seedFromMnemonic } from '../../src/lez/keys.ts';
import { derivePrivateKeys } from '../../src/lez/private-keys.ts';
import { paymentKeys, privatePayee, receiveKeys, type PrivateReceiveKeys } from '../../src/lez/private/receive.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import {
  decodeAgentEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelope,
  type GatewayEnvelopeInput,
} from '../../src/logos/envelope.ts';
import { NETWORK_PRESETS } from '../../src/logos/network-presets.ts';
import { newStatusKey, statusKeyBytes } from '../../src/logos/status-key.ts';
import { generateWakuPrivateKey } from '../../src/logos/transports/waku/identity.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { WALLET } from '../support/devnet-wallet.ts';
import { eventually } from '../support/eventually.ts';
import { shieldedTransfer } from '../support/shielded-transfer.ts';
import { cliEntry } from './dist.ts';

/** The paid agent's echo skill. */
const PRICE = 5n;
const MNEMONIC = generateMnemonic();
const nodeKeys = (path: number[]): PrivateReceiveKeys => {
  const node = derivePrivateKeys(seedFromMnemonic(MNEMONIC), path);
  return receiveKeys(node.nullifierSecretKey, node.viewingSecretKey);
};
/** What the official wallet set up with MNEMONIC calls its first private account, and its second. */
const FIRST = nodeKeys([0]);
const SECOND = nodeKeys([1]);

let dir: string;
let devnet: ChildProcess | undefined;
let agent: ChildProcess | undefined;
let sequencer: SequencerClient;
let caller: WakuTransport;
let agentAddress: string;
let banner: string;
const cards: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-agent-private-'));
  const cli = cliEntry();
  devnet = spawn(process.execPath, [cli, 'devnet', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const devnetStarted = await untilPrinted(devnet, /Ctrl-C stops it/, 'logos-a2a devnet', 60_000);
  const url = /\(protocol profile v0\.2\) at (\S+)/.exec(devnetStarted.output)?.[1];
  if (!url) throw new Error(`the devnet did not start:\n${devnetStarted.output}`);
  sequencer = new SequencerClient({ url });

  const local = NETWORK_PRESETS.local;
  caller = new WakuTransport({
    privateKey: generateWakuPrivateKey(),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    staticPeers: [],
    clusterId: local.clusterId,
    numShardsInCluster: local.shards,
    maxMessageBytes: local.maxMessageBytes,
  });
  caller.subscribe(DEFAULT_DISCOVERY_TOPIC, (payload) => {
    try {
      cards.push(JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>);
    } catch {
      // not a card
    }
  });
  await caller.start();

  const mnemonicFile = join(dir, 'wallet-mnemonic.txt');
  writeFileSync(mnemonicFile, `${MNEMONIC}\n`, { mode: 0o600 });
  // The agent refunds publicly from its card key's account: the devnet's second, funded one.
  const cardKeyFile = join(dir, 'paid.lez.key');
  writeFileSync(cardKeyFile, `${DEVNET_GENESIS[1].secretKeyHex}\n`, { mode: 0o600 });
  agent = spawn(
    process.execPath,
    [
      cli,
      'agent',
      'paid',
      '--peer',
      caller.multiaddrs()[0]!,
      '--data',
      dir,
      '--card-key-file',
      cardKeyFile,
      '--sequencer',
      url,
      '--private-mnemonic-file',
      mnemonicFile,
      '--announce-every',
      '300',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const started = await untilPrinted(agent, /Ctrl-C stops it/, 'logos-a2a agent paid', 60_000);
  if (!started.match) throw new Error(`the paid agent did not start (exit ${started.code}):\n${started.output}`);
  banner = started.output;
  agentAddress = /logos-a2a agent paid: (\S+)/.exec(banner)![1]!;
}, 120_000);

afterAll(async () => {
  await stopChild(agent);
  await caller?.stop();
  await stopChild(devnet);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** Pays `amount` from the devnet's first account into a new private account of `keys`, and waits for its block. */
async function payPrivately(keys: PrivateReceiveKeys, amount: bigint): Promise<string> {
  const sender = await sequencer.getAccount(WALLET.account);
  if (sender.kind !== 'result') throw new Error(`getAccount: ${JSON.stringify(sender)}`);
  const shielded = shieldedTransfer({
    senderKey: WALLET.secretKey,
    sender: sender.value,
    npk: keys.nullifierPublicKey,
    vpk: keys.viewingPublicKey,
    amount,
    transferProgram: DEVNET_PROGRAM_IDS.authenticated_transfer,
  });
  expect(await sequencer.sendTransaction(base64.encode(shielded.bytes))).toEqual({
    kind: 'result',
    value: shielded.hash,
  });
  await eventually(async () => {
    const found = await sequencer.getTransaction(shielded.hash);
    return found.kind === 'result' && found.value ? true : undefined;
  }, 20_000);
  return shielded.hash;
}

let n = 0;
/**
 * Sends a task_request for the echo skill naming `txHash` as a private payment to the agent's first node, until a
 * final reply comes: the relay mesh between the two nodes may still be forming when the first one goes out.
 */
async function ask(txHash: string): Promise<AgentEnvelope> {
  const taskId = `private-cli-${++n}`;
  const statusKey = newStatusKey();
  const replies: AgentEnvelope[] = [];
  const unsubscribe = caller.subscribe(
    taskStatusTopic(taskId),
    (payload) => {
      const decoded = decodeAgentEnvelope(payload);
      if (decoded.ok) replies.push(decoded.envelope);
    },
    { key: statusKeyBytes(statusKey) },
  );
  const request = encodeEnvelope({
    v: 1,
    id: `${taskId}-request`,
    from: caller.address,
    to: agentAddress,
    status_key: statusKey,
    type: 'task_request',
    task_id: taskId,
    context_id: 'c',
    skill: 'echo',
    params: { text: 'hello' },
    lez_price: `${PRICE}`,
    payment: {
      rail: 'lez',
      tx_hash: txHash,
      from: WALLET.account,
      to: privatePayee(paymentKeys(FIRST)),
      amount: `${PRICE}`,
    },
  } as GatewayEnvelopeInput);
  const final = () => replies.find((reply) => reply.type === 'task_result' || reply.type === 'cancelled');
  try {
    // Sent again only while nothing at all came back: once the agent answers, it has the request.
    for (let attempt = 0; replies.length === 0; attempt++) {
      if (attempt === 12) throw new Error(`the agent never answered ${taskId}`);
      await caller.send(agentAddress, request);
      await eventually(() => (replies.length > 0 ? true : undefined), 5_000).catch(() => undefined);
    }
    return await eventually(final, 60_000);
  } finally {
    unsubscribe();
  }
}

describe('a paid agent process taking private payments', { timeout: 120_000 }, () => {
  it("prints its wallet's first private node's keys, and its card carries them", async () => {
    const { npk, vpk } = paymentKeys(FIRST);
    expect(banner).toContain(`paid privately to its wallet's private key node /0: --to-npk ${npk} --to-vpk ${vpk}`);
    // The card on the discovery topic: the public account it refunds from, and the private keys payers send to.
    const card = await eventually(() => cards.find((c) => c.id === 'paid'), 30_000);
    expect(card['x-lez-identity']).toEqual({ account_id: DEVNET_GENESIS[1].account, private: { npk, vpk } });
  });

  it('does a task paid by a shielded transfer of its price to those keys', async () => {
    const reply = await ask(await payPrivately(FIRST, PRICE));
    expect(reply).toMatchObject({ type: 'task_result', state: 'completed', result: 'hello' });
  });

  it('refuses one that pays too little, and one that pays the wallet’s next private node', async () => {
    const short = await ask(await payPrivately(FIRST, PRICE - 1n));
    expect(short).toMatchObject({
      state: 'rejected',
      error: { code: 'payment_invalid', message: expect.stringMatching(/pays 4 privately to this agent, not 5/) },
    });
    const elsewhere = await ask(await payPrivately(SECOND, PRICE));
    expect(elsewhere).toMatchObject({
      state: 'rejected',
      error: { code: 'payment_invalid', message: expect.stringMatching(/no note for this agent's private keys/) },
    });
  });

  it('does not start on a sequencer with fees, whose private transactions it cannot read', async () => {
    const fees = await startDevnet({ profile: 'lee-v0.3' });
    try {
      const child = spawn(
        process.execPath,
        [
          cliEntry(),
          'agent',
          'paid',
          '--data',
          join(dir, 'on-fees'),
          '--sequencer',
          fees.url,
          '--peer',
          caller.multiaddrs()[0]!,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOGOS_A2A_PRIVATE_MNEMONIC: MNEMONIC } },
      );
      const ended = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a agent paid', 60_000);
      await stopChild(child);
      expect(ended.match, ended.output).toBeUndefined();
      expect(ended.code).not.toBe(0);
      expect(ended.output).toContain(
        `private payments are read on a v0.2 sequencer only, and ${fees.url} speaks lee-v0.3`,
      );
    } finally {
      await fees.stop();
    }
  });
});
