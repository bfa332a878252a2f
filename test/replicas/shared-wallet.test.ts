/**
 * Two gateway replicas on one PostgreSQL database paying agents from one wallet on the devnet, configured as an
 * operator would (the `lez` rail, the wallet's key file and passphrase): tasks sent to both at once are all paid,
 * once each, with the wallet's nonces taken in turn (src/store/postgres/payer-lock.ts), none dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import type { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { AGENT, devnetShop, saveWalletKeyFile, WALLET } from '../support/devnet-wallet.ts';
import { rpc } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

// WALLET has 10 000 at genesis; AGENT 20 000, initialised.
const PASSPHRASE = 'replicas share this wallet';

describe.skipIf(postgresAdminUrl === undefined)('two replicas paying from one wallet', () => {
  let dir: string;
  let database: TestDatabase;
  let devnet: Devnet;
  let agent: LogosAgent;
  const replicas: Gateway[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-shared-wallet-'));
    database = await createTestDatabase();
    devnet = await startDevnet({ blockIntervalMs: 200 });
    const walletKeyFile = join(dir, 'wallet.json');
    await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
    const network = new MemoryNetwork();
    agent = devnetShop(network, devnet.url, 10n);
    await agent.start();
    // The gateway reads the passphrase from its environment, as an operator gives it.
    process.env.LOGOS_A2A_WALLET_PASSPHRASE = PASSPHRASE;
    for (let i = 0; i < 2; i++) {
      const config = loadConfig({
        env: {},
        overrides: {
          port: 0,
          host: '127.0.0.1',
          database: database.url,
          cardSigningKeyFile: join(dir, 'card-signing.key'),
          agents: [],
          shutdownGraceMs: 500,
          transport: { kind: 'memory' },
          payments: { rail: 'lez', sequencerUrl: devnet.url, walletKeyFile },
        },
      });
      replicas.push(await startGateway(config, { network, agents: [agent], log: () => undefined }));
    }
  }, 60_000);

  afterAll(async () => {
    delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
    await Promise.all(replicas.map((replica) => replica.stop()));
    await agent?.stop();
    await devnet?.stop();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('pays every task once, whichever replica took it, with no nonce given twice', async () => {
    const dropped: string[] = [];
    devnet.onBlock((block) => dropped.push(...block.dropped.map((d) => d.hash)));
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        rpc(`${replicas[i % 2]!.url}/agents/shop`, 'SendMessage', {
          message: {
            messageId: `pay-${i}`,
            role: 'ROLE_USER',
            parts: [{ text: `${i}` }],
            metadata: { skill: 'quick' },
          },
        }),
      ),
    );
    const tasks = sent.map(({ body }) => body.result.task);
    expect(tasks.map((task) => task.status.state)).toEqual(tasks.map(() => 'TASK_STATE_COMPLETED'));
    expect(tasks.map((task) => task.metadata.lez.status)).toEqual(tasks.map(() => 'paid'));
    expect(new Set(tasks.map((task) => task.metadata.lez.txHash)).size).toBe(10);
    expect(dropped).toEqual([]);
    expect(devnet.nonce(WALLET.account)).toBe(10n);
    expect(devnet.balance(AGENT.account)).toBe(20_000n + 100n);
  });
});
