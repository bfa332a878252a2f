/**
 * The gateway wallet's payer at start (wallet-payer.ts) against devnets of each profile: the profile is probed and
 * stated in the logs; a configured profile the sequencer contradicts stops the start with one line; a sequencer with
 * fees and no fee cap configured gets the default cap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { ConfigError, GatewayConfig, loadConfig } from '../../src/gateway/config.ts';
import { detectProfile } from '../../src/gateway/payment-wiring.ts';
import { payerFromConfig } from '../../src/gateway/wallet-payer.ts';
import { DEFAULT_GAS_LIMIT, DEFAULT_MAX_BASE_FEE, feeReserve } from '../../src/lez/fees.ts';
import { feeTransferBytes } from '../../src/lez/native-transfer.ts';
import { saveWalletKeyFile, WALLET } from '../support/devnet-wallet.ts';
import { freePort } from '../support/free-port.ts';

let dir: string;
let keyFile: string;
let v02: Devnet;
let lee: Devnet;
const env = { LOGOS_A2A_WALLET_PASSPHRASE: 'correct horse' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-profile-'));
  keyFile = join(dir, 'wallet.json');
  await saveWalletKeyFile(keyFile, env.LOGOS_A2A_WALLET_PASSPHRASE);
  [v02, lee] = await Promise.all([
    startDevnet({ blockIntervalMs: 0, profile: 'v0.2' }),
    startDevnet({ blockIntervalMs: 0, profile: 'lee-v0.3' }),
  ]);
});
afterAll(async () => {
  await Promise.all([v02?.stop(), lee?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const payments = (sequencerUrl: string, extra: Record<string, unknown> = {}) =>
  GatewayConfig.parse({ payments: { rail: 'lez', sequencerUrl, walletKeyFile: keyFile, ...extra } }).payments;

describe('the payments profile at start', () => {
  it('is probed, logged and carried by the payer', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      const payer = await payerFromConfig(payments(lee.url, { maxFee: '5000' }), { env });
      expect(payer).toMatchObject({ rail: 'lez', account: WALLET.account, profile: 'lee-v0.3', feeCap: 5000n });
      expect(info.mock.calls.flat().join('\n')).toContain(
        `the sequencer at ${lee.url} speaks LEZ protocol profile lee-v0.3`,
      );
      expect(await payerFromConfig(payments(v02.url), { env })).toMatchObject({ profile: 'v0.2' });
      expect((await payerFromConfig(payments(v02.url), { env }))?.feeCap).toBeUndefined();
    } finally {
      info.mockRestore();
    }
  });

  it('a configured profile the sequencer contradicts stops the start with one line', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      const start = payerFromConfig(payments(v02.url, { profile: 'lee-v0.3', maxFee: '5000' }), { env });
      await expect(start).rejects.toThrow(ConfigError);
      await expect(start).rejects.toThrow(
        `payments.profile is "lee-v0.3", but the sequencer at ${v02.url} speaks v0.2 (it does not know getFeeState (-32601)); remove the setting or correct it.`,
      );
    } finally {
      info.mockRestore();
    }
  });

  it('a sequencer with fees and no payments.maxFee: the payer takes the default cap, the reserve at 8x the minimum base fees', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      const payer = await payerFromConfig(payments(lee.url), { env });
      const cap = feeReserve(
        { gasLimit: BigInt(DEFAULT_GAS_LIMIT), tip: 0n },
        feeTransferBytes(),
        DEFAULT_MAX_BASE_FEE,
        DEFAULT_MAX_BASE_FEE,
      );
      expect(payer).toMatchObject({ profile: 'lee-v0.3', feeCap: cap });
      expect(cap).toBe(64n * (200n + feeTransferBytes()));
      // A configured gas limit moves the default cap with it.
      expect((await payerFromConfig(payments(lee.url, { gasLimit: 1000 }), { env }))?.feeCap).toBe(
        64n * (1000n + feeTransferBytes()),
      );
    } finally {
      info.mockRestore();
    }
  });

  it('LOGOS_A2A_PAYMENTS_PROFILE, _MAX_FEE and _GAS_LIMIT set them; a profile that does not exist is refused', () => {
    const config = loadConfig({
      env: {
        LOGOS_A2A_PAYMENTS_PROFILE: 'lee-v0.3',
        LOGOS_A2A_PAYMENTS_MAX_FEE: '7000',
        LOGOS_A2A_PAYMENTS_GAS_LIMIT: '5000',
      },
    });
    expect(config.payments).toMatchObject({ profile: 'lee-v0.3', maxFee: '7000', gasLimit: 5000 });
    expect(() => loadConfig({ env: { LOGOS_A2A_PAYMENTS_PROFILE: 'v9' } })).toThrow(ConfigError);
  });
});

describe('a sequencer that does not answer at start', () => {
  it('is waited for: one coming up a moment later is probed (a start beside a restarting sequencer goes on)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const lines: string[] = [];
    const detected = detectProfile(url, undefined, (line) => lines.push(line), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const late = await startDevnet({ blockIntervalMs: 0, profile: 'lee-v0.3', port });
    try {
      expect(await detected).toBe('lee-v0.3');
      expect(lines[0]).toMatch(/does not answer .*waiting up to 20 s for it/);
    } finally {
      await late.stop();
    }
  });

  it('stops the start with one line once the wait is over', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await expect(detectProfile(url, undefined, () => undefined, 600)).rejects.toThrow(ConfigError);
    await expect(detectProfile(url, undefined, () => undefined, 0)).rejects.toThrow(
      /could not tell which LEZ protocol .* start it first, or set payments\.profile/,
    );
  });
});
