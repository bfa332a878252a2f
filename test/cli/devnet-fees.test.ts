/**
 * `logos-a2a devnet --profile lee-v0.3` as a process: the gateway settings it prints let a payer that follows them
 * pay from a genesis account, fee included, and an invalid --transfer-gas is a usage error.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS } from '../../src/devnet/devnet.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { LezRail } from '../../src/lez/rail/lez-rail.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { cliEntry } from './dist.ts';

const cli = cliEntry();
const children: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child)));
});

describe('logos-a2a devnet --profile lee-v0.3', () => {
  it('prints the gas limit and fee cap a payer needs, and a payment made with them goes through', async () => {
    const child = spawn(process.execPath, [cli, 'devnet', '--port', '0', '--profile', 'lee-v0.3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const { match, output } = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a devnet');
    expect(match, output).toBeDefined();
    const url = /sequencer \(protocol profile lee-v0\.3\) at (\S+)/.exec(output)?.[1];
    const settings = /LOGOS_A2A_PAYMENTS_GAS_LIMIT=(\d+) LOGOS_A2A_PAYMENTS_MAX_FEE=(\d+)/.exec(output);
    expect(url, output).toBeDefined();
    expect(settings, output).not.toBeNull();

    const payer = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
    const client = new SequencerClient({ url: url!, timeoutMs: 10_000, layout: 'lee-v0.3' });
    const rail = new LezRail(
      { client, payer },
      {
        network: 'devnet',
        signingMode: 'prehash-v0.3',
        profile: 'lee-v0.3',
        gasLimit: Number(settings![1]),
        maxFee: settings![2]!,
      },
    );
    try {
      const outcome = await rail.pay({ paymentId: 'task:1', to: DEVNET_GENESIS[1].account, amount: 25n });
      expect(outcome).toMatchObject({ kind: 'paid', receipt: { amount: '25' } });
      const balance = await rail.balance();
      if (balance.kind !== 'ok') throw new Error(`balance: ${JSON.stringify(balance)}`);
      // The price and a fee left the payer's 10,000: the fee was charged, and it was within the printed cap.
      const spent = 10_000n - BigInt(balance.balance);
      expect(spent).toBeGreaterThan(25n);
      expect(spent - 25n).toBeLessThanOrEqual(BigInt(settings![2]!));
    } finally {
      await rail.close();
    }
  }, 60_000);

  it('refuses a --transfer-gas that is no whole number (exit 2)', async () => {
    const child = spawn(process.execPath, [
      cli,
      'devnet',
      '--port',
      '0',
      '--profile',
      'lee-v0.3',
      '--transfer-gas',
      'x',
    ]);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--transfer-gas is a whole number of gas from 1, got "x"/);
  }, 30_000);
});
