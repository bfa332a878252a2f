/**
 * What a Worker is given: the bindings wrangler.toml declares (D1, the Durable Object namespaces), and variables and
 * secrets under the same names as the Node gateway's environment (`LOGOS_A2A_*`, `PUBLIC_BASE_URL`), read by the
 * same schema (gateway/config.ts). What cannot work on Workers is refused here, before anything opens.
 */
import type { D1Database, DurableObjectNamespace } from '@cloudflare/workers-types/index.ts';
import { hexToBytes } from '@noble/hashes/utils.js';
import { signingKeyFromSecretKey, type SigningKey } from '../lez/keys.ts';
import {
  ConfigError,
  loadConfig,
  paymentsEnvironment,
  type GatewayConfig,
  type GatewayConfigInput,
} from '../gateway/config.ts';

export interface WorkerEnv {
  /** The tasks (migrations/). */
  DB: D1Database;
  /** One TaskObject per task. */
  TASKS: DurableObjectNamespace;
  /** The one WalletObject: the only signer of the wallet's payments. */
  WALLET: DurableObjectNamespace;
  /** The one DirectoryObject: the agents heard on the discovery topic. */
  DIRECTORY: DurableObjectNamespace;
  [variable: string]: unknown;
}

export interface WorkerSettings {
  config: GatewayConfig;
  /** The nwaku REST API every object of the Worker reaches Logos Messaging through. */
  nodeUrl: string;
  /** How often an object with something to hear polls the node (its alarm). */
  pollIntervalMs: number;
  /** The directory stops polling once unread this long (LOGOS_A2A_DIRECTORY_IDLE_MS; default 10 min). */
  directoryIdleMs: number;
  /** Signs the served cards (secret LOGOS_A2A_CARD_SIGNING_KEY, 64 hex); unsigned without it. */
  cardSigningKey?: Uint8Array;
  /** Paying agents on LEZ (LOGOS_A2A_PAYMENTS_RAIL = "lez"); priced skills are refused without it. */
  payments?: WorkerPayments;
}

export interface WorkerPayments {
  sequencerUrl: string;
  /** The gateway wallet (secret LOGOS_A2A_WALLET_SECRET_KEY, 64 hex): only the WalletObject signs with it. */
  wallet: SigningKey;
}

const NWAKU_REST_NEEDED =
  'on Cloudflare Workers the Logos side goes through the REST API of a Waku node (nwaku, logos-delivery or `logos-a2a agent --rest-port`): set LOGOS_A2A_TRANSPORT = "nwaku-rest" and LOGOS_A2A_NWAKU_REST_URL in wrangler.toml [vars]';

/** Settings read per environment object, not per request: reading them parses the config and derives a key. */
const settingsOf = new WeakMap<WorkerEnv, WorkerSettings | ConfigError>();

