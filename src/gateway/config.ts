/**
 * Every setting in one zod schema, read from an optional JSON file and then from environment variables (which win),
 * with defaults that run out of the box. Errors name the setting and where it came from.
 *
 * Over 500 lines on purpose: one schema is the one place a setting, its default, its variable and its check are
 * read from (the CLI's help and the README are tested against it); each part is a small block of its own.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AGENT_ID_PATTERN, LezAmount } from '../logos/card.ts';
import { PROTOCOL_PROFILES } from '../lez/protocol-profile.ts';
import { CARD_POLICIES, DEFAULT_MAX_CONCURRENT, DEFAULT_RATE_LIMIT_WINDOW_MS } from '../publish/publish-settings.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../logos/discovery.ts';
import { DEFAULT_MAX_AGENTS } from '../logos/announcement-rate.ts';
import { DEFAULT_FORGET_AFTER_MS } from '../logos/directory.ts';
import {
  ANY_NETWORK_NAMES,
  FLEET_MAX_MESSAGE_BYTES,
  NETWORK_NAMES,
  NETWORK_PRESETS,
  anyNetworkPreset,
  isAnyNetworkName,
  isPeerNetworkName,
  type NetworkName,
} from '../logos/network-presets.ts';
import { parseNetwork } from '../address-policy.ts';
import { LOG_LEVELS } from '../observability/logger.ts';

const port = z.coerce.number().int().min(0).max(65535);
const positiveMs = z.coerce.number().int().positive();
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);

export const BuiltinAgent = z.enum(['echo', 'conformance', 'paid']);

const MemoryTransportConfig = z.object({ kind: z.literal('memory') }).strict();
/** What overrides a network preset's values, for the gateway's own network and for the peer bindings' networks. */
const presetOverrideFields = {
  /** The network's entry nodes, in place of the preset's (`[]`: none). */
  entryNodes: z.array(z.string().min(1)).optional(),
  clusterId: z.number().int().nonnegative().max(65535).optional(),
  shards: z.number().int().positive().max(1024).optional(),
  /** Largest encoded WakuMessage sent or relayed, in bytes. */
  maxMessageBytes: z
    .number()
    .int()
    .min(16 * 1024)
    .optional(),
};

/** The Waku network joined, and the gateway's identity on it: the same for a relay node and a light node. */
const wakuNetworkFields = {
  /**
   * The network, by the name of its logos-delivery preset: its cluster, shard count, message size limit and entry
   * nodes. `local` has no entry nodes. The settings below, when given, override the preset's.
   */
  network: z.enum(NETWORK_NAMES).default('local'),
  /** Peers to stay connected to, besides the entry nodes (waku-light: its service nodes). */
  peers: z.array(z.string().min(1)).default([]),
  ...presetOverrideFields,
  /** The gateway's Logos identity (secp256k1 key, hex); created on first start. */
  keyFile: z.string().min(1).default('.data/gateway.key'),
};

interface PresetOverrides {
  network: NetworkName;
  entryNodes?: string[] | undefined;
  clusterId?: number | undefined;
  shards?: number | undefined;
  maxMessageBytes?: number | undefined;
}

/** The preset's values where no setting overrides them. */
function withPreset<T extends PresetOverrides>({ entryNodes, clusterId, shards, maxMessageBytes, ...rest }: T) {
  const preset = NETWORK_PRESETS[rest.network];
  return {
    ...rest,
    entryNodes: entryNodes ?? [...preset.entryNodes],
    clusterId: clusterId ?? preset.clusterId,
    shards: shards ?? preset.shards,
    maxMessageBytes: maxMessageBytes ?? preset.maxMessageBytes,
  };
}

