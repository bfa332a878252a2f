/**
 * The seed agent (seed-agent.ts) as its own process on its own Waku node:
 *
 *   node test/support/seed-agent-process.ts PEER DISCOVERY_TOPIC
 *
 * A working task's status is published again every second, unchanged, as a seed agent shows it is alive.
 * Prints `ready` once it has announced itself, then `request <json>` for each request it receives.
 */
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { runSeedAgent } from './seed-agent.ts';

const [peer, discoveryTopic] = process.argv.slice(2);
if (!peer || !discoveryTopic) throw new Error('usage: seed-agent-process.ts PEER DISCOVERY_TOPIC');

const transport = new WakuTransport({ listen: ['/ip4/127.0.0.1/tcp/0'], staticPeers: [peer] });
await transport.start();
const agent = runSeedAgent(transport, { discoveryTopic, announceEveryMs: 5_000, reportEveryMs: 1_000 });
transport.onDirect((payload) => console.log(`request ${new TextDecoder().decode(payload)}`));
await agent.announce();
console.log('ready');

process.once('SIGTERM', () => {
  agent.stop();
  void transport.stop().then(() => process.exit(0));
});
