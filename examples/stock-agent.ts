/**
 * A Logos agent written with stock packages only: `@waku/sdk` (the node, plain messages, autosharding),
 * `@waku/message-encryption` (ECIES requests in, AES-256-GCM replies out), libp2p (gossipsub for Waku Relay, the
 * TCP and WebSocket transports), and `@noble/curves` / `@scure/base` (the signed card). Nothing from logos-a2a:
 * everything it does on the wire is in docs/binding.md §2.7–§2.8 and docs/discovery.md. It upper-cases text.
 *
 *     node examples/stock-agent.ts [--light] <gateway multiaddr> [data directory]
 *
 * The multiaddr is where the gateway's Waku node listens (`npm start`: /ip4/127.0.0.1/tcp/60000). By default the
 * agent runs a Waku Relay node and joins the network through it; with `--light` it runs a `@waku/sdk` light node
 * instead, which relays nothing: it sends with LightPush and receives with Filter through that node (any node that
 * serves both protocols, as the gateway's does, over TCP or WebSocket). The agent keeps its two keys in
 * `<data directory>/stock-agent.keys.json` (default `.data`), so it keeps its address and account.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GossipSub } from '@chainsafe/libp2p-gossipsub';
import { tcp } from '@libp2p/tcp';
import { webSockets } from '@libp2p/websockets';
import { all as anyWebSocketAddress } from '@libp2p/websockets/filters';
import { multiaddr } from '@multiformats/multiaddr';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { createDecoder as createEciesDecoder } from '@waku/message-encryption/ecies';
import { createEncoder as createSymmetricEncoder } from '@waku/message-encryption/symmetric';
import {
  Protocols,
  createEncoder as createPlainEncoder,
  createLightNode,
  defaultLibp2p,
  utils,
  type IDecodedMessage,
  type IDecoder,
  type IEncoder,
} from '@waku/sdk';

const args = process.argv.slice(2);
const light = args[0] === '--light';
const [peer, dataDir = '.data'] = light ? args.slice(1) : args;
if (!peer) throw new Error('usage: node examples/stock-agent.ts [--light] <gateway multiaddr> [data directory]');

// The gateway's defaults (docs/binding.md §2.7.2, docs/discovery.md §2).
const NETWORK = { clusterId: 2, numShardsInCluster: 8 };
const DISCOVERY_TOPIC = '/logos/1/agent-discovery/proto';
const RELAY_CODEC = '/vac/waku/relay/2.0.0';

// ---- keys and identity (§2.7.1) ---------------------------------------------------------------------------------

function loadKeys(): { waku: Uint8Array; card: Uint8Array } {
  const file = join(dataDir, 'stock-agent.keys.json');
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { waku: string; card: string };
    return { waku: hexToBytes(saved.waku), card: hexToBytes(saved.card) };
  } catch {
    const keys = { waku: secp256k1.utils.randomSecretKey(), card: secp256k1.utils.randomSecretKey() };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify({ waku: bytesToHex(keys.waku), card: bytesToHex(keys.card) }), { mode: 0o600 });
    return keys;
  }
}

const keys = loadKeys();
const publicKey = secp256k1.getPublicKey(keys.waku, false);
const address = `waku:${bytesToHex(publicKey)}`;
const inboxTopic = `/logos-a2a/1/inbox-${bytesToHex(sha256(publicKey)).slice(0, 16)}/proto`;

/** Any accepted spelling of an address (either key form, any case), as the uncompressed key in hex. */
function canonical(text: unknown): string | undefined {
  if (typeof text !== 'string' || !text.startsWith('waku:')) return undefined;
  try {
    return secp256k1.Point.fromHex(text.slice(5).toLowerCase()).toHex(false);
  } catch {
    return undefined;
  }
}

// ---- the signed card (discovery.md §1, §6; the address proof of binding §2.7.1) --------------------------------

/** The public LEZ account of a key: base58(sha256("/LEE/v0.3/AccountId/Public/" zero-padded to 32 ‖ x-only key)). */
function accountId(secretKey: Uint8Array): string {
  const prefix = new Uint8Array(32);
  prefix.set(utf8ToBytes('/LEE/v0.3/AccountId/Public/'));
  const input = new Uint8Array(64);
  input.set(prefix);
  input.set(schnorr.getPublicKey(secretKey), 32);
  return base58.encode(sha256(input));
}

