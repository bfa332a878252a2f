/**
 * Publishing an HTTP A2A agent on Logos: its card is fetched and checked (origin-card.ts), the official client picks
 * the interface to call it on as it would for any caller (JSON-RPC, HTTP+JSON or gRPC; v1.0 or v0.3), and a Logos
 * agent on the runtime stands for it: the bridged card (bridged-card.ts), signed with the publishing side's key for
 * that agent and announced on the discovery topic (again every announce period, withdrawn on stop: a card no longer
 * announced goes offline at gateways), and on each configured peer network in its binding's format (`peerNetworks`),
 * and every skill carried to the HTTP agent (http-relay.ts).
 */
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { LogosAgent, type AgentPayments, type ResumableRequest } from '../logos/agent-runtime.ts';
import type { LogosTransport } from '../logos/transport.ts';
import { peerFacesOn, withSeedFace, type FaceNetwork } from '../logos/bindings/agent-faces.ts';
import type { PublishedTaskStore } from '../store/published-task-store.ts';
import { agentIdFrom, bridgedCard, bridgedSkills } from './bridged-card.ts';
import { HttpRelay } from './http-relay.ts';
import { fetchOriginCard, type OriginCard } from './origin-card.ts';
import { DEFAULT_MAX_CONCURRENT, DEFAULT_RATE_LIMIT_WINDOW_MS, type CardPolicy } from './publish-settings.ts';

/** How the publishing side authenticates to the HTTP agent: a bearer token, or an API key in a header of its own. */
export type HttpAgentAuth = { bearer: string } | { header: string; value: string };

export interface PublishOptions {
  /** Where the HTTP agent is: its card is at URL/.well-known/agent-card.json. */
  url: string;
  /** The published agent's id (its URL at gateways: /agents/{id}); default: made from the HTTP card's name. */
  id?: string;
  auth?: HttpAgentAuth;
  /** What the HTTP card's own signature must be (origin-card.ts); default `refuse-bad-signature`. */
  cardPolicy?: CardPolicy;
  /** Tasks carried to the HTTP agent at once (default 8); more are refused until one ends. */
  maxConcurrent?: number;
  /** Tasks started per `rateLimitWindowMs` (default a minute); more are refused at once, saying so. No limit unless set. */
  rateLimit?: number;
  rateLimitWindowMs?: number;
  /**
   * The Logos node and card-signing key of the published agent, by its id (kept, so its address survives restarts),
   * and, for a priced one, how it takes payments: on the card key's account, which the card names and the key signs.
   */
  node(id: string): {
    transport: LogosTransport;
    cardKey: Uint8Array;
    payments?: AgentPayments;
    /** Where its tasks' HTTP tasks are kept, so that a restart goes on with them (free publications only). */
    tasks?: PublishedTaskStore;
  };
  discoveryTopic?: string;
  announceEveryMs?: number;
  /**
   * The configured peer networks (issue #27): the agent is announced on each whose binding has an agent side, in
   * its format and signed with its scheme (bindings/agent-faces.ts), and answers its requests. Only its free skills:
   * the peer bindings' payments are not taken on this side. `log` says which network it is not announced on.
   */
  peerNetworks?: { networks: readonly FaceNetwork[]; log: (line: string) => void };
  /**
   * Also speaks the seed's dialect on its own network (docs/bindings/seed.md §6): a seed card beside this binding's,
   * and the seed's requests answered at the same address. Free skills only. Off by default: a gateway follows both
   * cards only when it serves unverified agents, and lists the agent twice.
   */
  seedDialect?: boolean;
  /**
   * LEZ prices (base units, decimal strings) by skill id. The publishing side takes the payments as a paid agent
   * does, with the node's `payments`: checked before the HTTP agent is called, paid back when the task fails or is
   * cancelled.
   */
  prices?: Readonly<Record<string, string>>;
}

/** The Logos agent standing for the HTTP agent: its start announces the bridged card. */
export interface PublishedAgent {
  readonly agent: LogosAgent;
  readonly origin: OriginCard;
  /** Stops the agent (its card is no longer announced); tasks kept in `tasks` go on at the next start. */
  stop(): Promise<void>;
  /** Takes task `taskId` within the limits before it is paid for, or says why not (http-relay.ts). */
  admitAhead(taskId: string): Promise<string | undefined>;
}

export type BridgeOutcome = { ok: true; published: PublishedAgent } | { ok: false; message: string };

