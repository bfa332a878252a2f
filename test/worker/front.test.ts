/**
 * The front Worker's answers that need neither wrangler nor a node (src/worker/front.ts, worker-app.ts): a setting
 * that cannot work is a clear refusal, logged once, that leaks no secret; a Worker without a card-signing key serves
 * an empty key set.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentDirectory } from '../../src/logos/directory.ts';
import { NwakuRestTransport } from '../../src/logos/transports/nwaku-rest.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';
import { serveRequest } from '../../src/worker/front.ts';
import { workerApp } from '../../src/worker/worker-app.ts';
import { workerSettings, type WorkerEnv } from '../../src/worker/worker-env.ts';

const NODE = { LOGOS_A2A_TRANSPORT: 'nwaku-rest', LOGOS_A2A_NWAKU_REST_URL: 'http://127.0.0.1:8645' };
const env = (vars: Record<string, string>) => ({ DB: {}, TASKS: {}, DIRECTORY: {}, ...vars }) as unknown as WorkerEnv;

afterEach(() => vi.restoreAllMocks());

describe('a Worker whose settings cannot work', () => {
  it('an admin token under 16 characters: 500 saying what to change, logged once, the token nowhere', async () => {
    const token = 'fourteen-chars';
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const misconfigured = env({ ...NODE, LOGOS_A2A_ADMIN_TOKEN: token });
    for (const path of ['/livez', '/.well-known/agent-card.json', '/admin/approvals']) {
      const response = await serveRequest(new Request(`http://127.0.0.1${path}`), misconfigured);
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text).error.message).toBe(
        'The gateway is misconfigured: adminToken (env LOGOS_A2A_ADMIN_TOKEN): at least 16 characters. Its operator fixes that in wrangler.toml [vars] or with wrangler secret put.',
      );
      expect(text).not.toContain(token);
    }
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0]![0])).toMatch(/LOGOS_A2A_ADMIN_TOKEN\): at least 16 characters/);
    expect(JSON.stringify(logged.mock.calls)).not.toContain(token);
  });
});

describe('the JWKS of a Worker without a card-signing key', () => {
  it('is 200 with an empty key set, not 404', async () => {
    const { app } = workerApp({
      settings: workerSettings(env(NODE)),
      directory: new AgentDirectory(),
      store: new SqliteTaskStore(':memory:'),
      transport: new NwakuRestTransport({ url: NODE.LOGOS_A2A_NWAKU_REST_URL, pollIntervalMs: 0 }),
      origin: 'http://127.0.0.1',
    });
    const response = await app.request('/.well-known/jwks.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(await response.json()).toEqual({ keys: [] });
  });
});
