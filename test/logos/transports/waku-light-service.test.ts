/**
 * The light protocols served by our node, used by a stock `@waku/sdk` 0.0.36 light node in its own process over
 * WebSocket: LightPush v3 and v2 reach relay peers, Filter v2 pushes what the relay carries; and the answers nwaku
 * gives to requests it refuses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { multiaddr } from '@multiformats/multiaddr';
import { proto_filter_v2, proto_lightpush, proto_message } from '@waku/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { FILTER_PUSH_CODEC } from '../../../src/logos/transports/waku/filter-service.ts';
import { exchange } from '../../../src/logos/transports/waku/length-prefixed.ts';
import { eventually } from '../../support/gateway.ts';

const PUSHED = '/stock-app/1/to-relay/proto';
const RELAYED = '/stock-app/1/to-light/proto';
const script = fileURLToPath(new URL('../../support/stock-light-node.mjs', import.meta.url));

let service: WakuTransport;
let relayPeer: WakuTransport;
let light: ChildProcess;
const events: Record<string, unknown>[] = [];

/** Raw WakuMessages the relay peer sees on a content topic. */
function tapRelay(transport: WakuTransport, contentTopic: string): string[] {
  const texts: string[] = [];
  transport.node!.services.pubsub.addEventListener('message', (event) => {
    const message = proto_message.WakuMessage.decode(event.detail.data);
    if (message.contentTopic === contentTopic) texts.push(new TextDecoder().decode(message.payload));
  });
  return texts;
}

function command(line: object): void {
  light.stdin!.write(JSON.stringify(line) + '\n');
}

