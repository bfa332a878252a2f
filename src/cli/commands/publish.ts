/**
 * `logos-a2a publish URL`: an HTTP A2A agent published on Logos as its own process (src/publish/). It joins the
 * Logos network through the peers it is given, as `logos-a2a agent` does, announces the bridged card and carries
 * every task it gets to the HTTP agent. What
 * publishing loads (the A2A client, Waku) is loaded when the command runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliFailure, UsageError, checkMultiaddrs } from '../errors.ts';
import { CARD_POLICIES, DEFAULT_MAX_CONCURRENT, type CardPolicy } from '../../publish/publish-settings.ts';
import { SIGNING_MODES, type SigningMode } from '../../lez/signing.ts';
import { str, type Command, type Values } from '../command.ts';
import { untilSignal } from '../until-signal.ts';
import { openNetworksFile } from '../networks-file.ts';
import { privateAccountFrom, privateAccountLines, type PrivateAccount } from '../private-account.ts';

export const PUBLISH_SYNOPSIS = 'URL --peer MULTIADDR [options]';
export const PUBLISH_SUMMARY = 'an HTTP A2A agent published on Logos, as its own process joining a gateway over Waku';

export const PUBLISH_HELP = `Publishes the A2A agent at URL (v1.0 or v0.3; JSON-RPC, HTTP+JSON or gRPC, as its card offers) on the Logos
network: its card is fetched from URL/.well-known/agent-card.json and its own signature checked, a Logos card is
made from it (naming URL, and what its signature said), signed with this publication's key and announced on the
discovery topic; a gateway on that network then serves it at /agents/ID/, and every task it gets is carried to
URL with the official A2A client. Stopping it stops the announcements: gateways list it offline within 90 s.

Options:
  --peer MULTIADDR        a relay peer to join through, e.g. the gateway's "join at" address (repeatable)
  --id ID                 its id, its URL at gateways: /agents/ID/ (default: from the HTTP card's name)
  --bearer-file FILE      a bearer token to send to the HTTP agent (Authorization: Bearer …), read from FILE
  --api-key-header NAME   the header of an API key to send to the HTTP agent, with --api-key-file
  --api-key-file FILE     the API key, read from FILE
  --card-policy POLICY    what the HTTP card's signature must be: refuse-bad-signature (default: unsigned cards
                          are published marked unverified, tampered ones refused), require-signature, or record
  --max-concurrent N      tasks carried to the HTTP agent at once; more are refused (default ${DEFAULT_MAX_CONCURRENT})
  --rate-limit N          tasks started per window (a minute unless --rate-limit-window says); more are
                          rejected at once, saying the agent is rate limited (default: no limit)
  --rate-limit-window MS  the window --rate-limit counts in (default 60000)
  --network NAME          the Waku network: local (default), logos.test or logos.dev
  --listen MULTIADDR      where its node listens (repeatable; default /ip4/127.0.0.1/tcp/0)
  --data DIR              where it keeps its state (default .data): DATA/published-ID.key (its Logos identity) and
                          DATA/published-ID.lez.key (its card key), created on first start, and
                          DATA/published-ID-tasks.db, the HTTP agent's task of each task in flight: started again
                          (even after kill -9), it goes on with them where the HTTP agent has them
  --announce-every MS     how often the card is announced (default 30000)
  --price SKILL=AMOUNT    a LEZ price for a skill, in base units (repeatable); needs --sequencer. Paid to the
                          card key's account, which must be able to receive on the sequencer (on the devnet, one
                          of its genesis accounts: --card-key-file); the payment is checked before the HTTP agent
                          is called, and paid back when the task fails or is cancelled. What it was paid and owes
                          is kept in DATA/published-ID-payments.db
  --sequencer URL         the LEZ sequencer it is paid on
  --signing-mode MODE     prehash-v0.3 or raw-borsh (default: detected from the sequencer)
  --card-key-file FILE    its card key, the LEZ key of the account it is paid to (default DATA/published-ID.lez.key)
  --private-mnemonic-file FILE
                          with --price: the BIP-39 mnemonic of the operator's LEZ wallet, to take shielded payments
                          into its private account too (docs/payments.md §10); printed and on the card: its npk, vpk
  --private-path PATH     the node of that wallet's private key tree (default /0, its first private account)
  --networks-file FILE    peer bindings' networks to announce it on as well, a JSON array written as the gateway's
                          \`networks\` setting (docs/bindings/networks.md): on each logos-agent, lp-0008 and pilot
                          network (lp-0008 with its discoveryTopic) its free skills are announced in that binding's
                          card format and signature, and its requests answered; it prints the key of its lp-0008 card
  --seed-dialect          also announce a seed card (the seed binding's format) beside its own and answer the
                          seed's requests at the same address, free skills only (docs/bindings/seed.md §6)
  -h, --help              this text

Settings: none besides these options. Secrets are read from files, never from the command line.

Ctrl-C or SIGTERM stops it.
`;

export const PUBLISH_OPTIONS = {
  peer: { type: 'string', multiple: true },
  id: { type: 'string' },
  'bearer-file': { type: 'string' },
  'api-key-header': { type: 'string' },
  'api-key-file': { type: 'string' },
  'card-policy': { type: 'string' },
  'max-concurrent': { type: 'string' },
  'rate-limit': { type: 'string' },
  'rate-limit-window': { type: 'string' },
  network: { type: 'string' },
  listen: { type: 'string', multiple: true },
  data: { type: 'string' },
  'announce-every': { type: 'string' },
  price: { type: 'string', multiple: true },
  sequencer: { type: 'string' },
  'private-mnemonic-file': { type: 'string' },
  'private-path': { type: 'string' },
  'signing-mode': { type: 'string' },
  'card-key-file': { type: 'string' },
  'networks-file': { type: 'string' },
  'seed-dialect': { type: 'boolean' },
} as const;

const PREFIX = 'logos-a2a publish';

/** Runs the command until `signalled` resolves; the exit code. */
export async function runPublishCommand(
  positionals: string[],
  values: Values,
  signalled: Promise<void>,
): Promise<number> {
  const url = positionals[0];
  if (!url || !/^https?:\/\/./.test(url)) {
    throw new UsageError(`${PREFIX}: say which HTTP agent: ${PREFIX} http://host:port --peer MULTIADDR`);
  }
  const peers = (values.peer as string[] | undefined) ?? [];
  const listen = values.listen as string[] | undefined;
  checkMultiaddrs(peers, '--peer', PREFIX, 'option');
  checkMultiaddrs(listen ?? [], '--listen', PREFIX, 'option');
  const policy = str(values['card-policy']);
  if (policy !== undefined && !(CARD_POLICIES as readonly string[]).includes(policy)) {
    throw new UsageError(`${PREFIX}: --card-policy is one of ${CARD_POLICIES.join(', ')}, got "${policy}"`);
  }
  const maxConcurrent = wholeNumber(values['max-concurrent'], '--max-concurrent');
  const rateLimit = wholeNumber(values['rate-limit'], '--rate-limit');
  const rateLimitWindowMs = wholeNumber(values['rate-limit-window'], '--rate-limit-window');
  if (rateLimitWindowMs && !rateLimit) throw new UsageError(`${PREFIX}: --rate-limit-window goes with --rate-limit N`);
  const announceEveryMs = wholeNumber(values['announce-every'], '--announce-every');
  const auth = authFrom(values);
  const prices = pricesFrom(values.price as string[] | undefined);
  const sequencer = str(values.sequencer);
  if (prices && !sequencer) throw new UsageError(`${PREFIX}: --price needs --sequencer URL, where it is paid`);
  const privateMnemonicFile = str(values['private-mnemonic-file']);
  const privatePath = str(values['private-path']);
  const privateAccount = privateAccountFrom(
    {
      ...(privateMnemonicFile === undefined ? {} : { mnemonicFile: privateMnemonicFile }),
      ...(privatePath === undefined ? {} : { path: privatePath }),
    },
    PREFIX,
  );
  if (privateAccount && !prices) {
    throw new UsageError(`${PREFIX}: --private-mnemonic-file takes private payments: it goes with --price`);
  }
  const signingModeOption = str(values['signing-mode']);
  if (signingModeOption !== undefined && !(SIGNING_MODES as readonly string[]).includes(signingModeOption)) {
    throw new UsageError(`${PREFIX}: --signing-mode is one of ${SIGNING_MODES.join(', ')}, got "${signingModeOption}"`);
  }
  const { isNetworkName, NETWORK_NAMES, NETWORK_PRESETS } = await import('../../logos/network-presets.ts');
  const networkName = str(values.network) ?? 'local';
  if (!isNetworkName(networkName)) {
    throw new UsageError(`${PREFIX}: --network is one of ${NETWORK_NAMES.join(', ')}, got "${networkName}"`);
  }
  const preset = NETWORK_PRESETS[networkName];
  const [{ bridgeHttpAgent }, { WakuTransport }, { loadOrCreateKey }, { SqlitePublishedTaskStore }] = await Promise.all(
    [
      import('../../publish/publish.ts'),
      import('../../logos/transports/waku.ts'),
      import('../../logos/secret-key-file.ts'),
      import('../../store/sqlite/published-task-store.ts'),
    ],
  );
  const dataDir = str(values.data) ?? '.data';
  const cardKeyFile = str(values['card-key-file']);
  // Money first, as for the paid agent: the sequencer is probed before anything is published.
  const money = sequencer
    ? await moneyOn(sequencer, signingModeOption as SigningMode | undefined, dataDir, privateAccount)
    : undefined;
  const networksFile = str(values['networks-file']);
  const peerNetworks = networksFile ? await openNetworksFile(networksFile, PREFIX) : undefined;
  let transport: InstanceType<typeof WakuTransport> | undefined;
  let tasks: InstanceType<typeof SqlitePublishedTaskStore> | undefined;
  const outcome = await bridgeHttpAgent({
    url,
    ...(str(values.id) ? { id: str(values.id)! } : {}),
    ...(auth ? { auth } : {}),
    ...(policy ? { cardPolicy: policy as CardPolicy } : {}),
    ...(maxConcurrent ? { maxConcurrent } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    ...(rateLimitWindowMs ? { rateLimitWindowMs } : {}),
    ...(announceEveryMs ? { announceEveryMs } : {}),
    ...(prices ? { prices } : {}),
    ...(values['seed-dialect'] === true ? { seedDialect: true } : {}),
    ...(peerNetworks
      ? {
          peerNetworks: {
            networks: peerNetworks.networks,
            log: (line) => process.stdout.write(`${PREFIX}: ${line}\n`),
          },
        }
      : {}),
    node(id) {
      transport = new WakuTransport({
        privateKey: loadOrCreateKey(join(dataDir, `published-${id}.key`)),
        listen: listen ?? ['/ip4/127.0.0.1/tcp/0'],
        staticPeers: [...preset.entryNodes, ...peers],
        peerExchange: preset.peerExchange,
        clusterId: preset.clusterId,
        numShardsInCluster: preset.shards,
        maxMessageBytes: preset.maxMessageBytes,
      });
      const cardKey = loadOrCreateKey(cardKeyFile ?? join(dataDir, `published-${id}.lez.key`));
      // Each task's HTTP task, kept so that a restart (with the same --data) goes on with the tasks in flight.
      tasks = new SqlitePublishedTaskStore(join(dataDir, `published-${id}-tasks.db`));
      return { transport, cardKey, tasks, ...(money ? { payments: money.payments(id, cardKey) } : {}) };
    },
  });
  if (!outcome.ok) {
    money?.close();
    tasks?.close();
    await peerNetworks?.stop();
    throw new CliFailure(`${PREFIX}: ${outcome.message}`);
  }
  const { agent, origin, stop } = outcome.published;
  await agent.start();
  const signature = origin.signature;
  process.stdout.write(
    [
      `${PREFIX}: ${url} is the Logos agent ${agent.card.id} at ${agent.card.agentInterfaces[0]!.address}`,
      `  its card's signature: ${signature.status}${signature.status === 'unverified' ? ` (${signature.message})` : ''}`,
      `  listening at ${transport!.multiaddrs().join(', ')}`,
      `  peers: ${peers.join(', ') || 'none (pass --peer to join a network)'}`,
      ...(peerNetworks?.banner() ?? []),
      ...(privateAccount ? privateAccountLines(privateAccount) : []),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await signalled;
  await stop();
  money?.close();
  tasks?.close();
  await peerNetworks?.stop();
  return 0;
}

/**
 * Payments on the sequencer at `url`, to the card key's account (and, with `privateAccount`, shielded ones into it),
 * their state in DATA/published-ID-payments.db.
 */
async function moneyOn(
  url: string,
  configured: SigningMode | undefined,
  dataDir: string,
  privateAccount: PrivateAccount | undefined,
) {
  const [
    { agentPayments, detectSigningMode, lezRail },
    { signingKeyFromSecretKey },
    { SqliteAgentPaymentStore },
    { SequencerClient },
  ] = await Promise.all([
    import('../../gateway/payment-wiring.ts'),
    import('../../lez/keys.ts'),
    import('../../store/sqlite/agent-payment-store.ts'),
    import('../../lez/sequencer-client.ts'),
  ]);
  const receiving = privateAccount && { keys: privateAccount.keys, sequencer: new SequencerClient({ url }) };
  const signingMode = await detectSigningMode(url, configured, () => undefined);
  const opened: { close(): void }[] = [];
  return {
    payments(id: string, cardKey: Uint8Array) {
      const rail = lezRail(url, signingKeyFromSecretKey(cardKey), signingMode);
      const store = new SqliteAgentPaymentStore(join(dataDir, `published-${id}-payments.db`));
      opened.push(rail, store);
      return agentPayments(rail, store, receiving);
    },
    close: () => opened.splice(0).forEach((resource) => resource.close()),
  };
}

/** `--price SKILL=AMOUNT`s as prices by skill; undefined without any. */
function pricesFrom(options: string[] | undefined): Record<string, string> | undefined {
  if (!options || options.length === 0) return undefined;
  const prices: Record<string, string> = {};
  for (const option of options) {
    const match = /^([^=]+)=(\d{1,39})$/.exec(option);
    if (!match)
      throw new UsageError(`${PREFIX}: --price takes SKILL=AMOUNT, AMOUNT in LEZ base units, got "${option}"`);
    prices[match[1]!] = match[2]!;
  }
  return prices;
}

function authFrom(values: Values) {
  const bearerFile = str(values['bearer-file']);
  const header = str(values['api-key-header']);
  const keyFile = str(values['api-key-file']);
  if (bearerFile && (header || keyFile)) {
    throw new UsageError(`${PREFIX}: --bearer-file or --api-key-header with --api-key-file, not both`);
  }
  if (Boolean(header) !== Boolean(keyFile)) {
    throw new UsageError(`${PREFIX}: --api-key-header and --api-key-file go together`);
  }
  if (bearerFile) return { bearer: secretFrom(bearerFile, '--bearer-file') };
  if (header && keyFile) return { header, value: secretFrom(keyFile, '--api-key-file') };
  return undefined;
}

function secretFrom(file: string, option: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new CliFailure(
      `${PREFIX}: cannot read ${file} (${option}): ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  if (text === '') throw new CliFailure(`${PREFIX}: ${file} (${option}) is empty`);
  return text;
}

function wholeNumber(value: Values[string], option: string): number | undefined {
  const text = str(value);
  if (text === undefined) return undefined;
  const number = Number(text);
  if (!(Number.isInteger(number) && number > 0)) {
    throw new UsageError(`${PREFIX}: ${option} takes a whole number above 0, got "${text}"`);
  }
  return number;
}

export const publishCommand: Command = {
  synopsis: PUBLISH_SYNOPSIS,
  summary: PUBLISH_SUMMARY,
  help: () => PUBLISH_HELP,
  options: PUBLISH_OPTIONS,
  positionals: 1,
  run: (positionals, values) => runPublishCommand(positionals, values, untilSignal()),
};
