/** `logos-a2a`'s commands: their options, help and dispatch. main.ts starts them; in dist/, a bundle. */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  CliFailure,
  SERVE_SETTINGS,
  UsageError,
  checkMultiaddrs,
  describeFailure,
  type FailureContext,
} from './errors.ts';
import { ENVIRONMENT, loadConfig, type GatewayConfig } from '../gateway/config.ts';
import { NETWORK_NAMES, NETWORK_PRESETS, isNetworkName } from '../logos/network-presets.ts';
import { SIGNING_MODES, type SigningMode } from '../lez/signing.ts';
import type { Gateway } from '../gateway/gateway.ts';
import {
  PUBLISH_HELP,
  PUBLISH_OPTIONS,
  PUBLISH_SUMMARY,
  PUBLISH_SYNOPSIS,
  runPublishCommand,
} from './publish-command.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

interface Command {
  /** The arguments after the command name, for the usage line. */
  synopsis: string;
  /** One line for the overview. */
  summary: string;
  /** The rest of `logos-a2a COMMAND --help`: what it does, its options, the settings it reads. */
  help: () => string;
  options: Options;
  /** Most positional arguments taken (after the command name). */
  positionals: number;
  run(positionals: string[], values: Values): Promise<number>;
}

const CONFIG_OPTION = { config: { type: 'string' } } as const satisfies Options;

/** Set as each command learns where its ports and addresses come from: failures name the setting at fault. */
let failureContext: FailureContext = { prefix: 'logos-a2a' };

