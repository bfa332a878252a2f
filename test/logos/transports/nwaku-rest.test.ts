/**
 * The `nwaku-rest` transport against a relay node's REST API over real HTTP (our node's REST face, the routes a real
 * nwaku serves): 1:1 and pub/sub with parties on the `waku` transport across the relay network, senders vouched
 * for, forgeries and repeats dropped, a node that restarts, a node that is not there; and a gateway on nwaku-rest
 * serving an echo agent process through the node, to the official A2A client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAgentProcess, type AgentProcess } from '../../../src/cli/agent-process.ts';
import { loadConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/gateway.ts';
import type { Delivery } from '../../../src/logos/transport.ts';
import { startNodeRestServer, type NodeRestServer } from '../../../src/logos/node-rest/server.ts';
import { messagesPath } from '../../../src/logos/node-rest/wire.ts';
import { NwakuRestTransport } from '../../../src/logos/transports/nwaku-rest.ts';
import { WakuTransport, inboxTopic } from '../../../src/logos/transports/waku.ts';
import { signPublication } from '../../../src/logos/transports/waku/frames.ts';
import { wakuIdentity, generateWakuPrivateKey } from '../../../src/logos/transports/waku/identity.ts';
import { clientFor, eventually, textMessage } from '../../support/gateway.ts';

const TOPIC = '/logos-a2a/1/nwaku-rest-test/json';
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Until `check` holds (the support helper's `eventually` waits for a value; false is one). */
const until = (check: () => boolean | Promise<boolean>, timeoutMs?: number) =>
  eventually(async () => (await check()) || undefined, timeoutMs);

let node: WakuTransport;
let peer: WakuTransport;
let rest: NodeRestServer;
const clients: NwakuRestTransport[] = [];

async function client(options: Partial<ConstructorParameters<typeof NwakuRestTransport>[0]> = {}) {
  const transport = new NwakuRestTransport({ url: rest.url, pollIntervalMs: 20, ...options });
  clients.push(transport);
  await transport.start();
  return transport;
}

function received(): {
  list: { body: string; sender: string | undefined }[];
  handler: (p: Uint8Array, d: Delivery) => void;
} {
  const list: { body: string; sender: string | undefined }[] = [];
  return { list, handler: (payload, { sender }) => list.push({ body: text(payload), sender }) };
}

beforeAll(async () => {
  node = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'] });
  peer = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0'], staticPeers: node.multiaddrs() });
  await until(() => node.meshPeerCount(TOPIC) > 0 && peer.meshPeerCount(TOPIC) > 0, 15_000);
  rest = await startNodeRestServer(node, { port: 0, host: '127.0.0.1' });
}, 30_000);

// A poll drains a topic for every client of the node, so each test's clients go before the next test's come.
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

afterAll(async () => {
  await rest?.stop();
  await Promise.all([peer?.stop(), node?.stop()]);
});

describe('nwaku-rest transport ⇄ waku transport, across the relay', () => {
  it('1:1 both ways, the sender vouched for by its signature', async () => {
    const viaRest = await client();
    const fromRest = received();
    const fromPeer = received();
    peer.onDirect(fromRest.handler);
    viaRest.onDirect(fromPeer.handler);

    await viaRest.send(peer.address, utf8('hello peer'));
    await until(() => fromRest.list.length > 0);
    expect(fromRest.list).toEqual([{ body: 'hello peer', sender: viaRest.address }]);

    await peer.send(viaRest.address, utf8('hello rest'));
    await until(() => fromPeer.list.length > 0);
    expect(fromPeer.list).toEqual([{ body: 'hello rest', sender: peer.address }]);
  });

  it('publications both ways; several in a row arrive in order', async () => {
    const viaRest = await client();
    const atRest = received();
    const atPeer = received();
    viaRest.subscribe(TOPIC, atRest.handler);
    peer.subscribe(TOPIC, atPeer.handler);

    await viaRest.publish(TOPIC, utf8('from rest'));
    await until(() => atPeer.list.length > 0);
    expect(atPeer.list).toEqual([{ body: 'from rest', sender: viaRest.address }]);

    for (const n of [1, 2, 3]) await peer.publish(TOPIC, utf8(`n${n}`));
    await until(() => atRest.list.filter((m) => m.sender === peer.address).length === 3);
    expect(atRest.list.filter((m) => m.sender === peer.address).map((m) => m.body)).toEqual(['n1', 'n2', 'n3']);
  });

  it('two REST parties on one node reach each other', async () => {
    const a = await client();
    const b = await client();
    const atB = received();
    b.onDirect(atB.handler);
    await a.send(b.address, utf8('same node'));
    await until(() => atB.list.length > 0);
    expect(atB.list).toEqual([{ body: 'same node', sender: a.address }]);
  });

  it('forgeries, unsigned publications and repeats are dropped and counted', async () => {
    const viaRest = await client({ pollIntervalMs: 0 });
    const at = received();
    viaRest.subscribe(TOPIC, at.handler);
    await viaRest.poll();

    const forger = wakuIdentity(generateWakuPrivateKey());
    const genuine = signPublication(forger.privateKey, forger.publicKey, TOPIC, utf8('genuine'));
    const forged = genuine.slice();
    forged[forged.length - 1]! ^= 1; // the body changed after signing
    await peer.relayMessage({ payload: forged, contentTopic: TOPIC, version: 0 });
    await peer.relayMessage({
      payload: utf8('no frame at all, long enough to be mistaken for one'.repeat(3)),
      contentTopic: TOPIC,
      version: 0,
    });
    await peer.relayMessage({ payload: genuine, contentTopic: TOPIC, version: 0, timestamp: 1n });
    await peer.relayMessage({ payload: genuine, contentTopic: TOPIC, version: 0, timestamp: 2n }); // replayed
    await peer.relayMessage({ payload: utf8('garbage'), contentTopic: viaRest.inboxTopic, version: 1 });

    await until(async () => {
      await viaRest.poll();
      return at.list.length === 1 && viaRest.dropped.duplicate === 1 && viaRest.dropped.undecryptable === 1;
    });
    expect(at.list).toEqual([{ body: 'genuine', sender: `waku:${Buffer.from(forger.publicKey).toString('hex')}` }]);
    expect(viaRest.dropped).toMatchObject({ badSignature: 1, unsigned: 1, duplicate: 1, undecryptable: 1 });
  });

  it('a node that restarts and forgets the subscriptions gets them back at the next poll', async () => {
    const viaRest = await client();
    const at = received();
    viaRest.onDirect(at.handler);
    // A fresh REST face on the same node: it knows none of this client's subscriptions.
    const port = Number(new URL(rest.url).port);
    await rest.stop();
    rest = await startNodeRestServer(node, { port, host: '127.0.0.1' });
    // The client polls its inbox again once the new face answers, which means it subscribed again.
    await until(async () => {
      const response = await fetch(`${rest.url}${messagesPath(viaRest.inboxTopic)}`).catch(() => undefined);
      return response?.status === 200;
    });
    await peer.send(viaRest.address, utf8('after the restart'));
    await until(() => at.list.length > 0);
    expect(at.list[0]).toEqual({ body: 'after the restart', sender: peer.address });
    expect(inboxTopic(viaRest.address)).toBe(viaRest.inboxTopic);
  });
});

