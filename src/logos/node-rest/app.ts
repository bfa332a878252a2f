/**
 * The nwaku REST API of an embedded relay node, as far as the binding needs it, so that anything written for nwaku
 * or logos-delivery (a Cloudflare Worker on our `nwaku-rest` transport, curl, another client) can use our node as
 * it would a real one: relay with autosharding (subscribe, unsubscribe, publish, poll), health and node info.
 * Paths, JSON shapes, status codes and content types are nwaku's (docs/binding.md §2.10), with one deliberate
 * difference: a content topic autosharding cannot place is a 400 on subscribe, where nwaku answers 500.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Unsubscribe } from '../transport.ts';
import type { OutgoingWakuMessage, RelayObserver } from '../transports/waku.ts';
import { RelayMessageCache } from './message-cache.ts';
import {
  NWAKU_ROUTES,
  isJsonBodyType,
  parseContentTopics,
  parseRelayMessage,
  relayMessagesJson,
  type Parsed,
} from './wire.ts';

/** What the REST face needs of a relay node (the `waku` transport has it). */
export interface RestRelayNode {
  /** The shard of a content topic; throws for a topic autosharding rejects. */
  pubsubTopicFor(contentTopic: string): string;
  relayMessage(message: OutgoingWakuMessage): Promise<void>;
  relayContentTopic(contentTopic: string): void;
  onRelayMessage(observer: RelayObserver): Unsubscribe;
  multiaddrs(): string[];
  peerCount(): number;
}

export interface NodeRestOptions {
  /** Messages kept for pollers in all, as nwaku's `--rest-relay-cache-capacity` (default 50, as there). */
  cacheCapacity?: number;
  /** Largest request body (default 2 MiB: a 1 MiB payload, sealed and in base64). */
  maxBodyBytes?: number;
  /** What GET /version answers. */
  version?: string;
}

export interface NodeRestApp {
  readonly app: Hono;
  /** From now on, /health says the node is shutting down. */
  draining(): void;
  /** Stops caching what the node relays. */
  close(): void;
}

/** Gossipsub's D_low in nwaku: with this many relay peers a node counts as Connected, with fewer as partially. */
const RELAY_D_LOW = 4;
const TEXT = { 'Content-Type': 'text/plain' } as const;

export function createNodeRestApp(node: RestRelayNode, options: NodeRestOptions = {}): NodeRestApp {
  const cache = new RelayMessageCache(options.cacheCapacity ?? 50);
  let shuttingDown = false;
  const stopObserving = node.onRelayMessage((message) => {
    cache.add({
      payload: message.payload,
      contentTopic: message.contentTopic,
      version: message.version ?? 0,
      timestamp: message.timestamp ?? 0n,
      ...(message.meta ? { meta: message.meta } : {}),
      ephemeral: message.ephemeral ?? false,
    });
  });

  const app = new Hono();
  app.use(
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 2 * 1024 * 1024,
      // The rest of the body is not read, so the connection cannot carry another request.
      onError: (c) => c.text('Request body too large', 413, { ...TEXT, Connection: 'close' }),
    }),
  );
  app.onError((error, c) => {
    console.error('nwaku REST API: internal error', error);
    return c.text('Internal error', 500, TEXT);
  });
  app.notFound((c) => c.text('Not found', 404, TEXT));

  for (const path of [NWAKU_ROUTES.subscriptions, NWAKU_ROUTES.messages, `${NWAKU_ROUTES.messages}/:contentTopic`]) {
    app.options(path, (c) => ok(c));
  }

  app.post(NWAKU_ROUTES.subscriptions, async (c) => {
    const topics = await body(c, parseContentTopics);
    if (!topics.ok) return topics.response;
    for (const topic of topics.value) {
      try {
        node.relayContentTopic(topic);
      } catch (error) {
        return c.text(`Subscribe failed:${(error as Error).message}`, 400, TEXT);
      }
    }
    for (const topic of topics.value) cache.subscribe(topic);
    return ok(c);
  });

  app.delete(NWAKU_ROUTES.subscriptions, async (c) => {
    const topics = await body(c, parseContentTopics);
    if (!topics.ok) return topics.response;
    // The node stays on the shard: its own parties may still need it.
    for (const topic of topics.value) cache.unsubscribe(topic);
    return ok(c);
  });

  app.get(`${NWAKU_ROUTES.messages}/:contentTopic`, (c) => {
    const contentTopic = c.req.param('contentTopic');
    const messages = cache.drain(contentTopic);
    if (!messages) return c.text(contentTopic, 404, TEXT);
    return c.body(relayMessagesJson(messages), 200, { 'Content-Type': 'application/json' });
  });

  app.post(NWAKU_ROUTES.messages, async (c) => {
    const parsed = await body(c, parseRelayMessage);
    if (!parsed.ok) return parsed.response;
    const { timestamp, ...message } = parsed.value;
    try {
      node.pubsubTopicFor(message.contentTopic);
    } catch (error) {
      return c.text(`Failed to publish. Autosharding error: ${(error as Error).message}`, 400, TEXT);
    }
    try {
      await node.relayMessage({ ...message, ...(timestamp ? { timestamp } : {}) });
    } catch (error) {
      if (error instanceof RangeError) return c.text(`Failed to publish: ${error.message}`, 400, TEXT);
      throw error;
    }
    return ok(c);
  });

  app.get(NWAKU_ROUTES.health, (c) => {
    if (shuttingDown)
      return c.json({ nodeHealth: 'SHUTTING_DOWN', connectionStatus: 'Disconnected', protocolsHealth: [] });
    const peers = node.peerCount();
    const relay = peers > 0 ? { Relay: 'READY' } : { Relay: 'NOT_READY', desc: 'No connected peers' };
    const connectionStatus = peers >= RELAY_D_LOW ? 'Connected' : peers > 0 ? 'PartiallyConnected' : 'Disconnected';
    return c.json({ nodeHealth: 'READY', connectionStatus, protocolsHealth: [relay] });
  });

  for (const path of [NWAKU_ROUTES.info, NWAKU_ROUTES.debugInfo]) {
    app.get(path, (c) => c.json({ listenAddresses: node.multiaddrs() }));
  }
  for (const path of [NWAKU_ROUTES.version, NWAKU_ROUTES.debugVersion]) {
    app.get(path, (c) => c.text(options.version ?? 'logos-a2a', 200, TEXT));
  }

  return {
    app,
    draining: () => {
      shuttingDown = true;
    },
    close: stopObserving,
  };
}

function ok(c: Context): Response {
  return c.text('OK', 200, TEXT);
}

/** A request body as nwaku decodes it: JSON (or text/plain) only, and a 400 saying what is wrong otherwise. */
async function body<T>(
  c: Context,
  parse: (text: string) => Parsed<T>,
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const text = await c.req.text();
  if (text === '') return { ok: false, response: c.text('Missing content body', 400, TEXT) };
  if (!isJsonBodyType(c.req.header('Content-Type'))) {
    return {
      ok: false,
      response: c.text('Wrong Content-Type, expected application/json or text/plain', 400, TEXT),
    };
  }
  const parsed = parse(text);
  if (!parsed.ok) {
    return { ok: false, response: c.text(`Invalid content body, could not decode: ${parsed.error}`, 400, TEXT) };
  }
  return { ok: true, value: parsed.value };
}