/** RFC 8785 for what a card holds (objects, arrays, strings): members sorted by UTF-16 code units, no spaces. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const members = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const account = accountId(keys.card);
const unsignedCard = {
  id: 'stock-upper',
  name: 'Stock upper',
  description: 'Upper-cases text. Written with stock Waku packages only.',
  version: '1.0.0',
  skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text', tags: ['text'] }],
  agentInterfaces: [{ type: 'logos-messaging', version: '1', address }],
  'x-issued-at': new Date().toISOString(),
  'x-instance': randomUUID(),
  'x-lez-identity': { account_id: account },
  'x-logos-address-proof': bytesToHex(
    schnorr.sign(sha256(utf8ToBytes(`logos-a2a/address-proof/1:${account}`)), keys.waku, new Uint8Array(32)),
  ),
};
const card = {
  ...unsignedCard,
  signature: {
    alg: 'bip340-sha256-jcs',
    public_key: bytesToHex(schnorr.getPublicKey(keys.card)),
    sig: bytesToHex(schnorr.sign(sha256(utf8ToBytes(canonicalJson(unsignedCard))), keys.card, new Uint8Array(32))),
  },
};

// ---- the node: all the agent needs of it is to send what an encoder writes, and to hear what a decoder opens -----

interface AgentNode {
  send(encoder: IEncoder, payload: Uint8Array): Promise<void>;
  /** Hands over each message on the decoder's content topic that the decoder opens. */
  receive<T extends IDecodedMessage>(decoder: IDecoder<T>, handler: (message: T) => void): Promise<void>;
  stop(): Promise<void>;
}

/** Waku Relay: gossipsub under Waku's protocol id, unsigned, message ids = sha256 of the message (§2.7.8). */
async function joinAsRelay(): Promise<AgentNode> {
  const node = await defaultLibp2p(NETWORK.clusterId, {
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp()],
    hideWebSocketInfo: true,
    services: {
      pubsub: (components: ConstructorParameters<typeof GossipSub>[0]) => {
        const gossipsub = new GossipSub(components, {
          globalSignaturePolicy: 'StrictNoSign',
          msgIdFn: (message) => sha256(message.data),
          fallbackToFloodsub: false,
          allowPublishToZeroTopicPeers: true,
        });
        gossipsub.multicodecs = [RELAY_CODEC];
        return gossipsub;
      },
    },
  } as never);
  const pubsub = (node.services as unknown as { pubsub: GossipSub }).pubsub;
  const discoveryShard = route(DISCOVERY_TOPIC).pubsubTopic;
  await node.start();
  pubsub.subscribe(discoveryShard);
  await node.dial(multiaddr(peer!));
  // Ready once the gateway has said which shards it relays, so that the first announcement reaches it.
  const deadline = Date.now() + 10_000;
  while (pubsub.getSubscribers(discoveryShard).length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    async send(encoder, payload) {
      const wire = await encoder.toWire({ payload });
      if (wire) await pubsub.publish(encoder.pubsubTopic, wire).catch(() => undefined);
    },
    async receive(decoder, handler) {
      pubsub.subscribe(decoder.pubsubTopic);
      pubsub.addEventListener('message', (event) => {
        const { topic, data } = event.detail;
        if (topic !== decoder.pubsubTopic) return;
        void (async () => {
          const proto = await decoder.fromWireToProtoObj(data);
          if (proto?.contentTopic !== decoder.contentTopic) return;
          const message = await decoder.fromProtoObj(topic, proto);
          if (message) handler(message);
        })().catch(() => undefined); // not a WakuMessage, not for this key: a node ignores what it cannot read
      });
    },
    stop: async () => await node.stop(),
  };
}

/** A light node: nothing relayed, LightPush out and Filter in through the peer, a service node (§2.8). */
async function joinAsLight(): Promise<AgentNode> {
  const node = await createLightNode({
    networkConfig: NETWORK,
    libp2p: { transports: [tcp(), webSockets({ filter: anyWebSocketAddress })], hideWebSocketInfo: true },
    discovery: { dns: false, peerExchange: false, peerCache: false },
  });
  await node.start();
  await node.dial(peer!);
  await node.waitForPeers([Protocols.LightPush, Protocols.Filter], 10_000);
  return {
    async send(encoder, payload) {
      const result = await node.lightPush.send(encoder, { payload });
      if (result.successes.length === 0) console.warn(`no service node took a message: ${result.failures[0]?.error}`);
    },
    async receive(decoder, handler) {
      if (!(await node.filter.subscribe(decoder, handler)))
        throw new Error(`cannot subscribe to ${decoder.contentTopic}`);
    },
    async stop() {
      // The subscriptions' keep-alive timers outlive `stop` and would keep the process running.
      node.filter.unsubscribeAll();
      await node.stop();
    },
  };
}