const WakuTransportConfig = z
  .object({
    kind: z.literal('waku'),
    ...wakuNetworkFields,
    /** Multiaddrs the gateway's node listens on; agents (and other relays) dial these. */
    listen: z.array(z.string().min(1)).min(1).default(['/ip4/127.0.0.1/tcp/60000']),
    /**
     * The node's key, which fixes its peer id and so its join address across restarts. Default: beside `keyFile`
     * with SQLite; with PostgreSQL, where replicas share `keyFile`, a fresh one per start unless set (one per replica).
     */
    nodeKeyFile: z.string().min(1).optional(),
    /**
     * Peer exchange: peers that serve it (the fleets' nodes) are asked for more relay peers of the cluster, dialled
     * up to 12 relay peers. Default: the network's (on for logos.dev and logos.test, off for local).
     */
    peerExchange: z.boolean().optional(),
    /**
     * Replicas: a DNS name and port (`host:port`) whose every address runs another replica's relay node (on
     * Kubernetes, the headless Service `logos-a2a-waku-peers`). Each is dialled and kept, so that the replicas form
     * one mesh and an agent that reached one of them reaches all. Off unless set.
     */
    replicaPeers: z
      .string()
      .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'a DNS name and a port, e.g. "logos-a2a-waku-peers:60000"')
      .transform((text) => {
        const [host, port] = text.split(':') as [string, string];
        return { host, port: Number(port) };
      })
      .optional(),
    /** The node's nwaku REST API (relay, health, info; docs/binding.md §2.10), for Workers and nwaku clients. Off unless set. */
    rest: z
      .object({
        port,
        /** No authentication, as nwaku's: keep it on loopback or a private network. */
        host: z.string().min(1).default('127.0.0.1'),
        /** Messages kept for pollers in all (nwaku's --rest-relay-cache-capacity). */
        cacheCapacity: z.number().int().positive().default(50),
      })
      .strict()
      .optional(),
  })
  .strict()
  .transform(withPreset)
  .transform(({ peerExchange, ...rest }) => ({
    ...rest,
    peerExchange: peerExchange ?? NETWORK_PRESETS[rest.network].peerExchange,
  }));

/** A light node of the network's service nodes (entry nodes and peers): no relay, nothing to listen on. */
const WakuLightTransportConfig = z
  .object({ kind: z.literal('waku-light'), ...wakuNetworkFields })
  .strict()
  .transform(withPreset);
export type WakuTransportConfig = z.infer<typeof WakuTransportConfig>;
const NwakuRestTransportConfig = z
  .object({
    kind: z.literal('nwaku-rest'),
    /** The REST API of an nwaku or logos-delivery node (or of another gateway's or agent's node), e.g. http://127.0.0.1:8645. */
    url: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), 'must be an http(s) URL'),
    /** The gateway's Logos identity (secp256k1 key, hex); created on first start. */
    keyFile: z.string().min(1).default('.data/gateway.key'),
    pollIntervalMs: z.coerce.number().int().positive().default(250),
    /** Largest WakuMessage the node relays, in bytes (its `--max-msg-size`): the presets' 150 KiB by default. */
    maxMessageBytes: z
      .number()
      .int()
      .min(16 * 1024)
      .default(FLEET_MAX_MESSAGE_BYTES),
  })
  .strict();

/**
 * One Waku network the peer bindings' agents live on, besides the gateway's own (`transport`): a name, a preset
 * (a fleet's or a peer binding's: docs/bindings/), and what overrides it. Networks on one cluster share one node.
 */
const PeerNetworkConfig = z
  .object({
    /** How tasks and agents name the network; a preset's name needs no `preset`. */
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'lowercase letters, digits, ".", "-" and "_", at most 63'),
    preset: z.enum(ANY_NETWORK_NAMES).optional(),
    ...presetOverrideFields,
    /** Nodes to dial and keep, besides the entry nodes: the peers' own nodes (an agent's nwaku, say). */
    bootstrap: z.array(z.string().min(1)).default([]),
    /** Multiaddrs the network's node listens on, for agents that dial the gateway; loopback on a free port by default. */
    listen: z.array(z.string().min(1)).default([]),
    /**
     * The topic the agents' cards are heard on, where the binding's default is not the one (lp-0008 has none: its
     * operators agree on a board, docs/bindings/lp-0008.md).
     */
    discoveryTopic: z
      .string()
      .regex(/^\/[^/]+\/[^/]+\/[^/]+\/[^/]+$/, 'a content topic of four segments, /app/version/name/encoding')
      .optional(),
    /**
     * Card keys published apart from the cards (lp-0008: docs/bindings/lp-0008.md): the `kid` of a card's signature
     * → its BIP-340 x-only public key, 32 bytes of hex. A card whose kid is not here cannot be verified.
     */
    cardKeys: z
      .record(z.string().min(1).max(128), z.string().regex(/^[0-9a-fA-F]{64}$/, 'a 32-byte x-only key in hex'))
      .default({}),
  })
  .strict()
  .transform((network, context) => {
    const presetName = network.preset ?? (isAnyNetworkName(network.name) ? network.name : undefined);
    if (!presetName && network.clusterId === undefined) {
      context.addIssue({ code: 'custom', message: `network ${network.name}: name a preset or a clusterId` });
      return z.NEVER;
    }
    const preset = presetName ? anyNetworkPreset(presetName) : undefined;
    return {
      name: network.name,
      clusterId: network.clusterId ?? preset!.clusterId,
      shards: network.shards ?? preset?.shards ?? 8,
      maxMessageBytes: network.maxMessageBytes ?? preset?.maxMessageBytes ?? FLEET_MAX_MESSAGE_BYTES,
      entryNodes: network.entryNodes ?? [...(preset?.entryNodes ?? [])],
      bootstrap: network.bootstrap,
      listen: network.listen,
      peerExchange: preset?.peerExchange ?? false,
      /** The peer binding whose agents the network is followed for: a peer binding's preset names it. */
      binding: presetName && isPeerNetworkName(presetName) ? presetName : undefined,
      discoveryTopic: network.discoveryTopic,
      cardKeys: Object.fromEntries(Object.entries(network.cardKeys).map(([kid, key]) => [kid, key.toLowerCase()])),
    };
  });
