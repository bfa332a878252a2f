/**
 * `logos-a2a publish URL --price SKILL=AMOUNT --sequencer URL`, as its own process on a gateway's Waku network, on
 * the devnet: the gateway pays the publication's card key account before the task reaches the HTTP agent, and a
 * task the HTTP agent fails is paid back; the money state is kept in DATA/published-ID-payments.db. Given the
 * operator's wallet mnemonic, it takes shielded payments into that wallet's first private node as well: it prints
 * those keys, and its card carries them (the runtime refuses to start otherwise), while public payments go on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { generateMnemonic, seedFromMnemonic } from '../../src/lez/keys.ts';
import { derivePrivateKeys } from '../../src/lez/private-keys.ts';
import { paymentKeys, receiveKeys } from '../../src/lez/private/receive.ts';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { cliEntry } from '../cli/dist.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { saveWalletKeyFile } from '../support/devnet-wallet.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

const PASSPHRASE = 'a priced publication';
let dir: string;
let devnet: Devnet;
let gateway: Gateway;
let http: HttpAgent;
let publisher: ChildProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-paid-publish-cli-'));
  devnet = await startDevnet({ blockIntervalMs: 200 });
  http = await startHttpAgent();
  const walletKeyFile = join(dir, 'wallet.json');
  await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
  process.env.LOGOS_A2A_WALLET_PASSPHRASE = PASSPHRASE;
  gateway = await startWakuGateway(dir, {
    overrides: { payments: { rail: 'lez', sequencerUrl: devnet.url, walletKeyFile } },
  });
}, 60_000);

afterAll(async () => {
  delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
  await stopChild(publisher);
  await gateway?.stop();
  await http?.stop();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('logos-a2a publish --price', () => {
  it('is paid for the priced skill on the sequencer, and pays back a task the HTTP agent fails', async () => {
    // Paid to a devnet genesis account: only an account the devnet knows can receive.
    const cardKeyFile = join(dir, 'desk.lez.key');
    writeFileSync(cardKeyFile, `${DEVNET_GENESIS[1].secretKeyHex}\n`);
    const mnemonic = generateMnemonic();
    const mnemonicFile = join(dir, 'wallet-mnemonic.txt');
    writeFileSync(mnemonicFile, mnemonic, { mode: 0o600 });
    const first = derivePrivateKeys(seedFromMnemonic(mnemonic), [0]);
    const { npk, vpk } = paymentKeys(receiveKeys(first.nullifierSecretKey, first.viewingSecretKey));
    const data = join(dir, 'publisher');
    publisher = spawn(
      process.execPath,
      [
        cliEntry(),
        'publish',
        http.url,
        '--peer',
        gateway.network.joinAddresses()[0]!,
        '--data',
        data,
        '--price',
        'echo=5',
        '--sequencer',
        devnet.url,
        '--card-key-file',
        cardKeyFile,
        '--private-mnemonic-file',
        mnemonicFile,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const printed = await untilPrinted(publisher, /Ctrl-C stops it/, 'logos-a2a publish', 60_000);
    expect(/is the Logos agent (\S+) at/.exec(printed.output)?.[1], printed.output).toBe('weather-desk');
    expect(printed.output).toContain(
      `paid privately to its wallet's private key node /0: --to-npk ${npk} --to-vpk ${vpk}`,
    );
    await eventually(async () => {
      const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as { agents: { id: string }[] };
      return agents.some((agent) => agent.id === 'weather-desk') ? true : undefined;
    }, 60_000);
    const client = await clientFor(`${gateway.url}/agents/weather-desk`);

    const done = (await client.sendMessage(textMessage('hello', { metadata: { skill: 'echo' } }))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.metadata?.lez).toMatchObject({ status: 'paid', amount: '5', payee: DEVNET_GENESIS[1].account });

    const failed = (await client.sendMessage(textMessage('fail', { metadata: { skill: 'echo' } }))) as Task;
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    await eventually(async () => {
      const task = await client.getTask(GetTaskRequest.fromJSON({ id: failed.id }));
      return (task.metadata?.lez as { status?: string } | undefined)?.status === 'refunded' ? true : undefined;
    }, 30_000);
    expect(existsSync(join(data, 'published-weather-desk-payments.db'))).toBe(true);
  }, 120_000);
});
