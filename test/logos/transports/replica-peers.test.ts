/**
 * Replicas that find each other by DNS (a Kubernetes headless Service): three relay nodes on one port at three
 * loopback addresses, each told that the name resolves to all three. They dial each other (never themselves), so
 * what an agent publishes through one replica reaches the others; an address that leaves the name is let go.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/eventually.ts';
import { freePort } from '../../support/free-port.ts';

const TOPIC = '/logos-a2a/1/task-0d0c8a4e-5c1b-4f0e-9a3a-2b7c6d5e4f31/json';
const IPS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
const started: WakuTransport[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((transport) => transport.stop()));
});

async function replicas(resolve: () => Promise<string[]>, port?: number) {
  port ??= await freePort();
  return Promise.all(
    IPS.map(async (ip) => {
      const transport = await WakuTransport.create({
        listen: [`/ip4/${ip}/tcp/${port}`],
        replicaPeers: { host: 'logos-a2a-waku-peers', port, everyMs: 200, resolve, ownAddresses: () => new Set([ip]) },
      });
      started.push(transport);
      peerIds.set(transport, transport.node!.peerId.toString());
      return transport;
    }),
  );
}

/** The replicas a node is connected to, by index (peer ids: on loopback every connection comes from 127.0.0.1). */
function peersOf(node: WakuTransport, nodes: WakuTransport[]): number[] {
  const connected = new Set(node.node!.getConnections().map((connection) => connection.remotePeer.toString()));
  return nodes.flatMap((other, index) => (connected.has(peerIds.get(other)!) ? [index] : []));
}
const peerIds = new Map<WakuTransport, string>();

describe('replica peers by DNS', () => {
  it('connects every replica to every other, so that a message published on one reaches all', async () => {
    const nodes = await replicas(async () => IPS);
    await eventually(() => nodes.every((node) => peersOf(node, nodes).length === 2) || undefined, 15_000);
    expect(nodes.map((node) => peersOf(node, nodes))).toEqual([
      [1, 2],
      [0, 2],
      [0, 1],
    ]);
    const heard: string[][] = nodes.map(() => []);
    nodes.forEach((node, index) =>
      node.subscribe(TOPIC, (payload) => heard[index]!.push(new TextDecoder().decode(payload))),
    );
    await eventually(() => nodes.every((node) => node.meshPeerCount(TOPIC) === 2) || undefined, 15_000);
    await nodes[0]!.publish(TOPIC, new TextEncoder().encode('from the first replica'));
    await eventually(() => (heard[1]!.length === 1 && heard[2]!.length === 1) || undefined, 15_000);
  });

  it('lets go of a replica the name no longer lists, and keeps trying a name that does not resolve yet', async () => {
    let listed = IPS;
    let resolves = false;
    const port = await freePort();
    const nodes = await replicas(async () => {
      if (!resolves) throw new Error('queryA ENOTFOUND logos-a2a-waku-peers');
      return listed;
    }, port);
    await new Promise((wait) => setTimeout(wait, 300));
    expect(nodes.map((node) => peersOf(node, nodes))).toEqual([[], [], []]);
    resolves = true;
    await eventually(() => nodes.every((node) => peersOf(node, nodes).length === 2) || undefined, 15_000);
    // The third goes away: the others stop redialling it once its connection ends.
    listed = IPS.slice(0, 2);
    await nodes[2]!.stop();
    await new Promise((wait) => setTimeout(wait, 1_500));
    const [first, second] = nodes as [WakuTransport, WakuTransport, WakuTransport];
    expect([peersOf(first, nodes), peersOf(second, nodes)]).toEqual([[1], [0]]);
    // A new node at the address the name no longer lists is not dialled: the others let the address go (they
    // would redial it within a couple of seconds if they still kept it).
    const newcomer = await WakuTransport.create({ listen: [`/ip4/${IPS[2]}/tcp/${port}`] });
    started.push(newcomer);
    peerIds.set(newcomer, newcomer.node!.peerId.toString());
    await new Promise((wait) => setTimeout(wait, 3_000));
    expect([peersOf(first, [newcomer]), peersOf(second, [newcomer])]).toEqual([[], []]);
  });
});
