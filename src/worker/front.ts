/**
 * The front Worker: every request comes here first. Calls that drive a task go on to the task's TaskObject;
 * the rest is answered here by the gateway's app over D1 and the directory, rebuilt only when the directory or
 * the origin changed.
 */
import { gatewayErrorResponse } from '../a2a/errors.ts';
import { ConfigError } from '../gateway/config.ts';
import { NwakuRestTransport } from '../logos/transports/nwaku-rest.ts';
import type { AgentDirectory } from '../logos/directory.ts';
import { D1TaskStore } from '../store/d1/task-store.ts';
import { directoryEntries } from './directory-client.ts';
import { directoryFromSnapshot, refreshLastSeen, snapshotCardsKey } from './directory-snapshot.ts';
import { routeRequest } from './task-routing.ts';
import { taskPayments, workerApp, type WorkerApp } from './worker-app.ts';
import { workerSettings, type WorkerEnv, type WorkerSettings } from './worker-env.ts';

let cached: { key: string; gateway: WorkerApp; directory: AgentDirectory } | undefined;

/** Settings errors already logged: workerSettings keeps one per environment object, logged once, not per request. */
const logged = new WeakSet<ConfigError>();

export async function serveRequest(request: Request, env: WorkerEnv): Promise<Response> {
  let settings: WorkerSettings;
  try {
    settings = workerSettings(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A Worker has no start to refuse: its first request reads the settings. The log (wrangler tail) has it once;
    // every caller is told what to change, which names settings and never holds their values.
    if (!logged.has(error)) {
      logged.add(error);
      console.error(error.message);
    }
    return gatewayErrorResponse({
      kind: 'misconfigured',
      message: `The gateway is misconfigured: ${error.problems.join('; ')}. Its operator fixes that in wrangler.toml [vars] or with wrangler secret put.`,
    });
  }
  const target = await routeRequest(request, settings.config.maxBodyBytes);
  if (target.kind === 'task') {
    const stub = env.TASKS.get(env.TASKS.idFromName(target.taskId));
    return (await stub.fetch(target.request as never)) as unknown as Response;
  }
  return serveHere(target.request, env, settings);
}

async function serveHere(request: Request, env: WorkerEnv, settings: WorkerSettings): Promise<Response> {
  const origin = new URL(request.url).origin;
  const heard = await directoryEntries(env);
  if (!heard.ok) return heard.response;
  const entries = heard.entries;
  // The cards, not when each was last heard: that changes at every agent's announcement, and is brought up to date
  // in place rather than by building the app and checking every signature again.
  const key = JSON.stringify([origin, snapshotCardsKey(entries)]);
  if (cached?.key === key) refreshLastSeen(cached.directory, entries);
  else {
    const payments = await taskPayments(env, settings);
    const directory = directoryFromSnapshot(entries, settings.config.offlineAfterMs);
    cached = {
      key,
      directory,
      gateway: workerApp({
        settings,
        directory,
        store: new D1TaskStore(env.DB),
        // Never started: the front reads tasks, it does not drive them (their calls go to their TaskObject).
        transport: new NwakuRestTransport({ url: settings.nodeUrl, pollIntervalMs: 0 }),
        origin,
        ...(payments ? { payments } : {}),
      }),
    };
  }
  return cached.gateway.app.fetch(request);
}
