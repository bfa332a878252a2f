/**
 * Content topics and shards of the peer bindings (issue #22): every project that carries A2A over Logos Messaging
 * routes by autosharding, so what a gateway must know of a peer's network is its cluster, its number of shards, and
 * the application and version of its topics.
 *
 * - A content topic has exactly four segments, `/{app}/{version}/{name}/{encoding}`. Autosharding reads a fifth
 *   leading segment as a generation and refuses one that is not a number, so a deeper path cannot be routed.
 * - Its shard is the last 8 bytes of SHA-256(app ‖ version), big-endian, modulo the cluster's shards (RFC 51's
 *   generation zero); its pubsub topic is `/waku/2/rs/{cluster}/{shard}`.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

/** Where a peer binding's agents live: a cluster and its autosharding shard count. */
export interface PeerNetwork {
  readonly clusterId: number;
  readonly shards: number;
}

/** One segment of a content topic: not empty, no slash. */
const SEGMENT = /^[^/]+$/;

/** `/{app}/{version}/{name}/{encoding}`; throws on a segment that would make the topic unroutable (a caller's bug). */
export function contentTopic(app: string, version: string, name: string, encoding: string): string {
  for (const segment of [app, version, name, encoding]) {
    if (!SEGMENT.test(segment))
      throw new TypeError(`content topic segment ${JSON.stringify(segment)} is empty or has a slash`);
  }
  return `/${app}/${version}/${name}/${encoding}`;
}

/** The app and version of a routable content topic, or undefined when it does not have exactly four segments. */
export function topicApplication(topic: string): { app: string; version: string } | undefined {
  const segments = topic.split('/');
  if (segments.length !== 5 || segments[0] !== '' || !segments.slice(1).every((s) => SEGMENT.test(s))) return undefined;
  return { app: segments[1]!, version: segments[2]! };
}

/** The shard autosharding puts every topic of `app`/`version` on. */
export function shardOf(app: string, version: string, shards: number): number {
  const digest = sha256(utf8ToBytes(app + version));
  const tail = new DataView(digest.buffer, digest.byteOffset + 24, 8).getBigUint64(0, false);
  return Number(tail % BigInt(shards));
}

export function pubsubTopic(clusterId: number, shard: number): string {
  return `/waku/2/rs/${clusterId}/${shard}`;
}

/** The pubsub topic a content topic travels on in `network`; throws on an unroutable topic. */
export function pubsubTopicOf(topic: string, network: PeerNetwork): string {
  const application = topicApplication(topic);
  if (!application) throw new TypeError(`${topic} is not a four-segment content topic`);
  return pubsubTopic(network.clusterId, shardOf(application.app, application.version, network.shards));
}
