/** Starting the gateway: what the configuration alone gets wrong is a ConfigError before anything opens. */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { ConfigError, loadConfig, type GatewayConfigInput } from '../../src/gateway/config.ts';
import { startGateway } from '../../src/gateway/gateway.ts';

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

async function refusedBeforeOpening(overrides: GatewayConfigInput, message: RegExp) {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-start-'));
  const database = join(dir, 'data', 'gateway.db');
  const port = await freePort();
  const config = loadConfig({ env: {}, overrides: { port, database, transport: { kind: 'memory' }, ...overrides } });
  const failure = await startGateway(config, { log: () => undefined }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ConfigError);
  expect((failure as Error).message).toMatch(message);
  // Nothing was opened: no database file, and the port is still free.
  expect(existsSync(database)).toBe(false);
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, '127.0.0.1', resolve));
  await new Promise((resolve) => probe.close(resolve));
}

it('the built-in paid agent outside the demo', async () => {
  await refusedBeforeOpening({ agents: [{ builtin: 'paid' }] }, /"paid" agent needs a LEZ account/);
});

it('the lez rail without a wallet passphrase', async () => {
  await refusedBeforeOpening(
    { payments: { rail: 'lez', sequencerUrl: 'http://127.0.0.1:9/' } },
    /LOGOS_A2A_WALLET_PASSPHRASE/,
  );
});
