/**
 * One database, two transports in turn: the directory entry an in-process agent left under one transport (memory:
 * `agent:echo`) must not shadow the same agent started under another (Waku: `waku:04…`). Before, every call to it
 * answered -32603 ("not a waku address") and the Waku agent never took its id back; nor may the entry of the same
 * agent under other keys. Run on SQLite and PostgreSQL; and with the Waku agent as a process of its own, as the
 * README's second PostgreSQL example runs it after the first.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type GatewayConfigInput } from '../../src/gateway/config.ts';
import { startGateway } from '../../src/gateway/gateway.ts';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { eventually, rpc } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const memory: GatewayConfigInput['transport'] = { kind: 'memory' };
/** Waku with its keys in `keys`: the in-process echo agent's address is a key kept there. */
const waku = (keys: string): GatewayConfigInput['transport'] => ({
  kind: 'waku',
  listen: ['/ip4/127.0.0.1/tcp/0'],
  keyFile: join(keys, 'gateway.key'),
});

/** Starts a gateway with the built-in echo agent on `database` over `transport`, asks it once, and stops it. */
async function echoOnce(database: string, transport: GatewayConfigInput['transport']) {
  const logged: string[] = [];
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database,
      agents: [{ builtin: 'echo' }],
      transport,
      agentTimeoutMs: 10_000,
    },
  });
  const gateway = await startGateway(config, { log: (message) => logged.push(message) });
  try {
    const answer = await rpc(`${gateway.url}/agents/echo`, 'SendMessage', {
      message: { messageId: `switch-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'still here' }] },
    });
    return { answer, logged };
  } finally {
    await gateway.stop();
  }
}

async function switchTransports(database: string, dir: string) {
  // The second Waku run has other keys, so its echo agent another address: it takes the id from the first one's.
  for (const transport of [memory, waku(join(dir, 'a')), waku(join(dir, 'b')), memory]) {
    const { answer, logged } = await echoOnce(database, transport);
    expect(answer.body.error, `${transport?.kind}: ${JSON.stringify(answer.body.error)} ${logged.join('\n')}`).toBe(
      undefined,
    );
    expect(answer.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(answer.body.result.task.artifacts)).toContain('still here');
  }
}

describe('a transport switched on one database', () => {
  it('SQLite: the live agent takes its id back from the entry the other transport left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-switch-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await switchTransports(join(dir, 'gateway.db'), dir);
  }, 60_000);

  it.skipIf(!postgresAdminUrl)(
    'PostgreSQL: the same',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-switch-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const database: TestDatabase = await createTestDatabase();
      cleanups.push(() => database.drop());
      await switchTransports(database.url, dir);
    },
    60_000,
  );
});

it('an agent of its own process takes the id an in-process agent of another transport left', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-switch-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const database = join(dir, 'gateway.db');
  await echoOnce(database, memory);
  const config = loadConfig({
    env: {},
    overrides: { port: 0, host: '127.0.0.1', database, agents: [], transport: waku(dir), agentTimeoutMs: 10_000 },
  });
  const gateway = await startGateway(config, { log: () => undefined });
  cleanups.push(() => gateway.stop());
  const agent = echoAgent(new WakuTransport({ staticPeers: gateway.network.joinAddresses() }), {
    discoveryTopic: DEFAULT_DISCOVERY_TOPIC,
    cardKey: randomBytes(32),
    announceEveryMs: 500,
  });
  await agent.start();
  cleanups.push(() => agent.stop());
  // Heard and registered: the entry the memory run left no longer holds the id.
  await eventually(() => (gateway.directory.get('echo')?.address.startsWith('waku:') ? true : undefined), 15_000);
  const { body } = await rpc(`${gateway.url}/agents/echo`, 'SendMessage', {
    message: { messageId: 'switch-own-process', role: 'ROLE_USER', parts: [{ text: 'over waku' }] },
  });
  expect(body.error).toBeUndefined();
  expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
}, 60_000);