const COMMANDS: Record<string, Command> = {
  demo: {
    synopsis: '[--config FILE]',
    summary: 'the gateway, three agents and a local LEZ devnet on 127.0.0.1 (what npm start runs)',
    help: () => `Everything on one machine, on 127.0.0.1: a local LEZ devnet, the gateway paying from one of its funded accounts,
and the echo (the default agent, at /), conformance and paid agents, each on its own Waku relay node. It prints
the URLs and curl examples to try. Tasks are kept in .data/logos-a2a.db, identities in .data/*.key.

Options:
  --config FILE     a JSON config file (also LOGOS_A2A_CONFIG): the settings of logos-a2a serve, except agents,
                    defaultAgent and payments, which the demo sets
  -h, --help        this text

Settings (environment variables win over the config file):
  PORT                    the gateway's HTTP port (default 8080)
  LOGOS_A2A_GRPC_PORT     the gateway's gRPC port (default 50051)
  LOGOS_A2A_WAKU_LISTEN   the gateway's Waku address (default /ip4/127.0.0.1/tcp/60000)
  LOGOS_A2A_DEVNET_PORT   the devnet's port (default 3040)
  LOGOS_A2A_ADMIN_TOKEN   the operator token for approvals (default: a random one, printed)
  and every other setting of logos-a2a serve (logos-a2a serve --help).

Ctrl-C or SIGTERM stops it: the gateway first (new calls get 503, calls in flight return their task as it stands),
then its agents, then the devnet. A second signal stops it at once.
`,
    options: CONFIG_OPTION,
    positionals: 0,
    run: (_positionals, values) => runGateway('demo', values),
  },
  serve: {
    synopsis: '[--config FILE]',
    summary: 'the gateway, configured by a file and environment variables',
    help: () => `The gateway alone. It serves, at http://HOST:PORT/agents/{id}/, every Logos agent it hears announce its signed
card on the discovery topic, and the in-process agents of its configuration (default: echo).

Options:
  --config FILE     a JSON config file (also LOGOS_A2A_CONFIG), e.g. examples/gateway.json
  -h, --help        this text

Settings: the config file's keys; these environment variables win over the file.
${settingsTable()}
The README's "Running the gateway" has each setting's default. A bad setting stops the start with a line naming it.

Ctrl-C or SIGTERM drains it for at most shutdownGraceMs: new calls get 503 with Retry-After, a blocking call in
flight returns its task as it stands (the task carries on at the next start), an open stream ends with the task's
current status. A second signal stops it at once.
`,
    options: CONFIG_OPTION,
    positionals: 0,
    run: (_positionals, values) => runGateway('serve', values),
  },
  agent: {
    synopsis: 'KIND [options]',
    summary: 'a built-in agent (echo, conformance or paid) as its own process, joining a gateway over Waku',
    help: () => `One of the built-in Logos agents, echo, conformance or paid, as its own process. It joins the Logos network
through --peer, announces its signed card on the discovery topic, and a gateway on that network serves it at
/agents/ID/ within seconds. To write an agent of your own, see "Writing a Logos agent" in the README.

With --transport waku-light the agent runs no relay node: it is a Waku light node that sends with LightPush and
receives with Filter through its --peer nodes (and the network's entry nodes), which must serve both protocols, as
a gateway's node and the fleets' nodes do. This is how an agent joins a fleet without running a relay node.

The paid agent is paid in LEZ to its card key's account on the sequencer given by --sequencer. What it was paid
and what it owes are kept in DATA/agent-ID-payments.db: a payment pays for one task only, a failed refund is tried
again every 5 s, and a restarted agent first refunds every paid task it can no longer complete. On the devnet, its
card key must be one of the devnet's initialised accounts (the devnet prints them), or no payment can reach it.

Options:
  --peer MULTIADDR      a relay peer to join through, e.g. the gateway's "join at" address (repeatable);
                        with waku-light, a service node to send and receive through
  --transport KIND      waku (default): a relay node of its own; waku-light: a light node of its --peer nodes
  --network NAME        the Waku network: local (default), logos.test or logos.dev (joins its entry nodes; a relay
                        node also finds more relay peers through them with peer exchange)
  --listen MULTIADDR    where this agent's node listens (repeatable; default /ip4/127.0.0.1/tcp/0; waku only)
  --id ID               the agent's id, its URL at the gateway: /agents/ID/ (default: KIND)
  --data DIR            where the agent keeps its keys and money state (default .data)
  --key-file FILE       the agent's Logos identity (default DATA/agent-ID.key, created on first start)
  --card-key-file FILE  the LEZ key its card is signed with (default DATA/agent-ID.lez.key, created on first start)
  --sequencer URL       paid: the LEZ sequencer it is paid on (required for paid)
  --signing-mode MODE   paid: prehash-v0.3 or raw-borsh; must agree with the sequencer's, and is used as it is when
                        the sequencer does not answer at start (default: detected from the sequencer)
  --announce-every MS   how often the card is announced on the discovery topic (default 30000)
  --rest-port PORT      serve the node's nwaku REST API on this port (off unless given; 0: any free port; waku only)
  --rest-host HOST      where the REST API listens (default 127.0.0.1; it has no authentication)
  --tck-required-extension
                        conformance: declare the A2A TCK's extension urn:a2a:tck:required-extension as required,
                        for the suite's check that calls without it are refused (run it beside the plain one,
                        with its own --id: the suite's other calls do not activate it)
  -h, --help            this text

Settings: none besides these options. The agent uses the gateway's defaults: the network's cluster (local: 2) with
8 shards, and the discovery topic /logos/1/agent-discovery/proto.

Ctrl-C or SIGTERM stops it.
`,
    options: {
      peer: { type: 'string', multiple: true },
      transport: { type: 'string' },
      network: { type: 'string' },
      listen: { type: 'string', multiple: true },
      id: { type: 'string' },
      'key-file': { type: 'string' },
      'card-key-file': { type: 'string' },
      data: { type: 'string' },
      sequencer: { type: 'string' },
      'signing-mode': { type: 'string' },
      'announce-every': { type: 'string' },
      'rest-port': { type: 'string' },
      'rest-host': { type: 'string' },
      'tck-required-extension': { type: 'boolean' },
    },
    positionals: 1,
    run: runAgent,
  },
  publish: {
    synopsis: PUBLISH_SYNOPSIS,
    summary: PUBLISH_SUMMARY,
    help: () => PUBLISH_HELP,
    options: PUBLISH_OPTIONS,
    positionals: 1,
    run: (positionals, values) => runPublishCommand(positionals, values, untilSignal()),
  },
  devnet: {
    synopsis: '[--port PORT] [--data DIR]',
    summary: 'a local LEZ sequencer emulator with funded accounts',
    help: () => `A local LEZ sequencer emulator on 127.0.0.1, a block every second, funded with the LEZ debug genesis accounts
(their keys are printed: import one with logos-a2a keys import --secret-key-file -). It behaves as a sequencer
built from LEZ main: blocks end with a clock transaction and are hashed under main's prefix.

Options:
  --port PORT       its port (default: LOGOS_A2A_DEVNET_PORT, else 3040; 0 picks a free one)
  --data DIR        keep the chain in DIR and continue it at the next start; like a real sequencer, a restarted
                    devnet no longer finds earlier transactions by hash (getTransaction), only in their blocks
  -h, --help        this text

Settings:
  LOGOS_A2A_DEVNET_PORT   its port, when --port is not given
  LOGOS_A2A_DEVNET_HOST   the address it listens on (default 127.0.0.1; 0.0.0.0 in a container)

Ctrl-C or SIGTERM stops it.
`,
    options: { port: { type: 'string' }, data: { type: 'string' } },
    positionals: 0,
    run: runDevnet,
  },
  keys: {
    synopsis: 'new|show|import [options]',
    summary: "the gateway wallet's LEZ key: new, show or import",
    help: () => `The gateway wallet's LEZ key, in a file encrypted with a passphrase.

  keys new          creates a key and prints its account and recovery phrase (shown once); never overwrites a file
  keys show         prints the account and public key of the key in --file
  keys import       stores an existing key: --mnemonic-file FILE or --secret-key-file FILE (- for standard input)

Options:
  --file FILE               the key file (default .data/wallet.json; its folder is created)
  --path PATH               the account's path in the key tree, for new and mnemonic imports (default /)
  --mnemonic-file FILE      import: the recovery phrase
  --secret-key-file FILE    import: the secret key, 64 hex characters
  -h, --help                this text

Settings:
  LOGOS_A2A_WALLET_PASSPHRASE   the passphrase that protects the file (required). Secrets are read from files or
                                standard input, never from the command line.
`,
    options: {
      file: { type: 'string' },
      path: { type: 'string' },
      'mnemonic-file': { type: 'string' },
      'secret-key-file': { type: 'string' },
    },
    positionals: 1,
    async run(positionals, values) {
      const { runKeysCommand } = await import('./keys-command.ts');
      return runKeysCommand({
        action: positionals[0],
        file: str(values.file) ?? '.data/wallet.json',
        path: str(values.path) ?? '/',
        ...(str(values['mnemonic-file']) ? { mnemonicFile: str(values['mnemonic-file'])! } : {}),
        ...(str(values['secret-key-file']) ? { secretKeyFile: str(values['secret-key-file'])! } : {}),
        passphrase: process.env.LOGOS_A2A_WALLET_PASSPHRASE,
        out: (text) => process.stdout.write(text),
      });
    },
  },
  card: {
    synopsis: 'sign|verify FILE [options]',
    summary: 'sign an agent card with a LEZ key, or check a signed one',
    help: () => `An agent card signed with the LEZ key of its account (the signature gateways check before they list an agent).

  card sign FILE --key-file K   prints the signed card (fills in x-lez-identity from the key)
  card verify FILE              checks the signature and that the key controls x-lez-identity; exit 1 if not

FILE - is standard input.

Options:
  --key-file FILE   sign: the encrypted LEZ key file (logos-a2a keys new)
  --write           sign: replace FILE with the signed card instead of printing it
  -h, --help        this text

Settings:
  LOGOS_A2A_WALLET_PASSPHRASE   sign: the passphrase of the key file
`,
    options: { 'key-file': { type: 'string' }, write: { type: 'boolean' } },
    positionals: 2,
    async run(positionals, values) {
      const { runCardCommand } = await import('./card-command.ts');
      return runCardCommand({
        action: positionals[0],
        file: positionals[1],
        ...(str(values['key-file']) ? { keyFile: str(values['key-file'])! } : {}),
        passphrase: process.env.LOGOS_A2A_WALLET_PASSPHRASE,
        write: values.write === true,
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
      });
    },
  },
  registry: {
    synopsis: 'export [options]',
    summary: 'one a2a-registry entry per agent of a running gateway',
    help: () => `Writes one a2a-registry entry per agent of a running gateway, as DIR/<id>.json.

Options:
  --gateway URL     the gateway (default http://localhost:8080)
  --out DIR         where to write (default registry)
  --author NAME     the author of entries whose card names no provider
  -h, --help        this text

Settings: none besides these options.
`,
    options: { gateway: { type: 'string' }, out: { type: 'string' }, author: { type: 'string' } },
    positionals: 1,
    async run(positionals, values) {
      if (positionals[0] !== 'export')
        throw new UsageError('logos-a2a registry: the action is export: logos-a2a registry export [options]');
      const { runRegistryExport } = await import('./registry-export.ts');
      return runRegistryExport({
        gatewayUrl: str(values.gateway) ?? 'http://localhost:8080',
        outDir: str(values.out) ?? 'registry',
        ...(str(values.author) ? { author: str(values.author)! } : {}),
      });
    },
  },
  help: {
    synopsis: '[COMMAND]',
    summary: "this overview, or a command's own help",
    help: () => "Prints the overview of the commands, or with a command name that command's help.\n",
    options: {},
    positionals: 1,
    async run(positionals) {
      const [name] = positionals;
      if (name === undefined) {
        process.stdout.write(overview());
        return 0;
      }
      const command = COMMANDS[name];
      if (!command) throw unknownCommand(name);
      process.stdout.write(commandHelp(name, command));
      return 0;
    },
  },
};

