/**
 * Our node's nwaku REST API over real HTTP, on a real relay node peered with another on 127.0.0.1: nwaku's paths,
 * JSON shapes (base64 payloads, nanosecond timestamps kept exact), status codes and content types; what a client
 * gets wrong answered with nwaku's 400s; messages from and to the relay network.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentProcess } from '../../../src/cli/agent-process.ts';
import { loadConfig } from '../../../src/gateway/config.ts';
import { startGateway } from '../../../src/gateway/gateway.ts';
import { startNodeRestServer, type NodeRestServer } from '../../../src/logos/node-rest/server.ts';
import { messagesPath } from '../../../src/logos/node-rest/wire.ts';
import { WakuTransport, type WakuMessage } from '../../../src/logos/transports/waku.ts';
import { openKeyed } from '../../../src/logos/transports/waku/payloads.ts';
import { eventually } from '../../support/gateway.ts';

const TOPIC = '/logos-a2a/1/rest-test/json';
const OTHER = '/logos-a2a/1/rest-other/json';
const KEY = new Uint8Array(32).fill(3);
const utf8 = (text: string) => new TextEncoder().encode(text);
const b64 = (text: string) => Buffer.from(text).toString('base64');

let node: WakuTransport;
let peer: WakuTransport;
let rest: NodeRestServer;

function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(`${rest.url}${path}`, {
    method,
    ...(body !== undefined
      ? { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'Content-Type': contentType } }
      : {}),
  });
}

async function drain(topic: string): Promise<Record<string, unknown>[]> {
  const response = await call('GET', messagesPath(topic));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  return (await response.json()) as Record<string, unknown>[];
}

beforeAll(async () => {
  node = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'] });
  peer = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'], staticPeers: node.multiaddrs() });
  await eventually(() => (node.meshPeerCount(TOPIC) > 0 && peer.meshPeerCount(TOPIC) > 0) || undefined, 15_000);
  rest = await startNodeRestServer(node, { port: 0, host: '127.0.0.1', version: 'v-test' });
}, 30_000);

afterAll(async () => {
  await rest?.stop();
  await Promise.all([peer?.stop(), node?.stop()]);
});

describe('the relay routes (autosharding)', () => {
  it('subscribe, publish, then a poll drains exactly what was published, in nwaku’s JSON', async () => {
    const subscribed = await call('POST', '/relay/v1/auto/subscriptions', [TOPIC]);
    expect(subscribed.status).toBe(200);
    expect(subscribed.headers.get('content-type')).toBe('text/plain');
    expect(await subscribed.text()).toBe('OK');

    // A nanosecond timestamp past 2^53 comes back digit for digit.
    const body = `{"payload":"${b64('hello')}","contentTopic":"${TOPIC}","timestamp":1764639067123456789,"meta":"${b64('m')}"}`;
    const published = await call('POST', '/relay/v1/auto/messages', body);
    expect(published.status).toBe(200);
    expect(await published.text()).toBe('OK');

    const text = await eventually(async () => {
      const response = await call('GET', messagesPath(TOPIC));
      const answer = await response.text();
      return answer === '[]' ? undefined : answer;
    });
    expect(text).toContain('"timestamp":1764639067123456789');
    expect(JSON.parse(text)).toEqual([
      {
        payload: b64('hello'),
        contentTopic: TOPIC,
        version: 0,
        timestamp: Number('1764639067123456789'), // as JSON.parse rounds it; the text above has every digit
        meta: b64('m'),
        ephemeral: false,
      },
    ]);
    expect(await drain(TOPIC)).toEqual([]); // drained
  });

  it('what a peer relays lands in the cache, and what is published through REST reaches the peer', async () => {
    const seenByPeer: WakuMessage[] = [];
    const stop = peer.onRelayMessage((message) => {
      if (message.contentTopic === TOPIC) seenByPeer.push(message);
    });
    peer.relayContentTopic(TOPIC);
    await call('POST', '/relay/v1/auto/messages', { payload: b64('to the peer'), contentTopic: TOPIC, version: 1 });
    const arrived = await eventually(() => seenByPeer[0]);
    expect(new TextDecoder().decode(arrived.payload)).toBe('to the peer');
    expect(arrived.version).toBe(1);
    expect(arrived.timestamp).toBeGreaterThan(BigInt(Date.now() - 60_000) * 1_000_000n); // 0 or none: now
    stop();

    await drain(TOPIC);
    await peer.publish(TOPIC, utf8('from the peer'), { key: KEY }); // a keyed publication, as the binding sends
    const [message] = await eventually(async () => {
      const messages = await drain(TOPIC);
      return messages.length > 0 ? messages : undefined;
    });
    expect(message!.version).toBe(1);
    const opened = openKeyed(KEY, Buffer.from(message!.payload as string, 'base64'));
    expect(opened).toMatchObject({ ok: true, sender: peer.address });
    expect(new TextDecoder().decode((opened as { body: Uint8Array }).body)).toBe('from the peer');
  });

  it('a topic nobody subscribed to is a 404 naming it; unsubscribing forgets what was cached', async () => {
    const unknown = await call('GET', messagesPath(OTHER));
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(OTHER);

    await call('POST', '/relay/v1/auto/subscriptions', [OTHER]);
    await call('POST', '/relay/v1/auto/messages', { payload: b64('x'), contentTopic: OTHER });
    const removed = await call('DELETE', '/relay/v1/auto/subscriptions', [OTHER]);
    expect(removed.status).toBe(200);
    expect((await call('GET', messagesPath(OTHER))).status).toBe(404);
  });

  it('the cache keeps at most its capacity, dropping the oldest', async () => {
    const small = await startNodeRestServer(node, { port: 0, host: '127.0.0.1', cacheCapacity: 2 });
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${small.url}${path}`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json' },
        });
      await post('/relay/v1/auto/subscriptions', [TOPIC]);
      for (const [i, timestamp] of [1, 2, 3].entries()) {
        await post('/relay/v1/auto/messages', { payload: b64(`n${i}`), contentTopic: TOPIC, timestamp });
      }
      const kept = await eventually(async () => {
        const messages = (await (await fetch(`${small.url}${messagesPath(TOPIC)}`)).json()) as { payload: string }[];
        return messages.length > 0 ? messages : undefined;
      });
      expect(kept.map((m) => Buffer.from(m.payload, 'base64').toString())).toEqual(['n1', 'n2']);
    } finally {
      await small.stop();
    }
  });
});

describe('client mistakes get nwaku’s 400s', () => {
  it.each([
    ['no body', undefined, 'application/json', 'Missing content body'],
    ['another content type', { payload: b64('x'), contentTopic: TOPIC }, 'application/xml', 'Wrong Content-Type'],
    ['not JSON', '{"payload":', 'application/json', 'Invalid content body, could not decode'],
    ['no payload', { contentTopic: TOPIC }, 'application/json', 'Invalid content body, could not decode'],
    ['an empty payload', { payload: '', contentTopic: TOPIC }, 'application/json', 'payload'],
    ['a payload not in base64', { payload: '***', contentTopic: TOPIC }, 'application/json', 'base64'],
    ['no content topic', { payload: b64('x') }, 'application/json', 'contentTopic'],
    [
      'a content topic autosharding rejects',
      { payload: b64('x'), contentTopic: 'nope' },
      'application/json',
      'Autosharding error',
    ],
  ])('publish with %s', async (_case, body, contentType, message) => {
    const response = await call('POST', '/relay/v1/auto/messages', body, contentType);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(await response.text()).toContain(message);
  });

  it('subscribing with something other than an array of topics, or to a malformed topic', async () => {
    const notAnArray = await call('POST', '/relay/v1/auto/subscriptions', { topic: TOPIC });
    expect(notAnArray.status).toBe(400);
    expect(await notAnArray.text()).toContain('Invalid content body');
    const malformed = await call('POST', '/relay/v1/auto/subscriptions', ['not-a-topic']);
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toContain('Subscribe failed');
    expect((await call('GET', messagesPath('not-a-topic'))).status).toBe(404);
  });

  it('text/plain bodies are taken, as nwaku takes them', async () => {
    const response = await call('POST', '/relay/v1/auto/subscriptions', [TOPIC], 'text/plain');
    expect(response.status).toBe(200);
  });

  it('a body over the limit is a 413', async () => {
    const response = await call('POST', '/relay/v1/auto/messages', {
      payload: b64('x'.repeat(3 * 1024 * 1024)),
      contentTopic: TOPIC,
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
  });
});

describe('health, info and version', () => {
  it('GET /health is nwaku’s health report', async () => {
    const response = await call('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      nodeHealth: 'READY',
      connectionStatus: 'PartiallyConnected', // one relay peer, fewer than gossipsub's D_low
      protocolsHealth: [{ Relay: 'READY' }],
    });
  });

  it('GET /info and /debug/v1/info list the listen addresses; /version is text', async () => {
    for (const path of ['/info', '/debug/v1/info']) {
      const info = (await (await call('GET', path)).json()) as { listenAddresses: string[] };
      expect(info.listenAddresses).toEqual(node.multiaddrs());
    }
    const version = await call('GET', '/version');
    expect(version.headers.get('content-type')).toBe('text/plain');
    expect(await version.text()).toBe('v-test');
    expect((await call('OPTIONS', '/relay/v1/auto/messages')).status).toBe(200);
  });

  it('a node without peers is not ready; a stopped API is gone', async () => {
    const lonely = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'] });
    const server = await startNodeRestServer(lonely, { port: 0, host: '127.0.0.1' });
    try {
      expect(await (await fetch(`${server.url}/health`)).json()).toEqual({
        nodeHealth: 'READY',
        connectionStatus: 'Disconnected',
        protocolsHealth: [{ Relay: 'NOT_READY', desc: 'No connected peers' }],
      });
    } finally {
      await server.stop();
      await lonely.stop();
    }
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });
});

describe('served by a gateway’s and an agent’s node, off by default', () => {
  it('a gateway serves it when LOGOS_A2A_WAKU_REST_PORT is set, and not otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-node-rest-'));
    const start = (env: Record<string, string>) =>
      startGateway(
        loadConfig({
          env: { LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0', LOGOS_A2A_WAKU_KEY_FILE: join(dir, 'g.key'), ...env },
          overrides: { port: 0, database: ':memory:', agents: [] },
        }),
        { log: () => undefined },
      );
    try {
      const plain = await start({});
      expect(plain.network.nodeRestUrl).toBeUndefined();
      await plain.stop();
      const serving = await start({ LOGOS_A2A_WAKU_REST_PORT: '0' });
      try {
        const url = serving.network.nodeRestUrl!;
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const info = (await (await fetch(`${url}/info`)).json()) as { listenAddresses: string[] };
        expect(info.listenAddresses).toEqual(serving.network.joinAddresses());
      } finally {
        await serving.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an agent process serves it with --rest-port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-node-rest-'));
    const agent = await startAgentProcess({
      kind: 'echo',
      peers: [],
      keyFile: join(dir, 'a.key'),
      cardKeyFile: join(dir, 'a.lez.key'),
      rest: { port: 0, host: '127.0.0.1' },
    });
    try {
      const health = (await (await fetch(`${agent.restUrl}/health`)).json()) as { nodeHealth: string };
      expect(health.nodeHealth).toBe('READY');
    } finally {
      await agent.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