beforeAll(async () => {
  service = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
  // A plain relay peer: it relays only the shards it is told to.
  relayPeer = await WakuTransport.create({ staticPeers: service.multiaddrs(), serveLightClients: false });
  light = spawn(
    process.execPath,
    [script, JSON.stringify({ peer: service.multiaddrs()[0], clusterId: 2, shards: 8, listen: [RELAYED] })],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let errors = '';
  light.stderr!.on('data', (chunk) => (errors += chunk));
  createInterface({ input: light.stdout! }).on('line', (line) => events.push(JSON.parse(line)));
  await eventually(() => {
    if (light.exitCode !== null) throw new Error(`the light node exited with ${light.exitCode}:\n${errors}`);
    return events.some((e) => e.event === 'ready') ? true : undefined;
  }, 60_000);
}, 90_000);

afterAll(async () => {
  light?.kill();
  await Promise.all([service?.stop(), relayPeer?.stop()]);
});

describe('a stock light node through our node', { timeout: 60_000 }, () => {
  it('pushes with LightPush v3 and v2 to a relay peer, and gets what the relay carries through Filter', async () => {
    // The relay peer joins the shard the light node pushes on, and must be in the service's mesh for it.
    const pushedShard = service.pubsubTopicFor(PUSHED);
    relayPeer.node!.services.pubsub.subscribe(pushedShard);
    const atRelay = tapRelay(relayPeer, PUSHED);
    await eventually(() => (service.node!.services.pubsub.getMeshPeers(pushedShard).length > 0 ? true : undefined));

    command({ push: 'hello over v3', topic: PUSHED });
    await eventually(() => (atRelay.includes('hello over v3') ? true : undefined), 20_000);
    command({ push: 'hello over v2', topic: PUSHED, legacy: true });
    await eventually(() => (atRelay.includes('hello over v2') ? true : undefined), 20_000);
    const pushed = await eventually(() => {
      const outcomes = events.filter((e) => e.event === 'pushed');
      return outcomes.length === 2 ? outcomes : undefined;
    });
    expect(pushed).toEqual([
      { event: 'pushed', successes: 1, failures: [] },
      { event: 'pushed', successes: 1, failures: [] },
    ]);

    const relayedShard = service.pubsubTopicFor(RELAYED);
    await eventually(() => (relayPeer.node!.services.pubsub.getMeshPeers(relayedShard).length > 0 ? true : undefined));
    const wire = proto_message.WakuMessage.encode({
      payload: new TextEncoder().encode('from the relay'),
      contentTopic: RELAYED,
      timestamp: BigInt(Date.now()) * 1_000_000n,
    });
    await relayPeer.node!.services.pubsub.publish(relayedShard, wire);
    await eventually(
      () =>
        events.some((e) => e.event === 'received' && e.text === 'from the relay' && e.topic === RELAYED) || undefined,
    );
  });

  it('pushes a burst over its stream limits to it whole, and frees the push streams it never closes', async () => {
    // A stock light node reads each push stream to its end but never closes its side (see filter-push-streams.ts):
    // unless this node resets them, 64 half-open streams stop every later push. 300 is past both ends' limits.
    const relayedShard = service.pubsubTopicFor(RELAYED);
    const texts = Array.from({ length: 300 }, (_, i) => `burst ${i}`);
    for (const text of texts) {
      const wire = proto_message.WakuMessage.encode({
        payload: new TextEncoder().encode(text),
        contentTopic: RELAYED,
        timestamp: BigInt(Date.now()) * 1_000_000n,
      });
      await relayPeer.node!.services.pubsub.publish(relayedShard, wire);
    }
    const pushStreams = () =>
      service
        .node!.getConnections()
        .flatMap((connection) => connection.streams)
        .filter((stream) => stream.protocol === FILTER_PUSH_CODEC).length;
    await eventually(() => {
      const received = new Set(events.filter((e) => e.event === 'received').map((e) => e.text));
      return texts.every((text) => received.has(text)) || undefined;
    }, 30_000);
    await eventually(() => (pushStreams() === 0 ? true : undefined), 15_000);
  });
});

describe('refusals, as nwaku answers them', () => {
  async function ask(codec: string, request: Uint8Array): Promise<Uint8Array> {
    const stream = await relayPeer.node!.dialProtocol(multiaddr(service.multiaddrs()[0]!), codec);
    return (await exchange(stream, request, 65_536, 5_000))!;
  }
  const message = (fields: Partial<proto_message.WakuMessage>) => ({
    payload: new TextEncoder().encode('x'),
    contentTopic: PUSHED,
    ...fields,
  });

  it('LightPush v3: a bad content topic, another cluster, an empty or oversized payload, a shard with nobody', async () => {
    const push = async (request: Partial<proto_lightpush.LightPushRequestV3>) =>
      proto_lightpush.LightPushResponseV3.decode(
        await ask(
          '/vac/waku/lightpush/3.0.0',
          proto_lightpush.LightPushRequestV3.encode({ requestId: 'r', ...request }),
        ),
      );
    expect(await push({ message: message({ contentTopic: 'not-a-topic' }) })).toMatchObject({
      requestId: 'r',
      statusCode: 420,
      statusDesc: expect.stringMatching(/Invalid content-topic/),
    });
    expect(await push({ pubsubTopic: '/waku/2/rs/1/0', message: message({}) })).toMatchObject({ statusCode: 421 });
    expect(await push({ pubsubTopic: '/waku/2/rs/2/8', message: message({}) })).toMatchObject({ statusCode: 421 });
    expect(await push({ message: message({ payload: new Uint8Array(0) }) })).toMatchObject({
      statusCode: 420,
      statusDesc: 'the message has an empty payload',
    });
    expect(await push({ message: message({ payload: new Uint8Array(service.maxMessageBytes) }) })).toMatchObject({
      statusCode: 420,
      statusDesc: `Message size exceeded maximum of ${service.maxMessageBytes} bytes`,
    });
    expect(await push({})).toMatchObject({ statusCode: 400 });
    // Nobody relays or listens on this shard: nwaku's 505.
    const busy = [PUSHED, RELAYED, '/logos-a2a/1/binding/json'].map((topic) => service.pubsubTopicFor(topic));
    let version = 1;
    while (busy.includes(service.pubsubTopicFor(`/lonely-app/${version}/nobody/proto`))) version += 1;
    const lonely = `/lonely-app/${version}/nobody/proto`;
    const lonelyAnswer = await push({ message: message({ contentTopic: lonely }) });
    expect(lonelyAnswer).toMatchObject({
      statusCode: 505,
      statusDesc: 'No peers for topic, skipping publish',
    });
  });

  it('Filter v2: ping without subscriptions, missing topics, another cluster, unsubscribe of nothing', async () => {
    const Type = proto_filter_v2.FilterSubscribeRequest.FilterSubscribeType;
    const filter = async (request: Partial<proto_filter_v2.FilterSubscribeRequest>) =>
      proto_filter_v2.FilterSubscribeResponse.decode(
        await ask(
          '/vac/waku/filter-subscribe/2.0.0-beta1',
          proto_filter_v2.FilterSubscribeRequest.encode({ requestId: 'f', contentTopics: [], ...request }),
        ),
      );
    expect(await filter({ filterSubscribeType: Type.SUBSCRIBER_PING })).toMatchObject({
      requestId: 'f',
      statusCode: 404,
      statusDesc: 'peer has no subscriptions',
    });
    expect(await filter({ filterSubscribeType: Type.SUBSCRIBE, contentTopics: [PUSHED] })).toMatchObject({
      statusCode: 400,
      statusDesc: 'pubsubTopic and contentTopics must be specified',
    });
    const topics = Array.from({ length: 101 }, (_, i) => `/a/1/t${i}/proto`);
    expect(
      await filter({ filterSubscribeType: Type.SUBSCRIBE, pubsubTopic: '/waku/2/rs/2/0', contentTopics: topics }),
    ).toMatchObject({ statusCode: 400, statusDesc: 'exceeds maximum content topics: 100' });
    expect(
      await filter({ filterSubscribeType: Type.SUBSCRIBE, pubsubTopic: '/waku/2/rs/9/0', contentTopics: [PUSHED] }),
    ).toMatchObject({ statusCode: 400 });
    expect(
      await filter({ filterSubscribeType: Type.UNSUBSCRIBE, pubsubTopic: '/waku/2/rs/2/0', contentTopics: [PUSHED] }),
    ).toMatchObject({ statusCode: 404 });
    const shard = service.pubsubTopicFor(PUSHED);
    expect(
      await filter({ filterSubscribeType: Type.SUBSCRIBE, pubsubTopic: shard, contentTopics: [PUSHED] }),
    ).toMatchObject({ statusCode: 200 });
    expect(await filter({ filterSubscribeType: Type.SUBSCRIBER_PING })).toMatchObject({ statusCode: 200 });
    expect(await filter({ filterSubscribeType: Type.UNSUBSCRIBE_ALL })).toMatchObject({ statusCode: 200 });
    expect(await filter({ filterSubscribeType: Type.UNSUBSCRIBE_ALL })).toMatchObject({ statusCode: 404 });
  });
});
