/**
 * The service side of Waku LightPush, for light nodes (js-waku's `createLightNode`, every browser app) that hand
 * their messages to this node to relay: v3 (`/vac/waku/lightpush/3.0.0`, RFC 19 v3) and v2
 * (`/vac/waku/lightpush/2.0.0-beta1`, for older clients). js-waku has no service side; this follows nwaku's
 * (waku_lightpush/protocol.nim, callbacks.nim): a message without a pubsub topic is routed by autosharding, a
 * message the relay would refuse is answered 420 with the reason, and the answer counts the relay peers the message
 * went to, 505 when there were none. Unlike nwaku, this node counts itself as a recipient when the message is
 * addressed to it (a light node that talks to an agent through the agent's own node is answered, not refused).
 */
import type { IncomingStreamData, Libp2p } from '@libp2p/interface';
import { proto_lightpush, proto_message } from '@waku/proto';
import { exchange, writeFrame } from './length-prefixed.ts';

export const LIGHT_PUSH_V3_CODEC = '/vac/waku/lightpush/3.0.0';
export const LIGHT_PUSH_V2_CODEC = '/vac/waku/lightpush/2.0.0-beta1';
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Requests one light node may have in flight per version: a js-waku light node opens up to libp2p's 64 outbound
 * streams per protocol, over the 32 inbound that libp2p takes by default (it resets the rest: lost messages).
 */
const MAX_REQUESTS_IN_FLIGHT = 64;

/** LightPush v3 status codes (nwaku's LightPushErrorCode). */
export const LightPushStatus = {
  SUCCESS: 200,
  BAD_REQUEST: 400,
  INVALID_MESSAGE: 420,
  UNSUPPORTED_PUBSUB_TOPIC: 421,
  NO_PEERS_TO_RELAY: 505,
} as const;

export type LightPushOutcome = { kind: 'relayed'; peers: number } | { kind: 'refused'; status: number; reason: string };

/** What a LightPush (and Filter) service needs of the relay node it runs on. */
export interface RelayAccess {
  /** Largest encoded WakuMessage relayed. */
  readonly maxMessageBytes: number;
  /** The shard a content topic is routed on; throws for a content topic autosharding refuses. */
  pubsubTopicFor(contentTopic: string): string;
  /** Joins a shard (a no-op when already joined); false when it is not a shard of this node's cluster. */
  join(pubsubTopic: string): boolean;
  /** Publishes an encoded WakuMessage on a shard; resolves with the number of parties it reached. */
  publish(pubsubTopic: string, wire: Uint8Array, contentTopic: string): Promise<number>;
}

/** Registers both versions; resolves when the handlers are in place. */
export async function serveLightPush(node: Libp2p, relay: RelayAccess): Promise<void> {
  const options = { runOnLimitedConnection: false, maxInboundStreams: MAX_REQUESTS_IN_FLIGHT };
  await node.handle(LIGHT_PUSH_V3_CODEC, (data: IncomingStreamData) => void answer(data, relay, 'v3'), options);
  await node.handle(LIGHT_PUSH_V2_CODEC, (data: IncomingStreamData) => void answer(data, relay, 'v2'), options);
}

async function answer({ stream }: IncomingStreamData, relay: RelayAccess, version: 'v2' | 'v3'): Promise<void> {
  try {
    const request = await exchange(stream, undefined, relay.maxMessageBytes + 4_096, REQUEST_TIMEOUT_MS);
    if (!request) return stream.abort(new Error('no request'));
    const response = version === 'v3' ? await answerV3(request, relay) : await answerV2(request, relay);
    await writeFrame(stream, response, REQUEST_TIMEOUT_MS);
  } catch (error) {
    stream.abort(error as Error);
  }
}

async function answerV3(bytes: Uint8Array, relay: RelayAccess): Promise<Uint8Array> {
  let request: proto_lightpush.LightPushRequestV3;
  try {
    request = proto_lightpush.LightPushRequestV3.decode(bytes);
  } catch (error) {
    return encodeV3('N/A', { kind: 'refused', status: LightPushStatus.BAD_REQUEST, reason: decodeFailure(error) });
  }
  return encodeV3(request.requestId, await push(relay, request.pubsubTopic, request.message));
}

function encodeV3(requestId: string, outcome: LightPushOutcome): Uint8Array {
  return proto_lightpush.LightPushResponseV3.encode(
    outcome.kind === 'relayed'
      ? { requestId, statusCode: LightPushStatus.SUCCESS, relayPeerCount: outcome.peers }
      : { requestId, statusCode: outcome.status, statusDesc: outcome.reason },
  );
}

async function answerV2(bytes: Uint8Array, relay: RelayAccess): Promise<Uint8Array> {
  let rpc: proto_lightpush.PushRpc;
  try {
    rpc = proto_lightpush.PushRpc.decode(bytes);
  } catch (error) {
    return encodeV2('N/A', { kind: 'refused', status: LightPushStatus.BAD_REQUEST, reason: decodeFailure(error) });
  }
  if (!rpc.request) {
    return encodeV2(rpc.requestId, { kind: 'refused', status: LightPushStatus.BAD_REQUEST, reason: 'no request' });
  }
  return encodeV2(rpc.requestId, await push(relay, rpc.request.pubsubTopic || undefined, rpc.request.message));
}

function encodeV2(requestId: string, outcome: LightPushOutcome): Uint8Array {
  return proto_lightpush.PushRpc.encode({
    requestId,
    response:
      outcome.kind === 'relayed'
        ? { isSuccess: true, relayPeerCount: outcome.peers }
        : { isSuccess: false, info: outcome.reason },
  });
}

async function push(
  relay: RelayAccess,
  pubsubTopic: string | undefined,
  message: proto_message.WakuMessage | undefined,
): Promise<LightPushOutcome> {
  const refuse = (status: number, reason: string): LightPushOutcome => ({ kind: 'refused', status, reason });
  if (!message) return refuse(LightPushStatus.BAD_REQUEST, 'the request carries no message');
  let topic = pubsubTopic;
  if (topic === undefined) {
    try {
      topic = relay.pubsubTopicFor(message.contentTopic);
    } catch (error) {
      return refuse(LightPushStatus.INVALID_MESSAGE, `Invalid content-topic: ${(error as Error).message}`);
    }
  }
  if (message.payload.length === 0) return refuse(LightPushStatus.INVALID_MESSAGE, 'the message has an empty payload');
  const wire = proto_message.WakuMessage.encode(message);
  if (wire.length > relay.maxMessageBytes) {
    return refuse(LightPushStatus.INVALID_MESSAGE, `Message size exceeded maximum of ${relay.maxMessageBytes} bytes`);
  }
  if (!relay.join(topic)) {
    return refuse(LightPushStatus.UNSUPPORTED_PUBSUB_TOPIC, `${topic} is not a shard of this node's cluster`);
  }
  const peers = await relay.publish(topic, wire, message.contentTopic);
  if (peers === 0) return refuse(LightPushStatus.NO_PEERS_TO_RELAY, 'No peers for topic, skipping publish');
  return { kind: 'relayed', peers };
}

function decodeFailure(error: unknown): string {
  return `Failed to decode the request: ${(error as Error).message}`;
}
