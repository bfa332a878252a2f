/** The Worker's settings (src/worker/worker-env.ts): the Node gateway's names, and what cannot work on Workers refused. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/gateway/config.ts';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { workerSettings, type WorkerEnv } from '../../src/worker/worker-env.ts';

const bindings = { DB: {}, TASKS: {}, DIRECTORY: {} } as unknown as WorkerEnv;
const env = (vars: Record<string, string>): WorkerEnv => ({ ...bindings, ...vars });
const NODE = { LOGOS_A2A_TRANSPORT: 'nwaku-rest', LOGOS_A2A_NWAKU_REST_URL: 'http://127.0.0.1:8645' };
const SEQUENCER = 'http://127.0.0.1:3040';
const [walletGenesis] = DEVNET_GENESIS;
const LEZ = {
  LOGOS_A2A_PAYMENTS_RAIL: 'lez',
  LOGOS_A2A_SEQUENCER_URL: SEQUENCER,
  LOGOS_A2A_WALLET_SECRET_KEY: walletGenesis.secretKeyHex,
};

describe('workerSettings', () => {
  it('reads the Node gateway variables, bindings aside', () => {
    const settings = workerSettings(
      env({ ...NODE, LOGOS_A2A_AGENT_TIMEOUT_MS: '1234', LOGOS_A2A_CARD_SIGNING_KEY: 'ab'.repeat(32) }),
    );
    expect(settings.nodeUrl).toBe('http://127.0.0.1:8645');
    expect(settings.config.agentTimeoutMs).toBe(1234);
    expect(settings.cardSigningKey).toHaveLength(32);
  });

  it('takes the API keys, which a Node gateway reads from its config file, from LOGOS_A2A_API_KEYS', () => {
    const keys = [{ name: 'alice', key: 'a-key-of-16-chars-or-more' }];
    expect(workerSettings(env({ ...NODE, LOGOS_A2A_API_KEYS: JSON.stringify(keys) })).config.apiKeys).toEqual(keys);
  });

  it('pays from the wallet whose secret key it is given, on the sequencer named; not at all by default', () => {
    const { payments } = workerSettings(env({ ...NODE, ...LEZ }));
    expect(payments?.sequencerUrl).toBe(SEQUENCER);
    expect(payments?.wallet.account).toBe(walletGenesis.account);
    expect(workerSettings(env(NODE)).payments).toBeUndefined();
    expect(workerSettings(env(NODE)).directoryIdleMs).toBe(600_000);
  });

  it('takes the spending limits, which a Node gateway reads from its config file, from LOGOS_A2A_PAYMENTS', () => {
    const limits = { perTransactionLimit: '7', perPeriodLimit: '70', periodMs: 60_000, approvalTimeoutMs: 5_000 };
    const { config } = workerSettings(env({ ...NODE, ...LEZ, LOGOS_A2A_PAYMENTS: JSON.stringify(limits) }));
    expect(config.payments).toMatchObject({ ...limits, rail: 'lez', sequencerUrl: SEQUENCER });
  });

  it("reads the fee settings under the Node gateway's variables over LOGOS_A2A_PAYMENTS (before: dropped)", () => {
    const { config } = workerSettings(
      env({
        ...NODE,
        ...LEZ,
        LOGOS_A2A_PAYMENTS: JSON.stringify({ perTransactionLimit: '7', maxFee: '1' }),
        LOGOS_A2A_PAYMENTS_PROFILE: 'lee-v0.3',
        LOGOS_A2A_PAYMENTS_MAX_FEE: '4000',
        LOGOS_A2A_PAYMENTS_GAS_LIMIT: '100',
      }),
    );
    expect(config.payments).toMatchObject({
      perTransactionLimit: '7',
      profile: 'lee-v0.3',
      maxFee: '4000',
      gasLimit: 100,
    });
  });

  it.each([
    [{}, /LOGOS_A2A_TRANSPORT: .*nwaku-rest/],
    [{ LOGOS_A2A_TRANSPORT: 'waku' }, /LOGOS_A2A_TRANSPORT: .*REST API of a Waku node/],
    [{ ...NODE, LOGOS_A2A_DATABASE: 'gateway.db' }, /D1/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_SEQUENCER_URL: '' }, /LOGOS_A2A_SEQUENCER_URL: .*required/],
    [{ ...NODE, LOGOS_A2A_PAYMENTS_RAIL: 'lez', LOGOS_A2A_SEQUENCER_URL: SEQUENCER }, /wrangler secret put/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_WALLET_SECRET_KEY: 'ab' }, /LOGOS_A2A_WALLET_SECRET_KEY: .*64 hex/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_WALLET_SECRET_KEY: '00'.repeat(32) }, /not a secp256k1 secret key/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_WALLET_KEY_FILE: 'wallet.json' }, /a Worker has no files/],
    [{ ...NODE, LOGOS_A2A_PAYMENTS_RAIL: 'memory' }, /"memory" is for tests/],
    [{ ...NODE, LOGOS_A2A_PAYMENTS: '{"rail": "memory"}' }, /"memory" is for tests/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_PAYMENTS: '{"perTransactionLimit": ' }, /LOGOS_A2A_PAYMENTS: JSON/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_PAYMENTS: '[]' }, /LOGOS_A2A_PAYMENTS: JSON, an object/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_PAYMENTS: '{"walletKeyFile": "w.json"}' }, /a Worker has no files/],
    [{ ...NODE, ...LEZ, LOGOS_A2A_PAYMENTS: '{"perPeriodLimit": "lots"}' }, /payments\.perPeriodLimit/],
    [{ ...NODE, LOGOS_A2A_DIRECTORY_IDLE_MS: '0' }, /LOGOS_A2A_DIRECTORY_IDLE_MS: milliseconds/],
    [{ ...NODE, LOGOS_A2A_CARD_SIGNING_KEY: 'not-hex' }, /LOGOS_A2A_CARD_SIGNING_KEY: 64 hex digits/],
    [{ ...NODE, LOGOS_A2A_AGENT_TIMEOUT_MS: 'soon' }, /agentTimeoutMs/],
    [{ ...NODE, LOGOS_A2A_API_KEYS: '[{"name": "a"' }, /LOGOS_A2A_API_KEYS: JSON/],
    [{ ...NODE, LOGOS_A2A_API_KEYS: '[{"name": "a", "key": "short"}]' }, /at least 16 characters/],
    [{ ...NODE, LOGOS_A2A_GRPC_PORT: '50051' }, /LOGOS_A2A_GRPC_PORT: gRPC is not offered on Cloudflare/],
    [{ ...NODE, LOGOS_A2A_PUBLISHED: 'https://agent.example/' }, /LOGOS_A2A_PUBLISHED: .*not offered on Cloudflare/],
  ])('refuses %j with a ConfigError naming the setting', (vars, message) => {
    expect(() => workerSettings(env(vars))).toThrow(ConfigError);
    expect(() => workerSettings(env(vars))).toThrow(message);
  });
});