export type PeerNetworkConfig = z.infer<typeof PeerNetworkConfig>;

/** Names are unique, and networks on one cluster agree on what its one node is (shards, message size). */
export const PeerNetworksConfig = z
  .array(PeerNetworkConfig)
  .default([])
  .superRefine((networks, context) => {
    networks.forEach((network, index) => {
      if (networks.findIndex((other) => other.name === network.name) !== index) {
        context.addIssue({ code: 'custom', path: [index, 'name'], message: `${network.name} is named twice` });
      }
      const first = networks.find((other) => other.clusterId === network.clusterId)!;
      if (first.shards !== network.shards || first.maxMessageBytes !== network.maxMessageBytes) {
        context.addIssue({
          code: 'custom',
          path: [index],
          message: `${network.name} and ${first.name} share cluster ${network.clusterId}, so one node: they must agree on shards and maxMessageBytes`,
        });
      }
    });
  });

/** The public LEZ networks' sequencers. */
export const LEZ_NETWORKS = { testnet: 'https://testnet.lez.logos.co' } as const;

const PaymentsConfig = z
  .object({
    /** none: priced skills are refused; lez: pay on a LEZ sequencer; memory: an in-process ledger (tests). */
    rail: z.enum(['none', 'lez', 'memory']).default('none'),
    /**
     * A public LEZ network whose sequencer to pay on (lez rail), when `sequencerUrl` does not name one: `testnet`,
     * the public testnet (https://testnet.lez.logos.co; wallets there match LEZ v0.2.4).
     */
    network: z.enum(['testnet']).optional(),
    /** The sequencer's JSON-RPC URL (lez rail); default: the `network`'s. */
    sequencerUrl: z.string().url().optional(),
    /** What LEZ signatures sign; detected from the sequencer at start, which a configured mode must agree with. */
    signingMode: z.enum(['prehash-v0.3', 'raw-borsh']).optional(),
    /**
     * The LEZ protocol profile: `v0.2` (the public testnet today) or `lee-v0.3` (fees). Detected from the sequencer at
     * start (getFeeState), which a configured profile must agree with; used alone only when the sequencer cannot tell.
     */
    profile: z.enum(PROTOCOL_PROFILES).optional(),
    /**
     * On a sequencer with fees: a hard cap on the fee of one payment, base units. Without it the cap is what a
     * transfer reserves at base fees of 8 times the protocol minimum (docs/lez.md §10.5).
     */
    maxFee: LezAmount.optional(),
    /**
     * On a sequencer with fees: the gas limit each payment declares (the reserve prices it). Default 200, which
     * covers a transfer on the devnet; the official wallet declares 2,000,000 (docs/lez.md §10.5).
     */
    gasLimit: z.number().int().positive().max(10_000_000).optional(),
    /** The gateway wallet: an encrypted key file (logos-a2a keys new); its passphrase in LOGOS_A2A_WALLET_PASSPHRASE. */
    walletKeyFile: z.string().min(1).default('.data/wallet.json'),
    /**
     * The spending gate's limits, base units: the most one task, and all tasks over `periodMs`, may cost the wallet
     * without an operator's approval, price and fee together. Left out: 100 and 1000 for prices, with each payment's
     * fee cap on top on a chain with fees (bridge/spending-gate.ts, docs/payments.md §6).
     */
    perTransactionLimit: LezAmount.optional(),
    perPeriodLimit: LezAmount.optional(),
    periodMs: z.number().int().positive().default(86_400_000),
    approvalTimeoutMs: z.number().int().positive().default(3_600_000),
    /**
     * Whether every paid task of an agent whose binding has no refunds (the peer bindings, docs/bindings/) waits for
     * an operator's approval, whatever its price: money paid to such an agent does not come back.
     */
    approveWithoutRefunds: z.boolean().default(false),
    /**
     * How long a payment in doubt (the sequencer went away mid-payment) is resumed, and a sequencer that cannot be
     * reached is asked again, before the task fails.
     */
    inDoubtWaitMs: z.number().int().positive().default(60_000),
  })
  .strict()
  .transform((payments) =>
    payments.network && !payments.sequencerUrl
      ? { ...payments, sequencerUrl: LEZ_NETWORKS[payments.network] }
      : payments,
  );
