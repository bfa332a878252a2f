/**
 * kill -9 of the sequencer while payments are in flight: the devnet runs as its own process with its chain on disk
 * (`logos-a2a devnet --data DIR`), is killed at a random moment of a burst of payments, and comes back on the same
 * port having forgotten every earlier tx hash, as a real sequencer does. Whatever moment it died at, every payment
 * ends paid exactly once or failed with nothing moved, and the chain agrees with what the rail reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.ts';
import { DEVNET_GENESIS } from '../../../src/devnet/genesis.ts';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../../src/lez/keys.ts';
import { LezRail } from '../../../src/lez/rail/lez-rail.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';
import { cliEntry } from '../../cli/dist.ts';

const PAYER = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
const AGENT = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32));

const cleanups: (() => void)[] = [];
afterEach(() =>
  cleanups
    .splice(0)
    .reverse()
    .forEach((cleanup) => cleanup()),
);

/** `logos-a2a devnet` as a child process; resolves once it listens. */
async function devnetProcess(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cliEntry(), 'devnet', '--port', String(port), '--data', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the devnet did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ctrl-C')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
  return child;
}

it('a sequencer killed mid-burst: every payment paid once or failed, and the chain says the same', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-devnet-kill-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const first = await devnetProcess(port, dir);
  const url = `http://127.0.0.1:${port}`;
  const rail = new LezRail(
    { client: new SequencerClient({ url, timeoutMs: 5_000 }), payer: PAYER },
    {
      signingMode: 'prehash-v0.3',
      network: 'devnet',
      pollIntervalMs: 100,
      resubmitAfterMs: 2_000,
      inclusionTimeoutMs: 40_000,
    },
  );
  cleanups.push(() => rail.close());

  const amounts = Array.from({ length: 12 }, (_, i) => BigInt(i + 1));
  const outcomes = Promise.all(amounts.map((amount, i) => rail.pay({ paymentId: `p${i}`, to: AGENT.account, amount })));
  // Somewhere in the burst: before, during or after the first block of it.
  await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(Math.random() * 1_500)));
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  await devnetProcess(port, dir);

  const settled = await outcomes;
  const client = new SequencerClient({ url });
  const paidTotal = settled.reduce((sum, o, i) => (o.kind === 'paid' ? sum + amounts[i]! : sum), 0n);
  const paidCount = BigInt(settled.filter((o) => o.kind === 'paid').length);
  expect(settled.filter((o) => o.kind === 'in-doubt')).toEqual([]);
  expect(await client.getAccountBalance(PAYER.account)).toEqual({ kind: 'result', value: 10_000n - paidTotal });
  expect(await client.getAccountsNonces([PAYER.account])).toEqual({ kind: 'result', value: [paidCount] });
  console.info(`devnet killed mid-burst: ${paidCount} of ${amounts.length} paid, the rest failed with nothing moved`);
}, 90_000);