function overview(): string {
  const width = Math.max(...Object.entries(COMMANDS).map(([name, c]) => `${name} ${c.synopsis}`.length));
  return `Usage: logos-a2a <command> [options]

An A2A gateway to AI agents on the Logos network (Logos Messaging / Waku).

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${`${name} ${c.synopsis}`.padEnd(width)}  ${c.summary}`)
  .join('\n')}

logos-a2a COMMAND --help (or logos-a2a help COMMAND) says what a command takes and the settings it reads.
logos-a2a --version prints the version.
`;
}

function commandHelp(name: string, command: Command): string {
  return `Usage: logos-a2a ${name} ${command.synopsis}\n\n${command.help()}`;
}

/** The environment variables serve reads and the config key each sets (config.ts is the source of truth). */
function settingsTable(): string {
  const rows: [string, string][] = [
    ['LOGOS_A2A_CONFIG', 'the config file, when --config is not given'],
    ...Object.entries(ENVIRONMENT).map(([env, key]): [string, string] => [env, key]),
    ['LOGOS_A2A_TRANSPORT', 'transport.kind: waku (default), waku-light, memory or nwaku-rest'],
    ['LOGOS_A2A_NETWORK', 'transport.network: local (default), logos.test or logos.dev'],
    ['LOGOS_A2A_WAKU_LISTEN', 'transport.listen (comma-separated multiaddrs)'],
    ['LOGOS_A2A_WAKU_PEERS', 'transport.peers (comma-separated multiaddrs)'],
    ['LOGOS_A2A_WAKU_KEY_FILE', 'transport.keyFile'],
    ['LOGOS_A2A_WAKU_REST_PORT', "transport.rest.port: serve the node's nwaku REST API (off unless set)"],
    ['LOGOS_A2A_WAKU_REST_HOST', 'transport.rest.host (default 127.0.0.1)'],
    ['LOGOS_A2A_NWAKU_REST_URL', 'transport.url: the nwaku REST API an nwaku-rest gateway goes through'],
    ['LOGOS_A2A_PAYMENTS_RAIL', 'payments.rail: none (default) or lez'],
    ['LOGOS_A2A_SEQUENCER_URL', 'payments.sequencerUrl'],
    ['LOGOS_A2A_WALLET_KEY_FILE', 'payments.walletKeyFile'],
    ['LOGOS_A2A_WALLET_PASSPHRASE', "the wallet key file's passphrase (environment only)"],
  ];
  const width = Math.max(...rows.map(([env]) => env.length));
  return rows.map(([env, key]) => `  ${env.padEnd(width)}  ${key}`).join('\n');
}

function unknownCommand(name: string): UsageError {
  return new UsageError(
    `logos-a2a: unknown command "${name}"; the commands are ${Object.keys(COMMANDS).join(', ')} (logos-a2a help)`,
  );
}

function str(value: Values[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function version(): string {
  // dist/cli/commands.js and src/cli/commands.ts both sit two folders below package.json.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

/** Parses a command's own options; anything else is a usage error naming the option. */
function parseCommand(name: string, command: Command, args: string[]): { positionals: string[]; values: Values } {
  const prefix = `logos-a2a ${name}`;
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const option = /'([^']+)'/.exec((error as Error).message)?.[1]?.split(' ')[0];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      throw new UsageError(`${prefix}: unknown option ${option}; ${prefix} --help lists the options`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(`${prefix}: ${option} needs a value; ${prefix} --help lists the options`);
    throw error;
  }
  if (parsed.positionals.length > command.positionals) {
    throw new UsageError(
      `${prefix}: unexpected argument "${parsed.positionals[command.positionals]}"; usage: ${prefix} ${command.synopsis}`,
    );
  }
  return { positionals: parsed.positionals, values: parsed.values as Values };
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') {
    process.stdout.write(overview());
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`logos-a2a ${version()}\n`);
    return 0;
  }
  if (first.startsWith('-'))
    throw new UsageError(
      `logos-a2a: the command comes first, then its options: logos-a2a <command> [options] (logos-a2a help)`,
    );
  const command = COMMANDS[first];
  if (!command) throw unknownCommand(first);
  failureContext = { prefix: `logos-a2a ${first}` };
  const { positionals, values } = parseCommand(first, command, rest);
  if (values.help) {
    process.stdout.write(commandHelp(first, command));
    return 0;
  }
  return command.run(positionals, values);
}

async function runGateway(command: 'demo' | 'serve', values: Values): Promise<number> {
  const prefix = `logos-a2a ${command}`;
  const file = str(values.config) ?? process.env.LOGOS_A2A_CONFIG;
  const devnetPort =
    command === 'demo'
      ? devnetPortSetting(process.env.LOGOS_A2A_DEVNET_PORT, 'LOGOS_A2A_DEVNET_PORT', prefix)
      : undefined;
  failureContext = {
    prefix,
    ...SERVE_SETTINGS,
    ...(devnetPort !== undefined ? { ports: [{ port: devnetPort, setting: 'LOGOS_A2A_DEVNET_PORT' }] } : {}),
  };
  const check = (config: GatewayConfig) => checkTransportSettings(config, prefix);
  const signalled = untilSignal();
  let stop: () => Promise<void>;
  let gateway: Gateway;
  if (command === 'serve') {
    const config = loadConfig({ ...(file ? { file } : {}) });
    check(config);
    const { startGateway } = await import('../gateway/gateway.ts');
    gateway = await startGateway(config);
    stop = () => gateway.stop();
    printWelcome(gateway, command);
  } else {
    const { startDemo } = await import('./demo.ts');
    const demo = await startDemo(file, { devnetPort: devnetPort!, checkConfig: check });
    gateway = demo.gateway;
    stop = () => demo.stop();
    printWelcome(gateway, command);
    process.stdout.write(demo.paymentsHelp);
  }
  await signalled;
  process.stdout.write('\nStopping… (a second Ctrl-C stops at once)\n');
  await stop();
  return 0;
}

/** Multiaddrs are checked before anything starts, so a typo is named rather than thrown from deep in libp2p. */
function checkTransportSettings(config: GatewayConfig, prefix: string): void {
  if (config.transport.kind === 'memory' || config.transport.kind === 'nwaku-rest') return;
  if (config.transport.kind === 'waku') {
    checkMultiaddrs(config.transport.listen, SERVE_SETTINGS.listenSetting, prefix, 'setting');
  }
  checkMultiaddrs(config.transport.peers, SERVE_SETTINGS.peerSetting, prefix, 'setting');
}

function devnetPortSetting(
  value: string | undefined,
  setting: string,
  prefix: string,
  kind: 'option' | 'setting' = 'setting',
): number {
  if (value === undefined || value === '') return 3040;
  const port = portNumber(value);
  if (port === undefined) {
    const message = `${prefix}: ${setting} must be a port number from 0 to 65535, got "${value}"`;
    throw kind === 'option' ? new UsageError(message) : new CliFailure(message);
  }
  return port;
}

/** `text` as a TCP port, 0 (any free port) to 65535; undefined when it is not one. */
function portNumber(text: string): number | undefined {
  const port = Number(text);
  return text !== '' && Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}

async function runAgent(positionals: string[], values: Values): Promise<number> {
  const prefix = 'logos-a2a agent';
  const kind = positionals[0];
  if (kind !== 'echo' && kind !== 'conformance' && kind !== 'paid') {
    throw new UsageError(
      kind === undefined
        ? `${prefix}: say which agent, echo, conformance or paid: logos-a2a agent echo --peer MULTIADDR`
        : `${prefix}: there is no built-in agent "${kind}"; the agents are echo, conformance and paid`,
    );
  }
  const sequencerUrl = str(values.sequencer);
  if (kind === 'paid' && !sequencerUrl) throw new UsageError(`${prefix}: the paid agent needs --sequencer URL`);
  const requireTckExtension = values['tck-required-extension'] === true;
  if (requireTckExtension && kind !== 'conformance') {
    throw new UsageError(`${prefix}: --tck-required-extension is for the conformance agent`);
  }
  const signingMode = str(values['signing-mode']);
  if (signingMode !== undefined && !(SIGNING_MODES as readonly string[]).includes(signingMode)) {
    throw new UsageError(`${prefix}: --signing-mode is one of ${SIGNING_MODES.join(', ')}, got "${signingMode}"`);
  }
  const every = str(values['announce-every']);
  const announceEveryMs = every === undefined ? undefined : Number(every);
  if (announceEveryMs !== undefined && !(Number.isInteger(announceEveryMs) && announceEveryMs > 0)) {
    throw new UsageError(`${prefix}: --announce-every takes milliseconds, a whole number above 0, got "${every}"`);
  }
  const restPortOption = str(values['rest-port']);
  const restPort = restPortOption === undefined ? undefined : portNumber(restPortOption);
  if (restPortOption !== undefined && restPort === undefined) {
    throw new UsageError(`${prefix}: --rest-port takes a port number from 0 to 65535, got "${restPortOption}"`);
  }
  const peers = (values.peer as string[] | undefined) ?? [];
  const network = str(values.network);
  if (network !== undefined && !isNetworkName(network)) {
    throw new UsageError(`${prefix}: --network is one of ${NETWORK_NAMES.join(', ')}, got "${network}"`);
  }
  const listen = values.listen as string[] | undefined;
  const transport = str(values.transport) ?? 'waku';
  if (transport !== 'waku' && transport !== 'waku-light') {
    throw new UsageError(`${prefix}: --transport is waku or waku-light, got "${transport}"`);
  }
  if (transport === 'waku-light' && (listen || restPort !== undefined)) {
    throw new UsageError(`${prefix}: a waku-light agent has no node of its own: --listen and --rest-port are for waku`);
  }
  if (transport === 'waku-light' && peers.length === 0 && NETWORK_PRESETS[network ?? 'local'].entryNodes.length === 0) {
    throw new UsageError(
      `${prefix}: a waku-light agent needs a service node to reach the network: --peer MULTIADDR, or a --network with entry nodes`,
    );
  }
  checkMultiaddrs(peers, '--peer', prefix, 'option');
  checkMultiaddrs(listen ?? [], '--listen', prefix, 'option');
  failureContext = { prefix, listenSetting: '--listen', peerSetting: '--peer' };
  const signalled = untilSignal();
  const { startAgentProcess } = await import('./agent-process.ts');
  const running = await startAgentProcess({
    kind,
    transport,
    peers,
    ...(network ? { network } : {}),
    ...(listen ? { listen } : {}),
    ...(str(values.id) ? { id: str(values.id)! } : {}),
    ...(str(values.data) ? { dataDir: str(values.data)! } : {}),
    ...(sequencerUrl ? { sequencerUrl } : {}),
    ...(signingMode ? { signingMode: signingMode as SigningMode } : {}),
    ...(str(values['key-file']) ? { keyFile: str(values['key-file'])! } : {}),
    ...(str(values['card-key-file']) ? { cardKeyFile: str(values['card-key-file'])! } : {}),
    ...(announceEveryMs ? { announceEveryMs } : {}),
    ...(requireTckExtension ? { requireTckExtension } : {}),
    ...(restPort !== undefined ? { rest: { port: restPort, host: str(values['rest-host']) ?? '127.0.0.1' } } : {}),
  });
  process.stdout.write(
    [
      `logos-a2a agent ${running.agent.card.id}: ${running.transport.address}`,
      ...('multiaddrs' in running.transport
        ? [
            `  listening at ${running.transport.multiaddrs().join(', ')}`,
            `  peers: ${peers.join(', ') || 'none (pass --peer to join a network)'}`,
          ]
        : [`  a light node of: ${peers.join(', ') || 'no service node but the network’s entry nodes'}`]),
      ...(running.restUrl ? [`  nwaku REST API at ${running.restUrl}`] : []),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await signalled;
  await running.stop();
  return 0;
}

async function runDevnet(_positionals: string[], values: Values): Promise<number> {
  const prefix = 'logos-a2a devnet';
  const option = str(values.port);
  const port =
    option !== undefined
      ? devnetPortSetting(option, '--port', prefix, 'option')
      : devnetPortSetting(process.env.LOGOS_A2A_DEVNET_PORT, 'LOGOS_A2A_DEVNET_PORT', prefix);
  failureContext = { prefix, portSetting: option !== undefined ? '--port' : 'LOGOS_A2A_DEVNET_PORT / --port' };
  const signalled = untilSignal();
  const dataDir = str(values.data);
  const { startDevnet, DEVNET_GENESIS } = await import('../devnet/devnet.ts');
  const devnet = await startDevnet({
    port,
    host: process.env.LOGOS_A2A_DEVNET_HOST || '127.0.0.1',
    ...(dataDir ? { dataDir } : {}),
  });
  process.stdout.write(
    [
      `logos-a2a devnet: a local LEZ sequencer at ${devnet.url} (blocks every second${dataDir ? `, chain in ${dataDir}, at block ${devnet.lastBlockId()}` : ''})`,
      'Funded genesis accounts (the LEZ debug keys; import one with logos-a2a keys import --secret-key-file -):',
      ...DEVNET_GENESIS.map((g) => `  ${g.account}  ${g.balance}  secret key ${g.secretKeyHex}`),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  // Started by a demo (devnet-process.ts): say where it listens, and stop when the parent is gone.
  if (process.send) {
    process.send({ kind: 'devnet-ready', url: devnet.url });
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
  await signalled;
  await devnet.stop();
  return 0;
}

function printWelcome(gateway: Gateway, command: string): void {
  const lines = [
    `logos-a2a ${command}: A2A gateway listening at ${gateway.url}`,
    '',
    'Agents:',
    ...gateway.directory
      .all()
      .map((entry) => `  ${entry.id.padEnd(12)} ${gateway.url}/agents/${entry.id}/.well-known/agent-card.json`),
    `  (default)    ${gateway.url}/.well-known/agent-card.json`,
    '',
    `OpenAPI:      ${gateway.url}/openapi.json`,
    ...(gateway.grpcAddress
      ? [`gRPC:         ${gateway.grpcAddress} (each agent by its card's tenant: its id; the default agent without)`]
      : []),
    ...logosNetworkLines(gateway),
    '',
    'Try it:',
    `  curl -s ${gateway.url}/ -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \\`,
    `    -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}'`,
    '',
    'Ctrl-C stops it.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

