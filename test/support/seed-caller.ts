/**
 * A seed-literal caller, written from docs/bindings/seed.md with stock packages only (nothing of `src/`), as a
 * client of the seed binding would call an agent: a `@waku/sdk` light node that hears seed cards on the discovery
 * topic (§1), sends the seed's requests 1:1 to the card's address (ECIES to its key, signed with the caller's own,
 * on its inbox topic: §4 and items 4–5), reads statuses on `/agent-task/1/<task_id>/json` in the clear, and takes the
 * end of the task only 1:1 from the agent's key (§5).
 *
 *   node seed-caller.ts '{"peer": MULTIADDR, "skill": SKILL, "text": TEXT, "cancel": BOOLEAN}'
 *
 * It prints one JSON line per event: `card` (the seed card it calls), `sent` (each request), `status` (from the task's
 * topic) and `reply` (1:1 from the agent); with `cancel`, it sends `cancel` once the task is working. It exits 0
 * after the task's final 1:1 reply, 1 when none came in 40 s. Cluster 2 with 8 shards, the default discovery topic.
 */
import { randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  createDecoder as createEciesDecoder,
  createEncoder as createEciesEncoder,
} from '@waku/message-encryption/ecies';
import { Protocols, bytesToUtf8, createDecoder, createLightNode, utils, type IDecodedMessage } from '@waku/sdk';

interface Settings {
  peer: string;
  skill: string;
  text: string;
  cancel?: boolean;
}
type Json = Record<string, unknown>;
const { peer, skill, text, cancel = false } = JSON.parse(process.argv[2]!) as Settings;
const network = { clusterId: 2, numShardsInCluster: 8 };
const route = (contentTopic: string) => utils.createRoutingInfo(network, { contentTopic });
const print = (event: object) => process.stdout.write(JSON.stringify(event) + '\n');
const DISCOVERY = '/logos/1/agent-discovery/proto';
const inboxOf = (key: Uint8Array) => `/logos-a2a/1/inbox-${bytesToHex(sha256(key)).slice(0, 16)}/proto`;
const parse = (message: IDecodedMessage): Json | undefined => {
  try {
    return JSON.parse(bytesToUtf8(message.payload)) as Json;
  } catch {
    return undefined;
  }
};

// The caller's identity: a fresh key. The agent answers its requests' signer.
const secretKey = secp256k1.utils.randomSecretKey();
const ownKey = secp256k1.getPublicKey(secretKey, false);

const node = await createLightNode({
  networkConfig: network,
  libp2p: { filterMultiaddrs: false, hideWebSocketInfo: true },
  discovery: { dns: false, peerExchange: false, peerCache: false },
});
await node.start();
await node.dial(peer);
await node.waitForPeers([Protocols.LightPush, Protocols.Filter], 30_000);

// A seed card: a `logos-agent:` id and an `a2a` interface on logos-messaging; its signature names no scheme.
const card = await new Promise<Json>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no seed card heard in 30 s')), 30_000);
  void node.filter.subscribe(createDecoder(DISCOVERY, route(DISCOVERY)), (message) => {
    const heard = parse(message);
    if (typeof heard?.id !== 'string' || !heard.id.startsWith('logos-agent:')) return;
    clearTimeout(timer);
    resolve(heard);
  });
});
const iface = (card.agentInterfaces as Json[]).find((i) => i.type === 'a2a' && i.transport === 'logos-messaging')!;
const address = String(iface.address)
  .replace(/^waku:/, '')
  .replace(/^0x/, '');
const agentKey = secp256k1.Point.fromHex(address.toLowerCase()).toBytes(false);
print({ event: 'card', card });

const taskId = randomUUID();
let finish: (code: number) => void = () => undefined;
const finished = new Promise<number>((resolve) => (finish = resolve));
const fromAgent = (message: { signaturePublicKey?: Uint8Array | undefined }) =>
  message.signaturePublicKey !== undefined && bytesToHex(message.signaturePublicKey) === bytesToHex(agentKey);

// Listening before asking: 1:1 replies on the caller's own inbox, statuses on the task's topic.
const ownInbox = inboxOf(ownKey);
await node.filter.subscribe(createEciesDecoder(ownInbox, route(ownInbox), secretKey), (message) => {
  const body = parse(message);
  if (!body || body.task_id !== taskId || !fromAgent(message)) return;
  print({ event: 'reply', body });
  if (body.type === 'task_result' || body.type === 'cancelled') finish(0);
});
const statusTopic = `/agent-task/1/${taskId}/json`;
let cancelled = false;
await node.filter.subscribe(createDecoder(statusTopic, route(statusTopic)), (message) => {
  const body = parse(message);
  if (!body) return;
  print({ event: 'status', body });
  if (cancel && !cancelled && body.state === 'working') {
    cancelled = true;
    void send('cancel', {});
  }
});

const agentInbox = inboxOf(agentKey);
const encoder = createEciesEncoder({
  contentTopic: agentInbox,
  routingInfo: route(agentInbox),
  publicKey: agentKey,
  sigPrivKey: secretKey,
});
async function send(type: string, params: Json): Promise<void> {
  const request = { type, task_id: taskId, skill, params, lez_price: '0' };
  const pushed = await node.lightPush.send(encoder, { payload: utf8ToBytes(JSON.stringify(request)) });
  print({ event: 'sent', request, successes: pushed.successes.length });
  if (pushed.successes.length === 0) finish(1);
}
await send('task_request', { text });

const timer = setTimeout(() => finish(1), 40_000);
const code = await finished;
clearTimeout(timer);
await node.stop();
process.exit(code);