export type PaymentsConfig = z.infer<typeof PaymentsConfig>;

/**
 * HTTP A2A agents this gateway publishes on Logos (src/publish/), each as a Logos agent of its own: `url` (its card
 * is at URL/.well-known/agent-card.json), `id` (default: from its card's name), `auth` (`{bearer}` or
 * `{header, value}`, sent with every request to it), `cardPolicy` (what its card's own signature must be) and
 * `maxConcurrent` (tasks carried to it at once), `rateLimit` (tasks started per `rateLimitWindowMs`), and for a priced
 * one `prices`, `cardKeyFile` and `sequencerUrl`; `seedDialect` to speak the seed's dialect too. LOGOS_A2A_PUBLISHED: comma-separated URLs, without auth.
 */
const PublishedAgentConfig = z
  .object({
    url: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), 'must be an http(s) URL'),
    id: z.string().regex(AGENT_ID_PATTERN, 'agent id: lowercase letters, digits, - and _, at most 63').optional(),
    auth: z
      .union([
        z.object({ bearer: z.string().min(1) }).strict(),
        z.object({ header: z.string().min(1), value: z.string().min(1) }).strict(),
      ])
      .optional(),
    cardPolicy: z.enum(CARD_POLICIES).default('refuse-bad-signature'),
    maxConcurrent: z.number().int().positive().default(DEFAULT_MAX_CONCURRENT),
    /** Tasks started per window; more are rejected at once, saying the agent is rate limited. No limit when unset. */
    rateLimit: z.number().int().positive().optional(),
    rateLimitWindowMs: z.number().int().positive().default(DEFAULT_RATE_LIMIT_WINDOW_MS),
    /**
     * LEZ prices (base units) by skill id, paid to the account of `cardKeyFile` on `sequencerUrl` (default
     * `payments.sequencerUrl`): checked before the HTTP agent is called, paid back when the task fails or is cancelled.
     */
    prices: z.record(z.string().min(1).max(128), LezAmount).optional(),
    /**
     * The publication's LEZ key (hex), which signs its card and receives its payments: its account must be able to
     * receive on the sequencer. Default: beside the gateway's key, `agent-published-ID.lez.key`, created on first start.
     */
    cardKeyFile: z.string().min(1).optional(),
    /** The sequencer its payments are checked and refunded on, when not `payments.sequencerUrl`. */
    sequencerUrl: z.string().url().optional(),
    /** Also speaks the seed's dialect (docs/bindings/seed.md §6): a seed card beside its own, free skills only. */
    seedDialect: z.boolean().optional(),
    /**
     * With prices: the BIP-39 mnemonic of the operator's LEZ wallet (a file), to take shielded payments into the
     * private account of its key tree's node `privatePath` (default /0) too (docs/payments.md §10).
     */
    privateMnemonicFile: z.string().min(1).optional(),
    privatePath: z.string().min(1).optional(),
  })
  .strict();
const PublishedAgents = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((url) => url.trim())
          .filter(Boolean)
          .map((url) => ({ url }))
      : value,
  z.array(PublishedAgentConfig),
);

