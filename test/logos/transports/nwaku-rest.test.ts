/**
 * The `nwaku-rest` transport against a relay node's REST API over real HTTP (our node's REST face, the routes a real
 * nwaku serves): 1:1 and pub/sub (keyed and plain) with parties on the `waku` transport across the relay network,
 * senders vouched for, forgeries, misaddressed messages and repeats dropped, a node that restarts, a node that is not there; and a gateway on nwaku-rest
 * serving an echo agent process through the node, to the official A2A client; an agent behind the node whose result
 * is larger than one message of the network.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { preCipher } from '@waku/message-encryption/ecies';
import { encryptSymmetric } from '@waku/message-encryption/symmetric';
import { startAgentProcess, type AgentProcess } from '../../../src/cli/agent-process.ts';
import { loadConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/gateway.ts';
import type { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { FLEET_MAX_MESSAGE_BYTES, payloadBytesPerMessage } from '../../../src/logos/network-presets.ts';
import type { Delivery } from '../../../src/logos/transport.ts';
import { startNodeRestServer, type NodeRestServer } from '../../../src/logos/node-rest/server.ts';
import { messagesPath } from '../../../src/logos/node-rest/wire.ts';
import { NwakuRestTransport } from '../../../src/logos/transports/nwaku-rest.ts';
import { WakuTransport, inboxTopic } from '../../../src/logos/transports/waku.ts';
import { parseWakuAddress, wakuIdentity, generateWakuPrivateKey } from '../../../src/logos/transports/waku/identity.ts';
import { sealDirect, sealKeyed } from '../../../src/logos/transports/waku/payloads.ts';
import { clientFor, eventually, textMessage } from '../../support/gateway.ts';
import {
  expectLargeTextInChunks,
  expectOversizedRequestRefused,
  largeResultAgent,
} from '../../support/large-result-agent.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

const TOPIC = '/logos-a2a/1/nwaku-rest-test/json';
const KEY = new Uint8Array(32).fill(7);
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A 1:1 body as the binding writes it: a JSON object naming both parties. */
const dm = (from: { address: string }, to: { address: string }, body: string) =>
  utf8(JSON.stringify({ from: from.address, to: to.address, body }));

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