describe('the caller’s mistakes, and a node that is not there', () => {
  it('bad addresses, topics and sizes are refused before anything is sent', async () => {
    const viaRest = await client({ maxPayloadBytes: 10 });
    await expect(viaRest.send('waku:nope', utf8('x'))).rejects.toThrow(/not a waku address/);
    await expect(viaRest.publish('not-a-topic', utf8('x'))).rejects.toThrow();
    expect(() => viaRest.subscribe('not-a-topic', () => undefined)).toThrow();
    await expect(viaRest.publish(TOPIC, utf8('x'.repeat(11)))).rejects.toThrow(/exceeds 10/);
    const idle = new NwakuRestTransport({ url: rest.url });
    await expect(idle.send(peer.address, utf8('x'))).rejects.toThrow(/not started/);
    expect(() => new NwakuRestTransport({ url: 'ftp://example' })).toThrow(/http\(s\) URL/);
  });

  it('starting against a node that is not there fails, naming the URL', async () => {
    const probe = await startNodeRestServer(node, { port: 0, host: '127.0.0.1' });
    const url = probe.url;
    await probe.stop();
    const transport = new NwakuRestTransport({ url, requestTimeoutMs: 2_000 });
    await expect(transport.start()).rejects.toThrow(`cannot subscribe at ${url}`);
  });
});

describe('a gateway on nwaku-rest', () => {
  let dir: string;
  let agent: AgentProcess;
  let gateway: Gateway;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-nwaku-rest-'));
    // gateway —(REST)→ node —(Waku relay)→ echo agent on its own node
    agent = await startAgentProcess({
      kind: 'echo',
      peers: node.multiaddrs(),
      keyFile: join(dir, 'echo.key'),
      cardKeyFile: join(dir, 'echo.lez.key'),
      announceEveryMs: 200,
    });
    const config = loadConfig({
      env: { LOGOS_A2A_NWAKU_REST_URL: rest.url, LOGOS_A2A_WAKU_KEY_FILE: join(dir, 'gateway.key') },
      overrides: { port: 0, database: join(dir, 'gateway.db'), agents: [], agentTimeoutMs: 20_000 },
    });
    expect(config.transport).toMatchObject({ kind: 'nwaku-rest', url: rest.url });
    gateway = await startGateway(config, { log: () => undefined });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hears the agent announce itself and serves it to the official A2A client', async () => {
    await until(async () => (await fetch(`${gateway.url}/agents/echo/.well-known/agent-card.json`)).ok, 15_000);
    const a2a = await clientFor(`${gateway.url}/agents/echo`);
    const task = (await a2a.sendMessage(textMessage('through REST'))) as {
      status?: { state: number };
      artifacts: { parts: { content?: { $case: string; value: string } }[] }[];
    };
    expect(JSON.stringify(task)).toContain('through REST');
    expect(gateway.network.remoteNodeUrl).toBe(rest.url);
  });
});
