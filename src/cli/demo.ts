/**
 * `logos-a2a demo`: everything on one machine. A local LEZ devnet in a process of its own, its chain on disk beside
 * the database (devnet-process.ts); the gateway paying from the first genesis account; the echo, conformance and paid agents, each on its own Waku relay node; an operator token for the
 * approvals of tasks above the spending limits; gRPC on DEMO_GRPC_PORT.
 */
import { randomBytes } from 'node:crypto';
import { loadConfig, type GatewayConfig } from '../gateway/config.ts';
import type { Gateway } from '../gateway/gateway.ts';
import { hexToBytes } from '../lez/bytes.ts';
import { DEVNET_GENESIS } from '../devnet/genesis.ts';
import { join } from 'node:path';
import { demoStateDir } from './demo-state-dir.ts';
import { spawnDevnet, type DevnetProcess } from './devnet-process.ts';
import { SqliteAgentPaymentStore } from '../store/sqlite/agent-payment-store.ts';
import { signingKeyFromSecretKey } from '../lez/keys.ts';
import { agentPayments, detectLezProtocol, gatewayPayer, lezRail } from '../gateway/payment-wiring.ts';
import { DEFAULT_PRICE_LIMITS } from '../lez/rail/spending-gate.ts';

export interface Demo {
  gateway: Gateway;
  /** What to print about payments and the operator token. */
  paymentsHelp: string;
  /** Stops the gateway (its HTTP server first, then its agents and its network node), then the devnet. */
  stop(): Promise<void>;
}

/** The demo's gRPC port when the settings name none: gRPC's customary one. */
export const DEMO_GRPC_PORT = 50051;

export interface DemoOptions {
  /** The devnet's port. Default: LOGOS_A2A_DEVNET_PORT, else 3040. */
  devnetPort?: number;
  /** Checks the loaded configuration before anything of the gateway starts (throws to refuse it). */
  checkConfig?: (config: GatewayConfig) => void;
}

export async function startDemo(configFile: string | undefined, options: DemoOptions = {}): Promise<Demo> {
  // The devnet's chain lives beside the database, so a restarted demo finds every payment it made.
  const stateDir = demoStateDir(loadConfig({ ...(configFile ? { file: configFile } : {}) }).database);
  const gatewayModule = import('../gateway/gateway.ts');
  const devnet = await whileDevnetStarts(
    spawnDevnet({
      port: options.devnetPort ?? Number(process.env.LOGOS_A2A_DEVNET_PORT ?? 3040),
      dataDir: stateDir === undefined ? undefined : join(stateDir, 'devnet'),
    }),
    // The gateway's modules load while the devnet's process starts: each takes about as long as the other, and one
    // after the other they were most of a cold start.
    gatewayModule,
  );
  let agentStore: SqliteAgentPaymentStore | undefined;
  try {
    const { startGateway } = await gatewayModule;
    const [walletGenesis, agentGenesis] = DEVNET_GENESIS;
    const wallet = signingKeyFromSecretKey(hexToBytes(walletGenesis.secretKeyHex));
    const agentKey = signingKeyFromSecretKey(hexToBytes(agentGenesis.secretKeyHex));
    const adminToken = process.env.LOGOS_A2A_ADMIN_TOKEN || randomBytes(18).toString('base64url');
    const config = loadConfig({
      ...(configFile ? { file: configFile } : {}),
      overrides: {
        agents: [{ builtin: 'echo' }, { builtin: 'conformance' }, { builtin: 'paid' }],
        defaultAgent: 'echo',
        adminToken,
        payments: { rail: 'lez', sequencerUrl: devnet.url },
        // A demo's webhook receiver runs on this machine: allow push notifications to private addresses.
        pushAllowPrivate: true,
      },
    });
    // gRPC too, on its usual port unless the settings name one.
    config.grpcPort ??= DEMO_GRPC_PORT;
    options.checkConfig?.(config);
    // Both rails as the gateway builds its own (payment-wiring.ts): the profile the devnet speaks, probed, with the
    // configured fee settings on one with fees.
    const { signingMode, protocol } = await detectLezProtocol(devnet.url, config.payments, () => undefined);
    // The paid agent's money state, beside its keys: what it took and owes survives a crash of the demo.
    agentStore = new SqliteAgentPaymentStore(
      stateDir === undefined ? ':memory:' : join(stateDir, 'agent-paid-payments.db'),
    );
    const gateway = await startGateway(config, {
      payer: gatewayPayer(lezRail(devnet.url, wallet, signingMode, undefined, protocol)),
      paidAgent: {
        payments: agentPayments(lezRail(devnet.url, agentKey, signingMode, undefined, protocol), agentStore),
        key: agentKey.secretKey,
      },
    });
    const balance = (account: string) =>
      `curl -s ${devnet.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"getAccountBalance","params":["${account}"]}'`;
    const paidCall = (skill: string, id: string) =>
      `curl -s ${gateway.url}/agents/paid -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \\\n    -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"${id}","role":"ROLE_USER","parts":[{"text":"hello"}],"metadata":{"skill":"${skill}"}}}}'`;
    const paymentsHelp = [
      '',
      `LEZ devnet:   ${devnet.url} (a block every second; its own process, the chain kept beside the database)`,
      `  gateway wallet ${wallet.account}, paid agent ${agentKey.account}`,
      `  spending limits: ${config.payments.perTransactionLimit ?? `${DEFAULT_PRICE_LIMITS.perTransaction} and its fee`} per task, ${config.payments.perPeriodLimit ?? `${DEFAULT_PRICE_LIMITS.perPeriod} and the fees`} per day`,
      'Paid tasks (the paid agent charges 5 per echo; premium costs 500 and waits for approval):',
      `  ${paidCall('echo', 'p1')}`,
      `  ${balance(agentKey.account)}`,
      `  ${paidCall('premium', 'p2')}`,
      `  curl -s -X POST ${gateway.url}/admin/approvals/TASK_ID/approve -H 'Authorization: Bearer ${adminToken}'`,
      '',
      // Made up at each start unless set: said here, or /metrics and /admin answer 401 with nothing to go on.
      `Operator token: ${adminToken} (for /admin and /metrics; LOGOS_A2A_ADMIN_TOKEN, 16 characters or more, sets it)`,
      `  curl -s ${gateway.url}/metrics -H 'Authorization: Bearer ${adminToken}'`,
      '',
    ].join('\n');
    return {
      gateway,
      paymentsHelp,
      async stop() {
        // The gateway first: it stops taking calls and returns those in flight with their task as it stands while
        // its agents and the devnet are still there; it then stops its agents and its Waku node. The devnet goes
        // last, even when stopping the gateway failed.
        try {
          await gateway.stop();
        } finally {
          agentStore?.close();
          await devnet.stop();
        }
      },
    };
  } catch (error) {
    agentStore?.close();
    await devnet.stop();
    throw error;
  }
}

/** The devnet once it listens and `loading` has loaded; a devnet already up when loading fails is stopped. */
async function whileDevnetStarts(devnet: Promise<DevnetProcess>, loading: Promise<unknown>): Promise<DevnetProcess> {
  const [started, loaded] = await Promise.allSettled([devnet, loading]);
  if (started.status === 'rejected') throw started.reason;
  if (loaded.status === 'rejected') {
    await started.value.stop();
    throw loaded.reason;
  }
  return started.value;
}