export const GatewayConfig = z
  .object({
    port: port.default(8080),
    host: z.string().min(1).default('127.0.0.1'),
    /** The A2A gRPC binding's port (on `host`), for every agent; no gRPC when unset. 0 picks a free one. */
    grpcPort: port.optional(),
    /**
     * Where gRPC clients reach it, `host:port`, as the cards list it. Default: the host of `publicBaseUrl` and the
     * bound gRPC port (set this behind a proxy that forwards gRPC from another address).
     */
    grpcPublicAddress: z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s/:]+):\d{1,5}$/, 'host:port, such as a2a.example.com:443')
      .optional(),
    /** Where clients reach this gateway; every URL in cards is built from it. Default: http://localhost:{port}. */
    publicBaseUrl: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), 'must be an http(s) URL')
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
    /**
     * Where the gateway keeps its state: a SQLite file (":memory:" keeps nothing across restarts), or a PostgreSQL
     * server, `postgres://user@host:port/database`, which any number of replicas may share.
     */
    database: z.string().min(1).default('.data/logos-a2a.db'),
    /** The key the gateway signs served cards with (ES256, JWKS at /.well-known/jwks.json). Default: beside the database. */
    cardSigningKeyFile: z.string().min(1).optional(),
    maxBodyBytes: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    agentTimeoutMs: positiveMs.default(60_000),
    cancelTimeoutMs: positiveMs.default(5_000),
    /**
     * Replicas on PostgreSQL: how long a replica's lease on a task lasts without renewal (renewed every third of
     * it). A replica that died has its tasks taken over by another this long after its last renewal.
     */
    replicaLeaseMs: z.coerce.number().int().min(300).default(15_000),
    sseHeartbeatMs: positiveMs.default(15_000),
    /** The agent served at the root URL. Default: the first agent of `agents`; none when that is empty. */
    defaultAgent: z.string().optional(),
    /**
     * The card a client gets when it names no A2A version: `union` (v1.0 fields plus v0.3's url, preferredTransport,
     * additionalInterfaces and security, so clients of both generations can start) or `v1` (the pure v1.0 card, for
     * validators that reject unknown fields). A2A-Version: 1.0 / 0.3 (or ?v=) always gets the pure card.
     */
    cardShape: z.enum(['union', 'v1']).default('union'),
    /**
     * Slow clients: a request whose headers have not all come within `headersTimeoutMs`, or that has not come whole
     * (headers and body) within `requestTimeoutMs`, is answered 408 and its connection closed. Node's defaults
     * (60 s, 300 s) let a client hold a connection and its buffers for minutes by sending a byte now and then.
     * Answers, streams included, are not limited by them.
     */
    headersTimeoutMs: positiveMs.default(10_000),
    requestTimeoutMs: positiveMs.default(30_000),
    /** On SIGTERM: how long calls in flight get to finish before streams are ended and the process exits. */
    shutdownGraceMs: z.coerce.number().int().nonnegative().default(10_000),
    /**
     * Push-notification webhooks may be http and on private, loopback or link-local addresses (development only: it
     * lets anyone who can create a task make the gateway call into its own network).
     */
    pushAllowPrivate: flag.default(false),
    /** CIDR networks whose webhook receivers are allowed although not public (the operator's own network). */
    pushAllowNetworks: z
      .union([
        z.array(z.string()),
        z.string().transform((list) =>
          list
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean),
        ),
      ])
      .pipe(z.array(z.string().refine(isNetwork, 'a CIDR network such as 10.20.0.0/16 or fd00:1::/64')))
      .default([]),
    /**
     * The Logos network: an embedded Waku relay node (`waku`, default), a Waku light node of service nodes
     * (`waku-light`), the in-process memory network, or the REST API of a relay node run elsewhere (`nwaku-rest`).
     */
    transport: z
      .discriminatedUnion('kind', [
        MemoryTransportConfig,
        WakuTransportConfig,
        WakuLightTransportConfig,
        NwakuRestTransportConfig,
      ])
      .prefault({ kind: 'waku' }),
    /**
     * Serve agents whose card no documented rule verifies (unsigned, or signed the seed's way), marked unverified;
     * off: they are refused.
     */
    allowUnverifiedAgents: flag.default(false),
    /** An agent not heard on the discovery topic for this long is listed as offline. */
    offlineAfterMs: z.coerce.number().int().positive().default(90_000),
    /**
     * Agents heard on the network the directory holds at most (the gateway's own not counted): anyone can announce
     * under fresh keys, so a new agent is refused once it is full, and the agents it lists keep their place.
     */
    maxAgents: z.coerce.number().int().positive().default(DEFAULT_MAX_AGENTS),
    /**
     * An agent not heard on the network for this long is forgotten: its listing, its row and its key pins, so that
     * its room, id and address are free again (a key its agent rotated to is taken then).
     */
    forgetAfterMs: z.coerce
      .number()
      .int()
      .min(3_600_000, { error: 'at least an hour (3600000 ms): a gateway looks for agents to forget hourly' })
      .default(DEFAULT_FORGET_AFTER_MS),
    /** Where agents announce their cards; the gateway serves every agent it hears there. */
    discoveryTopic: z
      .string()
      .regex(/^\/[^/]+\/[^/]+\/[^/]+\/[^/]+$/, 'a content topic /app/version/name/encoding')
      .default(DEFAULT_DISCOVERY_TOPIC),
    /**
     * Further Waku networks, where agents of the peer bindings live (docs/bindings/): one node per cluster, the
     * gateway's own node when it is on the same cluster. Empty by default.
     */
    networks: PeerNetworksConfig,
    payments: PaymentsConfig.prefault({}),
    /** Bearer token of the operator API (/admin/…); the API is off without one. */
    adminToken: z.string().min(16, 'at least 16 characters').optional(),
    /**
     * API keys; when any is set, every A2A call needs one. `budget` caps what tasks called with the key may spend
     * in total (base units); above it a task waits for an operator, as above the wallet's limits.
     */
    apiKeys: z
      .array(
        z
          .object({
            name: z.string().min(1).max(64),
            key: z.string().min(16, 'an API key has at least 16 characters'),
            budget: LezAmount.optional(),
          })
          .strict(),
      )
      .default([]),
    /** Lowest level of the JSON log lines on stdout. */
    logLevel: z.enum(LOG_LEVELS).default('info'),
    /** OTLP/HTTP endpoint traces are exported to (e.g. http://127.0.0.1:4318/v1/traces); none are exported without. */
    otlpEndpoint: z.string().url().optional(),
    /** Requests per window for each API key (429 above it); no limit when unset. */
    rateLimitPerKey: z.coerce.number().int().positive().optional(),
    /** Requests per window for each client address (429 above it); no limit when unset. */
    rateLimitPerAddress: z.coerce.number().int().positive().optional(),
    rateLimitWindowMs: positiveMs.default(60_000),
    /** The client address is the first X-Forwarded-For entry (set this only behind a proxy that writes it). */
    trustProxy: flag.default(false),
    /** Redis that replicas share rate-limit counts through (redis:// or rediss://); else PostgreSQL, else memory. */
    redis: z
      .string()
      .url()
      .refine((url) => /^rediss?:\/\//.test(url), 'a redis:// or rediss:// URL')
      .optional(),
    published: PublishedAgents.default([]),
    /** Agents run in-process on the embedded network. */
    agents: z.array(z.object({ builtin: BuiltinAgent })).default([{ builtin: 'echo' }]),
  })
  .strict()
  // Node refuses a server whose headers may take longer than the whole request.
  .refine((config) => config.headersTimeoutMs <= config.requestTimeoutMs, {
    path: ['headersTimeoutMs'],
    error: 'at most requestTimeoutMs: the headers are part of the request',
  })
  // A priced publication is paid on a sequencer: its own, or the gateway's.
  .superRefine((config, context) => {
    config.published.forEach((entry, index) => {
      if (entry.prices && Object.keys(entry.prices).length > 0 && !entry.sequencerUrl && !config.payments.sequencerUrl)
        context.addIssue({
          code: 'custom',
          path: ['published', index, 'prices'],
          message: 'prices need a sequencer to be paid on: sequencerUrl here, or payments.sequencerUrl',
        });
      const priced = entry.prices && Object.keys(entry.prices).length > 0;
      if ((entry.privateMnemonicFile || entry.privatePath) && !priced)
        context.addIssue({
          code: 'custom',
          path: ['published', index, entry.privateMnemonicFile ? 'privateMnemonicFile' : 'privatePath'],
          message: 'private payments are for a priced publication: set prices too',
        });
      if (entry.privatePath && !entry.privateMnemonicFile)
        context.addIssue({
          code: 'custom',
          path: ['published', index, 'privatePath'],
          message: 'names a node of the wallet whose mnemonic is in privateMnemonicFile: set it too',
        });
    });
  });

