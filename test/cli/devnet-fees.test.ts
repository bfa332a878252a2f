/**
 * `logos-a2a devnet --profile lee-v0.3` as a process: at its default --transfer-gas a payer needs no settings (a rail's
 * defaults pay from a genesis account, fee included), above the default gas limit it prints the one a payer needs,
 * and an invalid --transfer-gas is a usage error.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVNET_GENESIS } from '../../src/devnet/devnet.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { DEFAULT_GAS_LIMIT } from '../../src/lez/fees.ts';
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
  it("says a payer needs no settings, and a payment with a rail's defaults goes through", async () => {
    const child = spawn(process.execPath, [cli, 'devnet', '--port', '0', '--profile', 'lee-v0.3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const { match, output } = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a devnet');
    expect(match, output).toBeDefined();
    const url = /sequencer \(protocol profile lee-v0\.3\) at (\S+)/.exec(output)?.[1];
    expect(url, output).toBeDefined();
    expect(output).toContain(
      `Paying here (fees on): no settings needed; a payer's default gas limit (${DEFAULT_GAS_LIMIT}) covers a transfer, metered at 100 gas`,
    );
    expect(output).not.toContain('LOGOS_A2A_PAYMENTS_');

    const payer = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
    const client = new SequencerClient({ url: url!, timeoutMs: 10_000, layout: 'lee-v0.3' });
    const rail = new LezRail(
      { client, payer },
      { network: 'devnet', signingMode: 'prehash-v0.3', profile: 'lee-v0.3' },
    );
    try {
      const outcome = await rail.pay({ paymentId: 'task:1', to: DEVNET_GENESIS[1].account, amount: 25n });
      expect(outcome).toMatchObject({ kind: 'paid', receipt: { amount: '25' } });
      const balance = await rail.balance();
      if (balance.kind !== 'ok') throw new Error(`balance: ${JSON.stringify(balance)}`);
      // The price and a fee left the payer's 10,000: the fee was charged, and it was within the default cap.
      const spent = 10_000n - BigInt(balance.balance);
      expect(spent).toBeGreaterThan(25n);
      expect(spent - 25n).toBeLessThanOrEqual(rail.feeCap!);
    } finally {
      await rail.close();
    }
  }, 60_000);

  it('above the default gas limit, prints the one setting a payer needs', async () => {
    const child = spawn(
      process.execPath,
      [cli, 'devnet', '--port', '0', '--profile', 'lee-v0.3', '--transfer-gas', '300'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    const { match, output } = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a devnet');
    expect(match, output).toBeDefined();
    expect(output).toContain('Paying here (fees on): LOGOS_A2A_PAYMENTS_GAS_LIMIT=300\n');
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
