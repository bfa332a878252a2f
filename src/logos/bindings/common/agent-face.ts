/**
 * The agent side of a peer binding (issue #27): an agent on this project's runtime (agent-runtime.ts) is announced
 * on a peer network in that binding's card format, signed with that binding's scheme, and answers that binding's
 * requests. A face translates: what it hears becomes this binding's gateway envelopes (envelope.ts), handed to the
 * runtime as if the gateway had sent them, and the runtime's replies, published through the face's `PeerReplies`,
 * leave in the peer's words. The runtime stays binding-agnostic: it runs the same skills, payments and reply log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { base64urlnopad } from '@scure/base';
import {
  AgentEnvelope,
  BINDING_VERSION,
  type DistributiveOmit,
  GatewayEnvelope,
  type GatewayEnvelopeInput,
  type TaskResultEnvelope,
  type WireMessage,
  type WirePart,
} from '../../envelope.ts';
import { skillPrice, type LogosAgentCard } from '../../card.ts';
import { formatAccountId, publicAccountId } from '../../../lez/account-id.ts';
import { xOnlyPublicKey } from '../../../lez/public-key.ts';
import type { LogosTransport, Unsubscribe } from '../../transport.ts';
import type { PeerBindingName } from './peer-card.ts';

/** Where the runtime's replies to one peer task go: the face's translation onto its network. */
export type PeerReplies = Pick<LogosTransport, 'publish' | 'maxPayloadBytes'>;

/** What a face needs of the agent it speaks for (agent-runtime.ts `LogosAgent`). */
export interface PeerAgentHost {
  readonly card: LogosAgentCard;
  /**
   * A request heard on the peer network, in this binding's words, from `sender` (the face's name for whoever may
   * go on with the task: peer bindings authenticate no caller); its replies are published through `replies`.
   */
  accept(envelope: GatewayEnvelope, sender: string, replies: PeerReplies): void;
}

/** A message relayed on one of the node's shards, whatever its content topic (the peers' nwaku nodes see as much). */
export interface RelayedMessage {
  readonly contentTopic: string;
  readonly payload: Uint8Array;
}

/**
 * The node of the peer network a face speaks on: plain publish and subscribe, and for a binding whose agents have
 * no inbox (lp-0008: a task's topic is named by the task) every message of a shard (transports/waku.ts).
 */
export interface AgentSideNode extends Pick<LogosTransport, 'publish' | 'subscribe' | 'maxPayloadBytes'> {
  onRelayMessage?(observer: (message: RelayedMessage) => void): Unsubscribe;
  relayContentTopic?(contentTopic: string): void;
}

export interface PeerFace {
  /** A peer binding, or the seed's dialect, spoken on the agent's own network (seed-agent-side.ts). */
  readonly binding: PeerBindingName | 'seed';
  /** The configured network it speaks on (`own` for the seed's face: the agent's own network). */
  readonly network: string;
  /** Where its card is announced. */
  readonly discoveryTopic: string;
  /** The signed card, as announced: an object in the peer binding's shape. */
  readonly card: Record<string, unknown>;
  /**
   * The card's key where the binding publishes it apart from the card (lp-0008): what the operators of the gateways
   * that call the agent configure (a network's `cardKeys`, kid → x-only key in hex).
   */
  readonly keyApart?: { readonly kid: string; readonly key: string };
  /** Starts listening for the binding's requests to `host`. */
  start(host: PeerAgentHost): void;
  /** Publishes the card on the discovery topic (the runtime calls it with its own announcements). */
  announce(): Promise<void>;
  /** Stops listening; the card is no longer announced, so gateways list the agent offline (a withdrawal). */
  stop(): void;
}

/**
 * A status key of a peer task, derived from the task id under a secret of the face: peers send none, and a
 * follow-up (a cancel, a continuation) must carry the one its request had (agent-runtime.ts). 32 bytes, base64url.
 */