/**
 * The Logos agent for the HTTP agent at `options.url`, not yet started; a card that cannot be had or that its
 * signature check refuses is a failure.
 */
export async function bridgeHttpAgent(options: PublishOptions): Promise<BridgeOutcome> {
  const headers = authHeaders(options.auth);
  const fetched = await fetchOriginCard(options.url, { ...(headers ? { headers } : {}), ...policy(options) });
  if (!fetched.ok) return fetched;
  const origin = fetched.origin;
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat }),
      new RestTransportFactory({ legacyCompat }),
      new GrpcTransportFactory({ legacyCompat }),
    ],
    cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
  });
  let client;
  try {
    client = await factory.createFromAgentCard(origin.card);
  } catch (error) {
    return { ok: false, message: `no interface of ${options.url} can be called: ${(error as Error).message}` };
  }
  const priced = Object.keys(options.prices ?? {}).length > 0;
  const skills = bridgedSkills(origin.card).map((skill) => skill.id);
  const unknown = Object.keys(options.prices ?? {}).filter((skill) => !skills.includes(skill));
  if (unknown.length > 0) {
    return { ok: false, message: `prices name skills the agent does not have: ${unknown.join(', ')}` };
  }
  const id = options.id ?? agentIdFrom(origin.card.name);
  const { transport, cardKey, payments, tasks } = options.node(id);
  if (priced && !payments) return { ok: false, message: 'prices need payments: an account to be paid on' };
  const streaming = origin.card.capabilities?.streaming === true;
  const relay = new HttpRelay({
    client,
    originUrl: options.url,
    streaming,
    ...(headers ? { headers } : {}),
    maxConcurrent: options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
    ...(options.rateLimit
      ? { rateLimit: { max: options.rateLimit, windowMs: options.rateLimitWindowMs ?? DEFAULT_RATE_LIMIT_WINDOW_MS } }
      : {}),
    // A paid task is not picked up after a restart: the payments' own restart refunds what it can no longer finish.
    ...(tasks && !priced ? { tasks } : {}),
  });
  const card = bridgedCard(origin.card, {
    id,
    originUrl: options.url,
    originInterface: { protocolBinding: client.transport.protocolName, protocolVersion: client.protocolVersion },
    originSignature: origin.signature,
    address: transport.address,
    ...(priced ? { prices: options.prices!, payTo: payments!.account } : {}),
    ...(priced && payments!.privateKeys ? { privateKeys: payments!.privateKeys } : {}),
  });
  const agent = new LogosAgent({
    card,
    transport,
    cardKey,
    skills: Object.fromEntries(card.skills.map((skill) => [skill.id, relay.handler])),
    ...(options.discoveryTopic ? { discoveryTopic: options.discoveryTopic } : {}),
    ...(options.announceEveryMs ? { announceEveryMs: options.announceEveryMs } : {}),
    ...(priced ? { payments: payments! } : {}),
    ...(tasks && !priced ? { resumable: (taskId: string) => resumable(tasks, taskId) } : {}),
    ...(options.peerNetworks || options.seedDialect
      ? {
          peerFaces: withSeedFace(
            options.peerNetworks && peerFacesOn(options.peerNetworks.networks, cardKey, options.peerNetworks.log),
            options.seedDialect ? { node: transport, discoveryTopic: options.discoveryTopic, cardKey } : undefined,
          ),
        }
      : {}),
  });
  const stop = async () => {
    relay.stop();
    await agent.stop();
  };
  const admitAhead = (taskId: string) => relay.admitAhead(taskId);
  return { ok: true, published: { agent, origin, stop, admitAhead } };
}

/** A kept task's request, as the runtime runs it again. */
function resumable(tasks: PublishedTaskStore, taskId: string): ResumableRequest | undefined {
  const kept = tasks.get(taskId);
  if (!kept) return undefined;
  return {
    context_id: kept.contextId,
    skill: kept.skill,
    params: kept.params,
    ...(kept.message ? { message: kept.message } : {}),
  };
}

const policy = (options: PublishOptions) => (options.cardPolicy ? { policy: options.cardPolicy } : {});

function authHeaders(auth: HttpAgentAuth | undefined): Record<string, string> | undefined {
  if (!auth) return undefined;
  return 'bearer' in auth ? { authorization: `Bearer ${auth.bearer}` } : { [auth.header.toLowerCase()]: auth.value };
}