/** What arrives 1:1: the `body` of each JSON message, and who sent it. */
function receivedDirect(): ReturnType<typeof received> {
  const list: { body: string; sender: string | undefined }[] = [];
  return {
    list,
    handler: (payload, { sender }) => list.push({ body: (JSON.parse(text(payload)) as { body: string }).body, sender }),
  };
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
    const fromRest = receivedDirect();
    const fromPeer = receivedDirect();
    const stopPeer = peer.onDirect(fromRest.handler);
    viaRest.onDirect(fromPeer.handler);

    await viaRest.send(peer.address, dm(viaRest, peer, 'hello peer'));
    await until(() => fromRest.list.length > 0);
    stopPeer();
    expect(fromRest.list).toEqual([{ body: 'hello peer', sender: viaRest.address }]);

    await peer.send(viaRest.address, dm(peer, viaRest, 'hello rest'));
    await until(() => fromPeer.list.length > 0);
    expect(fromPeer.list).toEqual([{ body: 'hello rest', sender: peer.address }]);
  });

  it('keyed publications both ways, the publisher vouched for; several in a row arrive in order', async () => {
    const viaRest = await client();
    const atRest = received();
    const atPeer = received();
    viaRest.subscribe(TOPIC, atRest.handler, { key: KEY });
    const stopPeer = peer.subscribe(TOPIC, atPeer.handler, { key: KEY });

    await viaRest.publish(TOPIC, utf8('from rest'), { key: KEY });
    await until(() => atPeer.list.length > 0);
    expect(atPeer.list).toEqual([{ body: 'from rest', sender: viaRest.address }]);

    for (const n of [1, 2, 3]) await peer.publish(TOPIC, utf8(`n${n}`), { key: KEY });
    await until(() => atRest.list.filter((m) => m.sender === peer.address).length === 3);
    stopPeer();
    expect(atRest.list.filter((m) => m.sender === peer.address).map((m) => m.body)).toEqual(['n1', 'n2', 'n3']);
  });

  it('plain publications both ways: the bytes as given, nobody vouched for', async () => {
    const topic = '/logos-a2a/1/nwaku-rest-plain/json';
    const viaRest = await client();
    const atRest = received();
    const atPeer = received();
    viaRest.subscribe(topic, atRest.handler);
    const stopPeer = peer.subscribe(topic, atPeer.handler);

    await viaRest.publish(topic, utf8('{"card":"from rest"}'));
    await until(() => atPeer.list.length > 0);
    stopPeer();
    expect(atPeer.list).toEqual([{ body: '{"card":"from rest"}', sender: undefined }]);

    await peer.publish(topic, utf8('{"card":"from the peer"}'));
    await until(() => atRest.list.some((m) => m.body === '{"card":"from the peer"}'));
    expect(atRest.list.filter((m) => m.body === '{"card":"from the peer"}')).toEqual([
      { body: '{"card":"from the peer"}', sender: undefined },
    ]);
  });

  it('two REST parties on one node reach each other', async () => {
    const a = await client();
    const b = await client();
    const atB = receivedDirect();
    b.onDirect(atB.handler);
    await a.send(b.address, dm(a, b, 'same node'));
    await until(() => atB.list.length > 0);
    expect(atB.list).toEqual([{ body: 'same node', sender: a.address }]);
  });

  it('forgeries, unsigned, misaddressed and repeated messages are dropped and counted', async () => {
    const viaRest = await client({ pollIntervalMs: 0 });
    const at = received();
    const direct = receivedDirect();
    viaRest.subscribe(TOPIC, at.handler, { key: KEY });
    viaRest.onDirect(direct.handler);
    await viaRest.poll();

    const forger = wakuIdentity(generateWakuPrivateKey());
    const someone = wakuIdentity(generateWakuPrivateKey());
    const viaRestKey = parseWakuAddress(viaRest.address);
    const keyed = (payload: Uint8Array) => peer.relayMessage({ payload, contentTopic: TOPIC, version: 1 });
    const toInbox = (payload: Uint8Array) =>
      peer.relayMessage({ payload, contentTopic: viaRest.inboxTopic, version: 1 });
    // Under the topic key but not signed, as a stock encoder without a signing key makes it.
    await keyed(await encryptSymmetric(await preCipher(utf8('anonymous')), KEY));
    // In the clear on a keyed topic.
    await peer.relayMessage({ payload: utf8('{"type":"task_result"}'), contentTopic: TOPIC, version: 0 });
    // Signed, under another key.
    await keyed(sealKeyed(forger.privateKey, new Uint8Array(32), utf8('elsewhere')));
    // Genuine, then the same bytes again.
    const genuine = sealKeyed(forger.privateKey, KEY, utf8('genuine'));
    await peer.relayMessage({ payload: genuine, contentTopic: TOPIC, version: 1, timestamp: 1n });
    await peer.relayMessage({ payload: genuine, contentTopic: TOPIC, version: 1, timestamp: 2n });
    // 1:1: not encrypted to this party; signed by the forger, claiming to come from someone; addressed to someone.
    await toInbox(utf8('garbage'));
    await toInbox(sealDirect(forger.privateKey, viaRestKey, dm(someone, viaRest, 'I am someone')));
    await toInbox(sealDirect(forger.privateKey, viaRestKey, dm(forger, someone, 'for someone')));

    await until(async () => {
      await viaRest.poll();
      const dropped = viaRest.dropped;
      return (
        at.list.length === 1 && dropped.duplicate === 1 && dropped.wrongRecipient === 1 && dropped.badSignature === 1
      );
    });
    expect(at.list).toEqual([{ body: 'genuine', sender: forger.address }]);
    expect(direct.list).toEqual([]);
    expect(viaRest.dropped).toMatchObject({
      unsigned: 2,
      undecryptable: 2,
      duplicate: 1,
      badSignature: 1,
      wrongRecipient: 1,
    });
  });

  it('a node that restarts and forgets the subscriptions gets them back at the next poll', async () => {
    const viaRest = await client();
    const at = receivedDirect();
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
    await peer.send(viaRest.address, dm(peer, viaRest, 'after the restart'));
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
    // The node's message limit: the presets' 150 KiB unless the node was set up otherwise.
    expect(config.transport).toMatchObject({
      kind: 'nwaku-rest',
      url: rest.url,
      maxMessageBytes: FLEET_MAX_MESSAGE_BYTES,
    });
    gateway = await startGateway(config, { log: () => undefined });
    expect((gateway.network.gateway as NwakuRestTransport).maxPayloadBytes).toBe(
      payloadBytesPerMessage(FLEET_MAX_MESSAGE_BYTES),
    );
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
  }, 60_000);

  it('refuses a request larger than one message of the node with -32602 naming the limit, and records no task', async () => {
    await until(async () => (await fetch(`${gateway.url}/agents/echo/.well-known/agent-card.json`)).ok, 15_000);
    await expectOversizedRequestRefused(
      `${gateway.url}/agents/echo`,
      'rest-big-request',
      gateway.network.gateway.maxPayloadBytes,
    );
  });
});

describe('an agent behind the REST API', () => {
  let dir: string;
  let agentTransport: NwakuRestTransport;
  let agent: LogosAgent;
  let gateway: Gateway;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-nwaku-rest-agent-'));
    // agent —(REST)→ node —(Waku relay)→ gateway on its own node
    agentTransport = new NwakuRestTransport({ url: rest.url, pollIntervalMs: 20 });
    agent = largeResultAgent(agentTransport);
    await agent.start();
    gateway = await startWakuGateway(dir, {
      overrides: {
        agentTimeoutMs: 10_000,
        transport: {
          kind: 'waku',
          listen: ['/ip4/127.0.0.1/tcp/0'],
          peers: node.multiaddrs(),
          keyFile: join(dir, 'gateway.key'),
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a result larger than one message of the network as artifact chunks the node relays', async () => {
    // Each chunk must fit in one message the node accepts (150 KiB); one envelope with the whole result it refuses.
    expect(agentTransport.maxPayloadBytes).toBeLessThan(FLEET_MAX_MESSAGE_BYTES);
    await expectLargeTextInChunks(`${gateway.url}/agents/big`, 'rest-big-1');
  }, 60_000);
});