export function peerStatusKey(secret: Uint8Array, taskId: string): string {
  return base64urlnopad.encode(createHash('sha256').update(secret).update(taskId).digest());
}

/** A fresh secret for `peerStatusKey`, one per face. */
export const statusKeySecret = (): Uint8Array => randomBytes(32);

/**
 * A request of a peer as the gateway envelope the runtime takes, with the fields a face fills in; undefined when the
 * peer's values do not fit one (an over-long skill name, say): a peer's bad message is dropped, as ours are.
 */
export function gatewayEnvelope(
  body: GatewayBody,
  taskId: string,
  sender: string,
  to: string,
  secret: Uint8Array,
): GatewayEnvelope | undefined {
  const parsed = GatewayEnvelope.safeParse({
    ...body,
    v: BINDING_VERSION,
    id: randomBytes(16).toString('hex'),
    task_id: taskId,
    from: sender,
    to,
    status_key: peerStatusKey(secret, taskId),
  });
  return parsed.success ? parsed.data : undefined;
}

/** What a face says of a request: the envelope less the fields `gatewayEnvelope` fills in. */
export type GatewayBody = DistributiveOmit<GatewayEnvelopeInput, 'v' | 'id' | 'task_id' | 'from' | 'to' | 'status_key'>;

/** A reply of the runtime, as it published it (reply-log.ts); a face speaks only of its own replies. */
export function runtimeReply(payload: Uint8Array): AgentEnvelope {
  return AgentEnvelope.parse(JSON.parse(new TextDecoder().decode(payload)));
}

/**
 * The text of parts (data parts as their JSON), run together: the parts of one artifact or message are one content
 * (a streamed artifact's chunks come as parts), which is what a peer whose results are text reads.
 */
export function partsText(parts: readonly WirePart[]): string {
  return parts
    .flatMap((part) => ('text' in part ? [part.text] : 'data' in part ? [JSON.stringify(part.data)] : []))
    .join('');
}

export function messageText(message: WireMessage | undefined): string {
  if (message === undefined) return '';
  return typeof message === 'string' ? message : partsText(message.parts);
}

/**
 * The result of a completed reply as text: a string as it is, other JSON as JSON, else its artifacts' text, one
 * artifact a line, else its message's.
 */
export function resultText(reply: TaskResultEnvelope): string {
  if (typeof reply.result === 'string') return reply.result;
  if (reply.result !== undefined) return JSON.stringify(reply.result);
  const artifacts = (reply.artifacts ?? []).map((artifact) => partsText(artifact.parts)).join('\n');
  return artifacts || messageText(reply.message);
}

/** A completed reply as JSON: the skill's output; without one, an artifact's one data part as it is, else its text. */
export function resultData(reply: TaskResultEnvelope): unknown {
  if (reply.result !== undefined) return reply.result;
  const parts = (reply.artifacts ?? []).flatMap((artifact) => artifact.parts);
  const only = parts.length === 1 ? parts[0]! : undefined;
  return only && 'data' in only ? only.data : resultText(reply);
}

/** The free skills of a card: the only ones a face announces, as no peer binding's payment is taken on this side. */
export function freeSkills(card: LogosAgentCard): LogosAgentCard['skills'] {
  return card.skills.filter((skill) => BigInt(skillPrice(card, skill.id)) === 0n);
}

/** The LEZ account of a card key: what a face names the agent by on a peer network (its topics, its card). */
export function cardKeyAccount(cardKey: Uint8Array): string {
  return formatAccountId(publicAccountId(xOnlyPublicKey(cardKey)));
}

/** What every face is made with: the network, its node, the topic to announce on, and the agent's card key. */
export interface FaceOptions {
  readonly network: string;
  readonly node: AgentSideNode;
  /** The network's `discoveryTopic` setting; the binding's own board when absent, where it has one. */
  readonly discoveryTopic?: string | undefined;
  /** The agent's card key (the LEZ secret key its own card is signed with): each binding's key is it or made from it. */
  readonly cardKey: Uint8Array;
}
