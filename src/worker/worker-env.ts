/**
 * What a Worker is given: the bindings wrangler.toml declares (D1, the Durable Object namespaces), and variables and
 * secrets under the same names as the Node gateway's environment (`LOGOS_A2A_*`, `PUBLIC_BASE_URL`), read by the
 * same schema (gateway/config.ts). What cannot work on Workers is refused here, before anything opens.
 */
import type { D1Database, DurableObjectNamespace } from '@cloudflare/workers-types/index.ts';
import { hexToBytes } from '@noble/hashes/utils.js';
import { ConfigError, loadConfig, type GatewayConfig, type GatewayConfigInput } from '../gateway/config.ts';

export interface WorkerEnv {
  /** The tasks (migrations/). */
  DB: D1Database;
  /** One TaskObject per task. */
  TASKS: DurableObjectNamespace;
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
  /** Signs the served cards (secret LOGOS_A2A_CARD_SIGNING_KEY, 64 hex); unsigned without it. */
  cardSigningKey?: Uint8Array;
}

const NWAKU_REST_NEEDED =
  'on Cloudflare Workers the Logos side goes through the REST API of a Waku node (nwaku, logos-delivery or `logos-a2a agent --rest-port`): set LOGOS_A2A_TRANSPORT = "nwaku-rest" and LOGOS_A2A_NWAKU_REST_URL in wrangler.toml [vars]';

/** The settings of the Worker; a ConfigError names what is wrong or cannot work here. */
export function workerSettings(env: WorkerEnv): WorkerSettings {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') strings[name] = value;
  if (strings.LOGOS_A2A_DATABASE) {
    throw new ConfigError('LOGOS_A2A_DATABASE: on Cloudflare Workers tasks live in D1 (the DB binding), not SQLite');
  }
  if (strings.LOGOS_A2A_PAYMENTS_RAIL && strings.LOGOS_A2A_PAYMENTS_RAIL !== 'none') {
    throw new ConfigError(
      'LOGOS_A2A_PAYMENTS_RAIL: payments are not available on Cloudflare Workers yet; priced skills are refused there (run the Node gateway to pay agents)',
    );
  }
  const config = loadConfig({ env: strings, overrides: { apiKeys: apiKeysOf(strings.LOGOS_A2A_API_KEYS) } });
  if (config.transport.kind !== 'nwaku-rest') throw new ConfigError(`LOGOS_A2A_TRANSPORT: ${NWAKU_REST_NEEDED}`);
  const signingKey = strings.LOGOS_A2A_CARD_SIGNING_KEY;
  if (signingKey !== undefined && !/^[0-9a-f]{64}$/i.test(signingKey)) {
    throw new ConfigError(
      'LOGOS_A2A_CARD_SIGNING_KEY: 64 hex digits (a P-256 secret key), set with wrangler secret put',
    );
  }
  return {
    config,
    nodeUrl: config.transport.url,
    pollIntervalMs: config.transport.pollIntervalMs,
    ...(signingKey ? { cardSigningKey: hexToBytes(signingKey) } : {}),
  };
}

/** LOGOS_A2A_API_KEYS (a secret): the `apiKeys` setting as JSON, which a Node gateway reads from its config file. */
function apiKeysOf(json: string | undefined): GatewayConfigInput['apiKeys'] {
  if (json === undefined) return [];
  try {
    return JSON.parse(json) as GatewayConfigInput['apiKeys'];
  } catch {
    throw new ConfigError('LOGOS_A2A_API_KEYS: JSON, an array of {"name", "key"} (the apiKeys setting)');
  }
}