export type GatewayConfig = z.infer<typeof GatewayConfig>;
export type GatewayConfigInput = z.input<typeof GatewayConfig>;

/** Environment variable → setting. */
export const ENVIRONMENT: Record<string, keyof GatewayConfig> = {
  PORT: 'port',
  HOST: 'host',
  LOGOS_A2A_GRPC_PORT: 'grpcPort',
  LOGOS_A2A_GRPC_PUBLIC_ADDRESS: 'grpcPublicAddress',
  PUBLIC_BASE_URL: 'publicBaseUrl',
  LOGOS_A2A_DATABASE: 'database',
  LOGOS_A2A_MAX_BODY_BYTES: 'maxBodyBytes',
  LOGOS_A2A_AGENT_TIMEOUT_MS: 'agentTimeoutMs',
  LOGOS_A2A_CANCEL_TIMEOUT_MS: 'cancelTimeoutMs',
  LOGOS_A2A_REPLICA_LEASE_MS: 'replicaLeaseMs',
  LOGOS_A2A_SSE_HEARTBEAT_MS: 'sseHeartbeatMs',
  LOGOS_A2A_DEFAULT_AGENT: 'defaultAgent',
  LOGOS_A2A_DISCOVERY_TOPIC: 'discoveryTopic',
  LOGOS_A2A_ADMIN_TOKEN: 'adminToken',
  LOGOS_A2A_OFFLINE_AFTER_MS: 'offlineAfterMs',
  LOGOS_A2A_MAX_AGENTS: 'maxAgents',
  LOGOS_A2A_FORGET_AFTER_MS: 'forgetAfterMs',
  LOGOS_A2A_CARD_KEY_FILE: 'cardSigningKeyFile',
  LOGOS_A2A_CARD_SHAPE: 'cardShape',
  LOGOS_A2A_SHUTDOWN_GRACE_MS: 'shutdownGraceMs',
  LOGOS_A2A_HEADERS_TIMEOUT_MS: 'headersTimeoutMs',
  LOGOS_A2A_REQUEST_TIMEOUT_MS: 'requestTimeoutMs',
  LOGOS_A2A_PUSH_ALLOW_PRIVATE: 'pushAllowPrivate',
  LOGOS_A2A_PUSH_ALLOW_NETWORKS: 'pushAllowNetworks',
  LOGOS_A2A_ALLOW_UNVERIFIED_AGENTS: 'allowUnverifiedAgents',
  LOGOS_A2A_LOG_LEVEL: 'logLevel',
  LOGOS_A2A_OTLP_ENDPOINT: 'otlpEndpoint',
  LOGOS_A2A_RATE_LIMIT_PER_KEY: 'rateLimitPerKey',
  LOGOS_A2A_RATE_LIMIT_PER_ADDRESS: 'rateLimitPerAddress',
  LOGOS_A2A_RATE_LIMIT_WINDOW_MS: 'rateLimitWindowMs',
  LOGOS_A2A_TRUST_PROXY: 'trustProxy',
  LOGOS_A2A_REDIS: 'redis',
  LOGOS_A2A_PUBLISHED: 'published',
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** Each problem on its own, `setting (source): what is wrong`: the message lists them under a heading. */
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.problems = problems;
  }
}

