/**
 * A stock `@waku/sdk` light node as its own process, driven by JSON lines: it dials the service node given in argv,
 * subscribes through Filter to the content topics given, and prints what it receives; each line on stdin
 * `{"push": TEXT, "topic": CONTENT_TOPIC, "legacy": BOOLEAN}` is sent with LightPush (v3, or v2 when legacy), and
 * the outcome printed. Only stock packages are used, as a third-party app would.
 *
 *   node stock-light-node.mjs '{"peer": MULTIADDR, "clusterId": 2, "shards": 8, "listen": [CONTENT_TOPIC…]}'
 */
import { createInterface } from 'node:readline';
import { Protocols, bytesToUtf8, createLightNode, utf8ToBytes } from '@waku/sdk';

const { peer, clusterId, shards, listen } = JSON.parse(process.argv[2]);
const print = (event) => process.stdout.write(JSON.stringify(event) + '\n');

const node = await createLightNode({
  networkConfig: { clusterId, numShardsInCluster: shards },
  libp2p: { filterMultiaddrs: false, hideWebSocketInfo: true },
  discovery: { dns: false, peerExchange: false, peerCache: false },
});
await node.start();
await node.dial(peer);
await node.waitForPeers([Protocols.LightPush, Protocols.Filter], 45_000);
for (const contentTopic of listen) {
  const subscribed = await node.filter.subscribe(node.createDecoder({ contentTopic }), (message) =>
    print({ event: 'received', topic: message.contentTopic, text: bytesToUtf8(message.payload) }),
  );
  if (!subscribed) throw new Error(`could not subscribe to ${contentTopic}`);
}
print({ event: 'ready' });

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { push, topic, legacy } = JSON.parse(line);
  const result = await node.lightPush.send(
    node.createEncoder({ contentTopic: topic }),
    { payload: utf8ToBytes(push) },
    { useLegacy: Boolean(legacy), autoRetry: false },
  );
  print({ event: 'pushed', successes: result.successes.length, failures: result.failures.map((f) => f.error) });
}
await node.stop();
