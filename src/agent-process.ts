/**
 * `logos-a2a agent`: one of the built-in Logos agents as its own process, on Waku only. It joins the relay network
 * through the peers it is given, announces its card on the discovery topic, and serves tasks until stopped.
 */
import { DEFAULT_DISCOVERY_TOPIC } from './logos/discovery.ts';
import type { LogosAgent } from './logos/agent-runtime.ts';
import { conformanceAgent } from './logos/agents/conformance.ts';
import { echoAgent } from './logos/agents/echo.ts';
import { loadOrCreateKey } from './logos/key-file.ts';
import { WakuTransport } from './logos/transports/waku.ts';

export interface AgentProcessOptions {
  kind: 'echo' | 'conformance';
  /** The agent's id (its URL at the gateway: /agents/{id}); default: the kind. */
  id?: string;
  peers: string[];
  listen?: string[];
  keyFile?: string;
  /** The LEZ key the card is signed with (default .data/agent-ID.lez.key, created on first start). */
  cardKeyFile?: string;
  discoveryTopic?: string;
  announceEveryMs?: number;
  clusterId?: number;
  shards?: number;
}

export interface AgentProcess {
  agent: LogosAgent;
  transport: WakuTransport;
  stop(): Promise<void>;
}

export async function startAgentProcess(options: AgentProcessOptions): Promise<AgentProcess> {
  const transport = new WakuTransport({
    privateKey: loadOrCreateKey(options.keyFile ?? `.data/agent-${options.id ?? options.kind}.key`),
    listen: options.listen ?? ['/ip4/127.0.0.1/tcp/0'],
    staticPeers: options.peers,
    ...(options.clusterId !== undefined ? { clusterId: options.clusterId } : {}),
    ...(options.shards !== undefined ? { numShardsInCluster: options.shards } : {}),
  });
  const id = options.id ?? options.kind;
  const builtin = {
    ...(options.id ? { id: options.id } : {}),
    // The card is announced signed by this LEZ key, kept beside the agent's Waku identity.
    cardKey: loadOrCreateKey(options.cardKeyFile ?? `.data/agent-${id}.lez.key`),
    discoveryTopic: options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC,
    ...(options.announceEveryMs ? { announceEveryMs: options.announceEveryMs } : {}),
  };
  const agent = options.kind === 'echo' ? echoAgent(transport, builtin) : conformanceAgent(transport, builtin);
  await agent.start();
  return { agent, transport, stop: () => agent.stop() };
}