function logosNetworkLines(gateway: Gateway): string[] {
  const { remoteNodeUrl, nodeRestUrl } = gateway.network;
  if (remoteNodeUrl) return [`Logos network: Waku relay through the nwaku REST API at ${remoteNodeUrl}`];
  const join = gateway.network.joinAddresses();
  if (join.length === 0) return [`Logos network: ${gateway.network.description}`];
  return [
    `Logos network: ${gateway.network.description}; join at ${join[0]}`,
    ...(nodeRestUrl ? [`  the node's nwaku REST API: ${nodeRestUrl}`] : []),
    `  another agent, as its own process: npm run agent -- echo --id echo2 --peer ${join[0]}`,
  ];
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Resolves at the first SIGINT or SIGTERM, so the caller can stop in order. From then on, another of either signal
 * ends the process at once (with the usual 128 + signal number), in case the orderly stop hangs. Called before a
 * command starts anything: a signal during the start stops it in order as soon as it has started, and none is missed
 * between printing "Ctrl-C stops it" and listening for it.
 */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    // One listener per signal for good: removing and re-adding them would drop a signal already on its way.
    let stopping = false;
    const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
      if (!stopping) {
        stopping = true;
        resolve();
        return;
      }
      process.stderr.write(`${failureContext.prefix}: ${signal} again, stopping at once\n`);
      process.exit(SIGNAL_EXIT_CODES[signal]);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Prints the one line for a known failure, or the stack of an unforeseen one, and says which exit code follows. */
function report(error: unknown): number {
  const failure = describeFailure(error, failureContext);
  if (failure) {
    process.stderr.write(`${failure.message}\n`);
    return failure.exitCode;
  }
  process.stderr.write(
    `${failureContext.prefix}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

// A server that cannot listen reports it as an 'error' event, which nobody awaits: it arrives here.
process.on('uncaughtException', (error) => process.exit(report(error)));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(report(error)),
);