export function loadConfig(
  options: { file?: string; env?: NodeJS.ProcessEnv; overrides?: GatewayConfigInput } = {},
): GatewayConfig {
  const env = options.env ?? process.env;
  let fromFile: Record<string, unknown> = {};
  if (options.file) {
    try {
      fromFile = JSON.parse(readFileSync(options.file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`Cannot read the config file ${options.file}: ${(error as Error).message}`);
    }
    if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
      throw new ConfigError(`The config file ${options.file} must hold a JSON object.`);
    }
  }
  const fromEnv: Record<string, unknown> = {};
  const fromEnvNames = new Set<string>();
  for (const [name, key] of Object.entries(ENVIRONMENT)) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      fromEnv[key] = value;
      fromEnvNames.add(name);
    }
  }
  const transportFromEnv = transportEnvironment(env, fromFile.transport);
  if (transportFromEnv) fromEnv.transport = transportFromEnv;
  const paymentsFromEnv = paymentsEnvironment(env, fromFile.payments);
  if (paymentsFromEnv) fromEnv.payments = paymentsFromEnv;
  const merged = { ...fromFile, ...fromEnv, ...options.overrides };
  const parsed = GatewayConfig.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(config)';
      const envName = Object.entries(ENVIRONMENT).find(
        ([name, k]) => k === issue.path[0] && fromEnvNames.has(name),
      )?.[0];
      const source = envName ? `env ${envName}` : options.file ? `file ${options.file}` : 'settings';
      return `${key} (${source}): ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`, problems);
  }
  return parsed.data;
}

/**
 * LOGOS_A2A_TRANSPORT (memory | waku | waku-light | nwaku-rest), LOGOS_A2A_NETWORK (a preset), LOGOS_A2A_WAKU_LISTEN
 * and LOGOS_A2A_WAKU_PEERS (comma-separated multiaddrs), LOGOS_A2A_WAKU_REPLICA_PEERS (host:port), LOGOS_A2A_WAKU_KEY_FILE, LOGOS_A2A_WAKU_REST_PORT and
 * LOGOS_A2A_WAKU_REST_HOST (the node's REST API), and LOGOS_A2A_NWAKU_REST_URL (the node an nwaku-rest gateway uses),
 * over what the file says.
 */
