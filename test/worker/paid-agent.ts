/**
 * The demo's paid agent as a process of its own, for the Worker's payment tests: on a Waku node of its own that
 * serves the nwaku REST API (the Worker's only way in), taking its payments and paying refunds on the LEZ
 * sequencer at argv[2] with the devnet's second genesis account. Prints `paid agent at <REST URL>` once it runs;
 * stops on SIGTERM.
 */
import { hexToBytes } from '../../src/lez/bytes.ts';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { agentPayments, detectSigningMode, lezRail } from '../../src/gateway/payment-wiring.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { paidAgent } from '../../src/logos/agents/paid.ts';
import { NETWORK_PRESETS } from '../../src/logos/network-presets.ts';
import { startNodeRestServer } from '../../src/logos/node-rest/server.ts';
import { generateWakuPrivateKey } from '../../src/logos/transports/waku/identity.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';

const sequencerUrl = process.argv[2]!;
const agentKey = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex));
const local = NETWORK_PRESETS.local;
const transport = new WakuTransport({
  privateKey: generateWakuPrivateKey(),
  listen: ['/ip4/127.0.0.1/tcp/0'],
  staticPeers: [],
  clusterId: local.clusterId,
  numShardsInCluster: local.shards,
  maxMessageBytes: local.maxMessageBytes,
});
const signingMode = await detectSigningMode(sequencerUrl, undefined, () => undefined);
const agent = paidAgent(transport, agentPayments(lezRail(sequencerUrl, agentKey, signingMode)), {
  cardKey: agentKey.secretKey,
  announceEveryMs: 300,
});
await agent.start();
const rest = await startNodeRestServer(transport, { port: 0, host: '127.0.0.1' });
console.log(`paid agent at ${rest.url}`);
process.once('SIGTERM', () => {
  void rest
    .stop()
    .then(() => agent.stop())
    .then(() => process.exit(0));
});
