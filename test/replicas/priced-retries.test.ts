/**
 * One task and one payment per priced message, however many times it is sent at once: several distinct priced
 * messages, each sent five times together (the same message id: a client's retries), to one gateway on SQLite, one
 * on PostgreSQL, and three replicas on one PostgreSQL database that all pay from one wallet on the devnet. The
 * payments are counted on the chain, block by block, not in the gateway's records; every retry must be answered
 * with the task its first send created.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListTasksRequest, TaskState, type Task } from '@a2a-js/sdk';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';
import type { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { transfersBetween } from '../support/chain-transfers.ts';
import { AGENT, devnetShop, saveWalletKeyFile, WALLET } from '../support/devnet-wallet.ts';
import { clientFor, textMessage } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const PRICE = 5n;
const MESSAGES = 6;
const COPIES = 5;
const PASSPHRASE = 'identical priced sends';

const scenarios = [
  { name: 'one gateway on SQLite', postgres: false, replicas: 1 },
  { name: 'one gateway on PostgreSQL', postgres: true, replicas: 1 },
  { name: 'three replicas on one PostgreSQL database', postgres: true, replicas: 3 },
];

for (const { name, postgres, replicas } of scenarios)
  describe.skipIf(postgres && postgresAdminUrl === undefined)(`identical priced messages sent at once: ${name}`, () => {
    let dir: string;
    let database: TestDatabase | undefined;
    let devnet: Devnet;
    let agent: LogosAgent;
    const gateways: Gateway[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'logos-a2a-priced-retries-'));
      if (postgres) database = await createTestDatabase();
      devnet = await startDevnet({ blockIntervalMs: 200 });
      const walletKeyFile = join(dir, 'wallet.json');
      await saveWalletKeyFile(walletKeyFile, PASSPHRASE);
      const network = new MemoryNetwork();
      agent = devnetShop(network, devnet.url, PRICE);
      await agent.start();
      // The gateway reads the passphrase from its environment, as an operator gives it.
      process.env.LOGOS_A2A_WALLET_PASSPHRASE = PASSPHRASE;
      for (let i = 0; i < replicas; i++) {
        const config = loadConfig({
          env: {},
          overrides: {
            port: 0,
            host: '127.0.0.1',
            database: database?.url ?? join(dir, 'gateway.db'),
            cardSigningKeyFile: join(dir, 'card-signing.key'),
            agents: [],
            shutdownGraceMs: 500,
            transport: { kind: 'memory' },
            payments: { rail: 'lez', sequencerUrl: devnet.url, walletKeyFile },
          },
        });
        gateways.push(await startGateway(config, { network, agents: [agent], log: () => undefined }));
      }
    }, 60_000);

    afterAll(async () => {
      delete process.env.LOGOS_A2A_WALLET_PASSPHRASE;
      await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
      await agent?.stop();
      await devnet?.stop();
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it(`creates one task and pays once per message, and answers every retry with that task`, async () => {
      const clients = await Promise.all(gateways.map((gateway) => clientFor(`${gateway.url}/agents/shop`)));
      const agentBefore = devnet.balance(AGENT.account);
      // Every copy of every message at once; a message's copies spread over the replicas, as a load balancer would.
      const answers = await Promise.all(
        Array.from({ length: MESSAGES }, (_, message) =>
          Promise.all(
            Array.from({ length: COPIES }, async (_, copy) => {
              const client = clients[(message * COPIES + copy) % clients.length]!;
              const request = textMessage(`order ${message}`, {
                messageId: `order-${message}`,
                metadata: { skill: 'quick' },
              });
              return (await client.sendMessage(request)) as Task;
            }),
          ),
        ),
      );

      for (const [message, copies] of answers.entries()) {
        const first = copies[0]!;
        expect(first.status?.state, `message ${message}`).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(first.metadata?.lez, `message ${message}`).toMatchObject({ status: 'paid', amount: PRICE.toString() });
        // Each retry: the task the first send created, as it ended.
        expect(
          copies.map((task) => task.id),
          `message ${message}`,
        ).toEqual(copies.map(() => first.id));
        expect(copies.map((task) => task.status?.state)).toEqual(copies.map(() => TaskState.TASK_STATE_COMPLETED));
      }
      const taskIds = answers.map((copies) => copies[0]!.id);
      expect(new Set(taskIds).size).toBe(MESSAGES);
      // The gateway holds no other task (none created and then abandoned by a losing send).
      for (const client of clients) {
        const listed = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }));
        expect(listed.tasks.map((task) => task.id).sort()).toEqual([...taskIds].sort());
      }

      // The chain: one transfer of the price per message, each the one its task's receipt names, and nothing else.
      const transfers = await transfersBetween(
        new SequencerClient({ url: devnet.url, timeoutMs: 5_000 }),
        WALLET.account,
        AGENT.account,
      );
      expect(transfers.map((transfer) => transfer.amount)).toEqual(taskIds.map(() => PRICE));
      expect(transfers.map((transfer) => transfer.hash).sort()).toEqual(
        answers.map((copies) => (copies[0]!.metadata!.lez as { txHash: string }).txHash).sort(),
      );
      expect(devnet.balance(AGENT.account)).toBe(agentBefore + PRICE * BigInt(MESSAGES));
    }, 60_000);
  });