/** The settings of the Worker; a ConfigError names what is wrong or cannot work here. */
export function workerSettings(env: WorkerEnv): WorkerSettings {
  let settings = settingsOf.get(env);
  if (!settings) {
    try {
      settings = readSettings(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      settings = error;
    }
    settingsOf.set(env, settings);
  }
  if (settings instanceof ConfigError) throw settings;
  return settings;
}

function readSettings(env: WorkerEnv): WorkerSettings {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') strings[name] = value;
  if (strings.LOGOS_A2A_DATABASE) {
    throw new ConfigError('LOGOS_A2A_DATABASE: on Cloudflare Workers tasks live in D1 (the DB binding), not SQLite');
  }
  if (strings.LOGOS_A2A_WALLET_KEY_FILE || strings.LOGOS_A2A_WALLET_PASSPHRASE) {
    throw new ConfigError(`LOGOS_A2A_WALLET_KEY_FILE: a Worker has no files; ${WALLET_SECRET_NEEDED}`);
  }
  const config = loadConfig({
    env: strings,
    overrides: { apiKeys: apiKeysOf(strings.LOGOS_A2A_API_KEYS), payments: paymentsSettingOf(strings) },
  });
  if (config.transport.kind !== 'nwaku-rest') throw new ConfigError(`LOGOS_A2A_TRANSPORT: ${NWAKU_REST_NEEDED}`);
  if (config.grpcPort !== undefined) {
    throw new ConfigError('LOGOS_A2A_GRPC_PORT: gRPC is not offered on Cloudflare Workers (their cards list none)');
  }
  if (config.published.length > 0) {
    // A publication is a Logos agent with a node and a task store of its own: a process, not a request handler.
    throw new ConfigError(
      'LOGOS_A2A_PUBLISHED: publishing an HTTP agent on Logos is not offered on Cloudflare Workers; run logos-a2a publish',
    );
  }
  if (config.payments.rail === 'memory') {
    throw new ConfigError('LOGOS_A2A_PAYMENTS_RAIL: "memory" is for tests; use "lez" or "none"');
  }
  const signingKey = strings.LOGOS_A2A_CARD_SIGNING_KEY;
  if (signingKey !== undefined && !/^[0-9a-f]{64}$/i.test(signingKey)) {
    throw new ConfigError(
      'LOGOS_A2A_CARD_SIGNING_KEY: 64 hex digits (a P-256 secret key), set with wrangler secret put',
    );
  }
  const payments = config.payments.rail === 'lez' ? paymentsOf(config, strings.LOGOS_A2A_WALLET_SECRET_KEY) : undefined;
  return {
    config,
    nodeUrl: config.transport.url,
    pollIntervalMs: config.transport.pollIntervalMs,
    directoryIdleMs: directoryIdleMsOf(strings.LOGOS_A2A_DIRECTORY_IDLE_MS),
    ...(signingKey ? { cardSigningKey: hexToBytes(signingKey) } : {}),
    ...(payments ? { payments } : {}),
  };
}

const WALLET_SECRET_NEEDED =
  "put the wallet's secret key (64 hex digits: logos-a2a keys import --secret-key-file takes the same) with `wrangler secret put LOGOS_A2A_WALLET_SECRET_KEY`";

function paymentsOf(config: GatewayConfig, walletSecretKey: string | undefined): WorkerPayments {
  const sequencerUrl = config.payments.sequencerUrl;
  if (!sequencerUrl) throw new ConfigError('LOGOS_A2A_SEQUENCER_URL: the LEZ sequencer is required with the lez rail');
  if (walletSecretKey === undefined || !/^[0-9a-f]{64}$/i.test(walletSecretKey)) {
    throw new ConfigError(`LOGOS_A2A_WALLET_SECRET_KEY: ${WALLET_SECRET_NEEDED}`);
  }
  try {
    return { sequencerUrl, wallet: signingKeyFromSecretKey(hexToBytes(walletSecretKey)) };
  } catch {
    throw new ConfigError('LOGOS_A2A_WALLET_SECRET_KEY: not a secp256k1 secret key (zero, or not below the order)');
  }
}

function directoryIdleMsOf(text: string | undefined): number {
  if (text === undefined) return 600_000;
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new ConfigError(`LOGOS_A2A_DIRECTORY_IDLE_MS: milliseconds, a whole number above 0, got "${text}"`);
  }
  return ms;
}

/** LOGOS_A2A_API_KEYS (a secret): the `apiKeys` setting as JSON, which a Node gateway reads from its config file. */
function apiKeysOf(json: string | undefined): GatewayConfigInput['apiKeys'] {
  if (json === undefined) return [];
  return jsonSetting<GatewayConfigInput['apiKeys']>(
    json,
    'LOGOS_A2A_API_KEYS',
    'an array of {"name", "key"} (the apiKeys setting)',
  );
}

/**
 * LOGOS_A2A_PAYMENTS: the `payments` setting as JSON (the spending limits, the approval timeout, the signing mode),
 * which a Node gateway reads from its config file; the Node gateway's payment variables over it
 * (LOGOS_A2A_PAYMENTS_RAIL, LOGOS_A2A_SEQUENCER_URL, LOGOS_A2A_PAYMENTS_MAX_FEE…), as loadConfig puts them over the
 * file: this setting replaces what loadConfig read from them.
 */
function paymentsSettingOf(strings: Record<string, string>): GatewayConfigInput['payments'] {
  const json = strings.LOGOS_A2A_PAYMENTS;
  const setting =
    json === undefined
      ? {}
      : jsonSetting<Record<string, unknown>>(json, 'LOGOS_A2A_PAYMENTS', 'an object (the payments setting)');
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) {
    throw new ConfigError('LOGOS_A2A_PAYMENTS: JSON, an object (the payments setting)');
  }
  if ('walletKeyFile' in setting)
    throw new ConfigError(`LOGOS_A2A_PAYMENTS: a Worker has no files; ${WALLET_SECRET_NEEDED}`);
  return (paymentsEnvironment(strings, setting) ?? setting) as GatewayConfigInput['payments'];
}

function jsonSetting<T>(json: string, name: string, shape: string): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    throw new ConfigError(`${name}: JSON, ${shape}`);
  }
}
