/**
 * Each Durable Object of the Worker is a party of the binding of its own, reaching Logos Messaging through the
 * configured node's REST API. Its identity is kept in its storage, so that after an eviction it comes back under
 * the same address: agents still reply to it. It polls only when its alarm says (no timers of its own).
 */
import type { DurableObjectStorage } from '@cloudflare/workers-types/index.ts';
import { gatewayErrorResponse } from '../a2a/errors.ts';
import { generateWakuPrivateKey } from '../logos/transports/waku/identity.ts';
import { NwakuRestTransport } from '../logos/transports/nwaku-rest.ts';
import type { WorkerSettings } from './worker-env.ts';

const IDENTITY_KEY = 'logos-identity';

export async function objectTransport(
  storage: DurableObjectStorage,
  settings: WorkerSettings,
): Promise<NwakuRestTransport> {
  let privateKey = await storage.get<Uint8Array>(IDENTITY_KEY);
  if (!privateKey) {
    privateKey = generateWakuPrivateKey();
    await storage.put(IDENTITY_KEY, privateKey);
  }
  return new NwakuRestTransport({ url: settings.nodeUrl, privateKey, pollIntervalMs: 0 });
}

/**
 * The answer of an object that could not start: it starts by subscribing at the node, so the node is out of reach or
 * refused (the transport's message names it), or D1 is.
 */
export function cannotStart(error: unknown): Response {
  console.error(error);
  return gatewayErrorResponse({
    kind: 'unavailable',
    message: `Cannot reach Logos Messaging or the task store now: ${(error as Error).message}`,
  });
}
