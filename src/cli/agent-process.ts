/**
 * `logos-a2a agent`: one of the built-in Logos agents as its own process, on Waku only. It joins the relay network
 * through the peers it is given (or, as a light node, sends and receives through them as service nodes), announces
 * its card on the discovery topic, and serves tasks until stopped. The paid agent is paid to its card key's LEZ
 * account on a sequencer of either protocol profile (probed as the gateway probes it; on one with fees its refunds
 * declare a fee within the operator's cap) and keeps its money state in its data directory, so that a process
 * killed at any point refunds, at its next start, every paid task it can no longer complete.
 */
import { join } from 'node:path';
import { CliFailure } from './errors.ts';
import { openNetworksFile } from './networks-file.ts';
import { peerFacesOn, withSeedFace } from '../logos/bindings/agent-faces.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../logos/discovery.ts';
import type { LogosAgent } from '../logos/agent-runtime.ts';
import { conformanceAgent } from '../logos/agents/conformance.ts';
import { echoAgent } from '../logos/agents/echo.ts';
import { NETWORK_PRESETS, type NetworkName } from '../logos/network-presets.ts';
import { loadOrCreateKey } from '../logos/secret-key-file.ts';
import { WakuTransport } from '../logos/transports/waku.ts';
import { WakuLightTransport } from '../logos/transports/waku-light.ts';
import { startNodeRestServer, type NodeRestSettings } from '../logos/node-rest/server.ts';
import { paidAgent } from '../logos/agents/paid.ts';
import { signingKeyFromSecretKey } from '../lez/keys.ts';
import { agentPayments, detectLezProtocol, lezRail } from '../gateway/payment-wiring.ts';
import { SqliteAgentPaymentStore } from '../store/sqlite/agent-payment-store.ts';
import type { AgentPaymentStore } from '../store/agent-payment-store.ts';
import type { SigningMode } from '../lez/signing.ts';
import type { ProtocolProfile } from '../lez/protocol-profile.ts';
import { SequencerClient } from '../lez/sequencer-client.ts';
import type { PrivateAccount } from './private-account.ts';

export type AgentKind = 'echo' | 'conformance' | 'paid';
/** How the agent is on the network: a relay node of its own, or a light node of service nodes (as the gateway's `transport.kind`). */
export type AgentTransportKind = 'waku' | 'waku-light';

export interface AgentProcessOptions {
  kind: AgentKind;
  /** The agent's id (its URL at the gateway: /agents/{id}); default: the kind. */
  id?: string;
  /** `waku` (default): a relay node joined through `peers`; `waku-light`: a light node of `peers` (and the entry nodes). */
  transport?: AgentTransportKind;
  peers: string[];
  /** The Waku network's preset (default `local`): its cluster, shards, size limit, and entry nodes besides `peers`. */
  network?: NetworkName;
  /** Where its relay node listens (`waku` only). */
  listen?: string[];
  /** Where the agent keeps its files (default .data): its keys, unless given, and the paid agent's money state. */
  dataDir?: string;
  keyFile?: string;
  /** The LEZ key the card is signed with (default DATA/agent-ID.lez.key, created on first start); the paid agent is paid to its account. */
  cardKeyFile?: string;
  /** The paid agent's LEZ sequencer (required for it): payments are checked and refunds paid there. */
  sequencerUrl?: string;
  /** The signing mode the sequencer is expected to want; used as it is when the sequencer does not answer at start. */
  signingMode?: SigningMode;
  /** The protocol profile the sequencer is expected to speak (default: detected, as the gateway does). */
  profile?: ProtocolProfile;
  /** On a sequencer with fees: a hard cap on one refund's fee, base units (payments.maxFee; default: docs/lez.md §10.5). */
  maxFee?: string;
  /** On a sequencer with fees: the gas limit each refund declares (payments.gasLimit). */
  gasLimit?: number;
  /** The paid agent also takes shielded payments into this private account (docs/payments.md §10). */
  privateAccount?: PrivateAccount;
  discoveryTopic?: string;
  announceEveryMs?: number;
  /** The peer networks it is announced on as well (networks-file.ts). */
  networksFile?: string;
  /** Also speaks the seed's dialect on its own network (docs/bindings/seed.md §6). */
  seedDialect?: boolean;
  /** Serve the node's nwaku REST API (for Workers and nwaku clients; `waku` only). */
  rest?: NodeRestSettings;
  /** The conformance agent: declare the TCK's extension required (conformance.ts). */
  requireTckExtension?: boolean;
}