function transportEnvironment(env: NodeJS.ProcessEnv, fromFile: unknown): Record<string, unknown> | undefined {
  const list = (value: string | undefined) =>
    value
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const listen = list(env.LOGOS_A2A_WAKU_LISTEN);
  const peers = list(env.LOGOS_A2A_WAKU_PEERS);
  const keyFile = env.LOGOS_A2A_WAKU_KEY_FILE || undefined;
  const nodeKeyFile = env.LOGOS_A2A_WAKU_NODE_KEY_FILE || undefined;
  const kind = env.LOGOS_A2A_TRANSPORT || undefined;
  const network = env.LOGOS_A2A_NETWORK || undefined;
  const url = env.LOGOS_A2A_NWAKU_REST_URL || undefined;
  const restPort = env.LOGOS_A2A_WAKU_REST_PORT || undefined;
  const restHost = env.LOGOS_A2A_WAKU_REST_HOST || undefined;
  const replicaPeers = env.LOGOS_A2A_WAKU_REPLICA_PEERS || undefined;
  if (
    !kind &&
    !network &&
    !listen &&
    !peers &&
    !keyFile &&
    !nodeKeyFile &&
    !url &&
    !restPort &&
    !restHost &&
    !replicaPeers
  )
    return undefined;
  const base = typeof fromFile === 'object' && fromFile !== null ? (fromFile as Record<string, unknown>) : {};
  const baseRest = typeof base.rest === 'object' && base.rest !== null ? base.rest : {};
  return {
    ...base,
    ...(kind ? { kind } : base.kind ? {} : { kind: url ? 'nwaku-rest' : 'waku' }),
    ...(network ? { network } : {}),
    ...(listen ? { listen } : {}),
    ...(peers ? { peers } : {}),
    ...(keyFile ? { keyFile } : {}),
    ...(nodeKeyFile ? { nodeKeyFile } : {}),
    ...(replicaPeers ? { replicaPeers } : {}),
    ...(url ? { url } : {}),
    ...(restPort || restHost
      ? { rest: { ...baseRest, ...(restPort ? { port: restPort } : {}), ...(restHost ? { host: restHost } : {}) } }
      : {}),
  };
}

/**
 * LOGOS_A2A_PAYMENTS_RAIL, LOGOS_A2A_PAYMENTS_NETWORK, LOGOS_A2A_PAYMENTS_PROFILE, LOGOS_A2A_PAYMENTS_MAX_FEE,
 * LOGOS_A2A_PAYMENTS_GAS_LIMIT, LOGOS_A2A_SEQUENCER_URL and LOGOS_A2A_WALLET_KEY_FILE, over what the file says
 * (the Worker's LOGOS_A2A_PAYMENTS JSON, there); undefined when none is set.
 */
export function paymentsEnvironment(env: NodeJS.ProcessEnv, fromFile: unknown): Record<string, unknown> | undefined {
  const overrides = {
    ...(env.LOGOS_A2A_PAYMENTS_RAIL ? { rail: env.LOGOS_A2A_PAYMENTS_RAIL } : {}),
    ...(env.LOGOS_A2A_SEQUENCER_URL ? { sequencerUrl: env.LOGOS_A2A_SEQUENCER_URL } : {}),
    ...(env.LOGOS_A2A_PAYMENTS_NETWORK ? { network: env.LOGOS_A2A_PAYMENTS_NETWORK } : {}),
    ...(env.LOGOS_A2A_PAYMENTS_PROFILE ? { profile: env.LOGOS_A2A_PAYMENTS_PROFILE } : {}),
    ...(env.LOGOS_A2A_PAYMENTS_MAX_FEE ? { maxFee: env.LOGOS_A2A_PAYMENTS_MAX_FEE } : {}),
    ...(env.LOGOS_A2A_PAYMENTS_GAS_LIMIT ? { gasLimit: Number(env.LOGOS_A2A_PAYMENTS_GAS_LIMIT) } : {}),
    ...(env.LOGOS_A2A_WALLET_KEY_FILE ? { walletKeyFile: env.LOGOS_A2A_WALLET_KEY_FILE } : {}),
  };
  if (Object.keys(overrides).length === 0) return undefined;
  const base = typeof fromFile === 'object' && fromFile !== null ? (fromFile as Record<string, unknown>) : {};
  return { ...base, ...overrides };
}

export function publicBaseUrlOf(config: GatewayConfig, boundPort: number): string {
  return config.publicBaseUrl ?? `http://localhost:${boundPort}`;
}

/** Where gRPC clients reach the gateway (the cards' GRPC interfaces): `host:port`. */
export function grpcPublicAddressOf(config: GatewayConfig, publicBaseUrl: string, boundPort: number): string {
  return config.grpcPublicAddress ?? `${new URL(publicBaseUrl).hostname}:${boundPort}`;
}

function isNetwork(cidr: string): boolean {
  try {
    parseNetwork(cidr);
    return true;
  } catch {
    return false;
  }
}
