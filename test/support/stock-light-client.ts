/**
 * A client written with stock packages only, as a third party would from docs/binding.md: a `@waku/sdk` light node
 * that asks a Logos agent for one task itself, with no gateway. Through a service node (LightPush and Filter) it
 * subscribes to the task's status topic with the stock symmetric decoder under a status key of its own, then sends
 * the agent a `task_request` sealed with the stock ECIES encoder and signed with its own key (§2.7.3, §4.1).
 *
 *   node stock-light-client.ts '{"peer": MULTIADDR, "agent": "waku:04…", "skill": SKILL, "text": TEXT}'
 *
 * It prints one JSON line per event: `sent` (the request and what the service node said), then `reply` for each
 * envelope the agent published on the status topic; it exits 0 after the task's final reply, 1 when none came in
 * 30 s. Cluster 2 with 8 shards (the binding's defaults) unless `clusterId` and `shards` say otherwise.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { createEncoder as createEciesEncoder } from '@waku/message-encryption/ecies';
import { createDecoder as createSymmetricDecoder } from '@waku/message-encryption/symmetric';
import { Protocols, bytesToUtf8, createLightNode, utils } from '@waku/sdk';

interface Settings {
  peer: string;
  agent: string;
  skill: string;
  text: string;
  clusterId?: number;
  shards?: number;
}
const { peer, agent, skill, text, clusterId = 2, shards = 8 } = JSON.parse(process.argv[2]!) as Settings;
const network = { clusterId, numShardsInCluster: shards };
const route = (contentTopic: string) => utils.createRoutingInfo(network, { contentTopic });
const print = (event: object) => process.stdout.write(JSON.stringify(event) + '\n');

// This client's identity (§2.7.1): a fresh key, whose uncompressed public key is its address.
const secretKey = secp256k1.utils.randomSecretKey();
const from = `waku:${bytesToHex(secp256k1.getPublicKey(secretKey, false))}`;
// The agent's key as the stock ECIES encoder takes it (65 bytes), whichever form its address is written in.
const agentKey = secp256k1.Point.fromHex(agent.slice('waku:'.length).toLowerCase()).toBytes(false);
const inboxTopic = `/logos-a2a/1/inbox-${bytesToHex(sha256(agentKey)).slice(0, 16)}/proto`;

const taskId = randomUUID();
const statusKey = randomBytes(32);
const statusTopic = `/logos-a2a/1/task-${taskId}/json`;

const node = await createLightNode({
  networkConfig: network,
  libp2p: { filterMultiaddrs: false, hideWebSocketInfo: true },
  discovery: { dns: false, peerExchange: false, peerCache: false },
});
await node.start();
await node.dial(peer);
await node.waitForPeers([Protocols.LightPush, Protocols.Filter], 30_000);

// Listening before asking, as the binding wants of whoever sends a task_request (§4.1).
let finish: (code: number) => void = () => undefined;
const finished = new Promise<number>((resolve) => (finish = resolve));
const subscribed = await node.filter.subscribe(
  createSymmetricDecoder(statusTopic, route(statusTopic), statusKey),
  (message) => {
    // Only what the agent signed is its reply (§2.7.4).
    if (!message.signaturePublicKey || bytesToHex(message.signaturePublicKey) !== bytesToHex(agentKey)) return;
    const body = JSON.parse(bytesToUtf8(message.payload)) as { type?: string };
    print({ event: 'reply', body });
    if (body.type === 'task_result' || body.type === 'cancelled') finish(0);
  },
);
if (!subscribed) throw new Error(`could not subscribe to ${statusTopic}`);

const request = {
  v: 1,
  type: 'task_request',
  id: randomUUID(),
  task_id: taskId,
  from,
  to: agent,
  status_key: statusKey.toString('base64url'),
  context_id: randomUUID(),
  skill,
  params: { text },
};
const encoder = createEciesEncoder({
  contentTopic: inboxTopic,
  routingInfo: route(inboxTopic),
  publicKey: agentKey,
  sigPrivKey: secretKey,
});
const pushed = await node.lightPush.send(encoder, { payload: utf8ToBytes(JSON.stringify(request)) });
print({
  event: 'sent',
  request,
  successes: pushed.successes.length,
  failures: pushed.failures.map((failure) => failure.error),
});
if (pushed.successes.length === 0) finish(1);

const timer = setTimeout(() => finish(1), 30_000);
const code = await finished;
clearTimeout(timer);
await node.stop();
process.exit(code);