export interface AgentProcess {
  agent: LogosAgent;
  transport: WakuTransport | WakuLightTransport;
  /** Where the node's nwaku REST API is, when served. */
  restUrl?: string;
  /** The paid agent's: the protocol profile of its sequencer, as probed. */
  profile?: ProtocolProfile;
  /** Where the peer networks of `networksFile` are joined, a line each (networks-file.ts). */
  peerNetworks: string[];
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
  if (options.transport === 'waku-light' && (options.listen || options.rest)) {
    throw new CliFailure('logos-a2a agent: a waku-light agent has no node of its own to listen on or serve REST from');
  }
  const preset = NETWORK_PRESETS[options.network ?? 'local'];
  const dataDir = options.dataDir ?? '.data';
  const id = options.id ?? options.kind;
  const cardKey = keyFrom(options.cardKeyFile ?? join(dataDir, `agent-${id}.lez.key`), '--card-key-file');
  // Money first: the store is opened and the sequencer probed before the agent can take a task.
  const paid = options.kind === 'paid' ? await paidSide(options, dataDir, id, cardKey) : undefined;
  const privateKey = keyFrom(options.keyFile ?? join(dataDir, `agent-${id}.key`), '--key-file');
  const network = {
    clusterId: preset.clusterId,
    numShardsInCluster: preset.shards,
    maxMessageBytes: preset.maxMessageBytes,
  };
  const transport =
    options.transport === 'waku-light'
      ? new WakuLightTransport({ privateKey, servicePeers: [...preset.entryNodes, ...options.peers], ...network })
      : new WakuTransport({
          privateKey,
          listen: options.listen ?? ['/ip4/127.0.0.1/tcp/0'],
          staticPeers: [...preset.entryNodes, ...options.peers],
          // On a fleet, more relay peers than its entry nodes, as the gateway's node has.
          peerExchange: preset.peerExchange,
          ...network,
        });
  const peerNetworks = options.networksFile
    ? await openNetworksFile(options.networksFile, 'logos-a2a agent')
    : undefined;
  const log = (line: string) => process.stdout.write(`logos-a2a agent: ${line}\n`);
  const builtin = {
    ...(options.id ? { id: options.id } : {}),
    ...(peerNetworks || options.seedDialect
      ? {
          peerFaces: withSeedFace(
            peerNetworks && peerFacesOn(peerNetworks.networks, cardKey, log),
            options.seedDialect
              ? { node: transport, discoveryTopic: options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC, cardKey }
              : undefined,
          ),
        }
      : {}),
    // The card is announced signed by this LEZ key, kept beside the agent's Waku identity.
    cardKey,
    discoveryTopic: options.discoveryTopic ?? DEFAULT_DISCOVERY_TOPIC,
    ...(options.announceEveryMs ? { announceEveryMs: options.announceEveryMs } : {}),
  };
  const agent = paid
    ? paidAgent(transport, paid.payments, builtin)
    : options.kind === 'echo'
      ? echoAgent(transport, builtin)
      : conformanceAgent(transport, { ...builtin, requireTckExtension: options.requireTckExtension ?? false });
  let rest: Awaited<ReturnType<typeof startNodeRestServer>> | undefined;
  try {
    await agent.start();
    rest =
      options.rest && transport instanceof WakuTransport
        ? await startNodeRestServer(transport, options.rest)
        : undefined;
  } catch (error) {
    await agent.stop();
    paid?.close();
    await peerNetworks?.stop();
    throw error;
  }
  return {
    agent,
    transport,
    ...(rest ? { restUrl: rest.url } : {}),
    ...(paid ? { profile: paid.profile } : {}),
    peerNetworks: peerNetworks?.banner() ?? [],
    async stop() {
      await rest?.stop();
      await agent.stop();
      paid?.close();
      await peerNetworks?.stop();
    },
  };
}

/** The paid agent's payments: its card key's account on the sequencer, its money state in DATA/agent-ID-payments.db. */
async function paidSide(options: AgentProcessOptions, dataDir: string, id: string, cardKey: Uint8Array) {
  if (!options.sequencerUrl) throw new CliFailure('logos-a2a agent paid: --sequencer URL is required');
  // The gateway's probes (payment-wiring.ts): a sequencer that contradicts itself, or the options, or speaks another
  // API stops the start with one line (a ConfigError).
  const { signingMode, protocol } = await detectLezProtocol(
    options.sequencerUrl,
    {
      signingMode: options.signingMode,
      profile: options.profile,
      ...(options.maxFee === undefined ? {} : { maxFee: options.maxFee }),
      ...(options.gasLimit === undefined ? {} : { gasLimit: options.gasLimit }),
    },
    () => undefined,
  );
  // The fees revision's privacy-preserving transactions are not read (docs/lez.md §11.7): no payment could be taken.
  if (options.privateAccount && protocol.profile !== 'v0.2') {
    throw new CliFailure(
      `logos-a2a agent paid: private payments are read on a v0.2 sequencer only, and ${options.sequencerUrl} speaks ${protocol.profile}`,
    );
  }
  const receiving = options.privateAccount && {
    keys: options.privateAccount.keys,
    sequencer: new SequencerClient({ url: options.sequencerUrl, layout: protocol.profile }),
  };
  // Refunds are the agent's transfers: on a sequencer with fees each declares one, within the cap (docs/lez.md §10.5).
  const rail = lezRail(options.sequencerUrl, signingKeyFromSecretKey(cardKey), signingMode, undefined, protocol);
  let store: AgentPaymentStore;
  try {
    store = new SqliteAgentPaymentStore(join(dataDir, `agent-${id}-payments.db`));
  } catch (error) {
    rail.close();
    throw new CliFailure(
      `logos-a2a agent paid: cannot open its payment state in ${dataDir}: ${(error as Error).message}`,
    );
  }
  return {
    payments: agentPayments(rail, store, receiving),
    profile: protocol.profile,
    close: () => {
      rail.close();
      store.close();
    },
  };
}
