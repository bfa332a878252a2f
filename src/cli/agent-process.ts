/**
 * `logos-a2a agent`: one of the built-in Logos agents as its own process, on Waku only. It joins the relay network
 * through the peers it is given, announces its card on the discovery topic, and serves tasks until stopped.
 */
import { CliFailure } from './errors.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../logos/discovery.ts';
import type { LogosAgent } from '../logos/agent-runtime.ts';
import { conformanceAgent } from '../logos/agents/conformance.ts';
import { echoAgent } from '../logos/agents/echo.ts';
import { NETWORK_PRESETS, type NetworkName } from '../logos/network-presets.ts';
import { loadOrCreateKey } from '../logos/secret-key-file.ts';
import { WakuTransport } from '../logos/transports/waku.ts';
import { startNodeRestServer, type NodeRestSettings } from '../logos/node-rest/server.ts';

export interface AgentProcessOptions {
  kind: 'echo' | 'conformance';
  /** The agent's id (its URL at the gateway: /agents/{id}); default: the kind. */
  id?: string;
  peers: string[];
  /** The Waku network's preset (default `local`): its cluster, shards, size limit, and entry nodes besides `peers`. */
  network?: NetworkName;
  listen?: string[];
  keyFile?: string;
  /** The LEZ key the card is signed with (default .data/agent-ID.lez.key, created on first start). */
  cardKeyFile?: string;
  discoveryTopic?: string;
  announceEveryMs?: number;
  /** Serve the node's nwaku REST API (for Workers and nwaku clients). */
  rest?: NodeRestSettings;
}

export interface AgentProcess {
  agent: LogosAgent;
  transport: WakuTransport;
  /** Where the node's nwaku REST API is, when served. */
  restUrl?: string;
  stop(): Promise<void>;
}

/** A key from its file, or a one-line failure naming the option the file came from. */
function keyFrom(file: string, option: string): Uint8Array {
  try {
    return loadOrCreateKey(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code ? `${code}, check the path and its permissions` : (error as Error).message;
    throw new CliFailure(`logos-a2a agent: cannot use the key file ${file} (${option}): ${reason}`);
  }
}

export async function startAgentProcess(options: AgentProcessOptions): Promise<AgentProcess> {
  const preset = NETWORK_PRESETS[options.network ?? 'local'];
  const transport = new WakuTransport({
    privateKey: keyFrom(options.keyFile ?? `.data/agent-${options.id ?? options.kind}.key`, '--key-file'),
    listen: options.listen ?? ['/ip4/127.0.0.1/tcp/0'],
    staticPeers: [...preset.entryNodes, ...options.peers],
    clusterId: preset.clusterId,
    numShardsInCluster: preset.shards,
    maxMessageBytes: preset.maxMessageBytes,
  });
  const id = options.id ?? options.kind;
  const builtin = {
    ...(options.id ? { id: options.id } : {}),
    // The card is announced signed by this LEZ key, kept beside the agent's Waku identity.
    cardKey: keyFrom(options.cardKeyFile ?? `.data/agent-${id}.lez.key`, '--card-key-file'),
    discoveryTopic: options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC,
    ...(options.announceEveryMs ? { announceEveryMs: options.announceEveryMs } : {}),
  };
  const agent = options.kind === 'echo' ? echoAgent(transport, builtin) : conformanceAgent(transport, builtin);
  await agent.start();
  let rest: Awaited<ReturnType<typeof startNodeRestServer>> | undefined;
  try {
    rest = options.rest ? await startNodeRestServer(transport, options.rest) : undefined;
  } catch (error) {
    await agent.stop();
    throw error;
  }
  return {
    agent,
    transport,
    ...(rest ? { restUrl: rest.url } : {}),
    async stop() {
      await rest?.stop();
      await agent.stop();
    },
  };
}
