/**
 * The Cloudflare Workers entry (wrangler.toml `main`): the gateway's HTTP face on Workers. The front Worker answers
 * what needs no task (src/worker/front.ts), one TaskObject per task drives it, and one DirectoryObject listens for
 * agents. Tasks live in D1; Logos Messaging is reached through a node's nwaku REST API. When the Worker pays agents,
 * one WalletObject signs every payment.
 */
import { serveRequest } from './worker/front.ts';
import type { WorkerEnv } from './worker/worker-env.ts';

export { DirectoryObject } from './worker/directory-object.ts';
export { TaskObject } from './worker/task-object.ts';
export { WalletObject } from './worker/wallet-object.ts';

export default {
  fetch: (request: Request, env: WorkerEnv): Promise<Response> => serveRequest(request, env),
};