const route = (contentTopic: string) => utils.createRoutingInfo(NETWORK, { contentTopic });
const node = light ? await joinAsLight() : await joinAsRelay();
const cardEncoder = createPlainEncoder({ contentTopic: DISCOVERY_TOPIC, routingInfo: route(DISCOVERY_TOPIC) });

async function announce(): Promise<void> {
  await node.send(cardEncoder, utf8ToBytes(JSON.stringify(card))).catch(() => undefined);
}

// ---- tasks (§4, §6) ---------------------------------------------------------------------------------------------

interface Task {
  readonly owner: string;
  readonly statusKey: string;
  readonly replies: Uint8Array[];
}
const tasks = new Map<string, Task>();

/** Publishes one reply body on the task's status topic, under its status key, signed by this agent (§2.7.4). */
async function publish(taskId: string, statusKey: string, body: Uint8Array): Promise<void> {
  const contentTopic = `/logos-a2a/1/task-${taskId}/json`;
  const encoder = createSymmetricEncoder({
    contentTopic,
    routingInfo: route(contentTopic),
    symKey: new Uint8Array(Buffer.from(statusKey, 'base64url')),
    sigPrivKey: keys.waku,
  });
  await node.send(encoder, body).catch(() => undefined);
}

async function reply(taskId: string, statusKey: string, fields: Record<string, unknown>): Promise<Uint8Array> {
  const body = utf8ToBytes(JSON.stringify({ v: 1, id: randomUUID(), task_id: taskId, ...fields }));
  await publish(taskId, statusKey, body);
  return body;
}

interface Request {
  type: string;
  task_id: string;
  from: string;
  status_key: string;
  params?: { text?: unknown };
  after_seq?: number;
}

async function handle(request: Request, sender: string): Promise<void> {
  const task = tasks.get(request.task_id);
  if (task && (task.owner !== sender || task.statusKey !== request.status_key)) return; // not the submitter
  if (task) {
    // A repeated request, a task_get or a cancel of a finished task: the replies again.
    for (const body of task.replies) await publish(request.task_id, task.statusKey, body);
    return;
  }
  if (request.type !== 'task_request') {
    // A task this agent does not know (§4.3).
    await reply(request.task_id, request.status_key, {
      seq: (request.after_seq ?? 0) + 1,
      type: 'task_result',
      state: 'failed',
      error: { code: 'unknown_task', message: 'The agent has no record of this task.' },
    });
    return;
  }
  const text = typeof request.params?.text === 'string' ? request.params.text : '';
  const entry: Task = { owner: sender, statusKey: request.status_key, replies: [] };
  tasks.set(request.task_id, entry);
  entry.replies.push(
    await reply(request.task_id, request.status_key, {
      seq: 1,
      type: 'task_result',
      state: 'completed',
      result: text.toUpperCase(),
    }),
  );
}

// ---- requests in (§2.7.3): signed, addressed to this agent, from their signer ----------------------------------

await node.receive(createEciesDecoder(inboxTopic, route(inboxTopic), keys.waku), (message) => {
  if (!message.signaturePublicKey) return;
  const signer = bytesToHex(message.signaturePublicKey);
  try {
    const request = JSON.parse(new TextDecoder().decode(message.payload)) as Request & { to: string };
    if (canonical(request.to) !== bytesToHex(publicKey) || canonical(request.from) !== signer) return;
    void handle(request, signer).catch(() => undefined);
  } catch {
    // not JSON: a node ignores what it cannot read
  }
});

// Listening first, then announced: at once, and every 30 s.
await announce();
const announcer = setInterval(() => void announce(), 30_000);
console.log(`stock-agent ${card.id}: ${address}, joined through ${peer} as a ${light ? 'light' : 'relay'} node; ready`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(announcer);
    void node.stop();
  });
}
