/** `logos-a2a agent KIND`: a built-in agent as its own process; agent-process.ts starts it. */
import { UsageError, checkMultiaddrs } from '../errors.ts';
import { portNumber, str, type Command, type Values } from '../command.ts';
import { setFailureContext } from '../failure-context.ts';
import { untilSignal } from '../until-signal.ts';
import { NETWORK_NAMES, NETWORK_PRESETS, isNetworkName } from '../../logos/network-presets.ts';
import { SIGNING_MODES, type SigningMode } from '../../lez/signing.ts';
import { PROTOCOL_PROFILES, type ProtocolProfile } from '../../lez/protocol-profile.ts';
import { LezAmount } from '../../logos/card.ts';
import {
  PRIVATE_MNEMONIC_ENV,
  privateAccountFrom,
  privateAccountLines,
  type PrivateAccount,
} from '../private-account.ts';

export const agentCommand: Command = {
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
It probes the sequencer's protocol profile as the gateway does: v0.2 (the public testnet) or lee-v0.3 (fees), where
its refunds declare a fee within a cap (--max-fee, or by default what a transfer reserves at base fees of 8 times
the protocol minimum).

Given its operator's LEZ wallet mnemonic (--private-mnemonic-file, or ${PRIVATE_MNEMONIC_ENV}), the paid agent also
takes shielded payments into a private account of that wallet: the node /0 of its private key tree, the one
\`wallet account new private\` makes first (another with --private-path). It prints the account's keys, npk and vpk,
and its card carries them in x-lez-identity.private; a payer sends with
\`wallet auth-transfer send --from Public/<id> --to-npk <npk> --to-vpk <vpk> --amount N\`, and the operator spends
what came in with the same wallet (\`wallet account sync-private\`; make that account in the wallet first, or its
sync, which reads on from the last block it synced, does not look for it). Refunds are public, from the card key's
account. Only on a v0.2 sequencer: the fees revision's private transactions are not read.

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
  --profile P           paid: the sequencer's protocol, v0.2 or lee-v0.3 (fees); must agree with what it speaks
                        (default: detected; env LOGOS_A2A_PAYMENTS_PROFILE)
  --max-fee UNITS       paid, on a sequencer with fees: a hard cap on one refund's fee, in base units (default: the
                        reserve at base fees of 8 times the minimum; env LOGOS_A2A_PAYMENTS_MAX_FEE, as payments.maxFee)
  --gas-limit GAS       paid, on a sequencer with fees: the gas limit each refund declares (default 200; the official
                        wallet's is 2000000; env LOGOS_A2A_PAYMENTS_GAS_LIMIT)
  --private-mnemonic-file FILE
                        paid: the BIP-39 mnemonic of the operator's LEZ wallet, to take private payments into its
                        private account (or the phrase itself in ${PRIVATE_MNEMONIC_ENV}); never stored
  --private-path PATH   paid, with a mnemonic: the node of the wallet's private key tree, as the wallet prints it
                        (default /0, its first private account; the next ones are /1, /0/0, …)
  --announce-every MS   how often the card is announced on the discovery topic (default 30000)
  --networks-file FILE  peer bindings' networks to announce it on as well, a JSON array written as the gateway's
                        \`networks\` setting (docs/bindings/networks.md): on each logos-agent, lp-0008 and pilot
                        network (lp-0008 with its discoveryTopic) its free skills are announced in that binding's
                        card format and signature, and its requests answered; it prints the key of its lp-0008 card
  --seed-dialect        also announce a seed card (the seed binding's format) beside its own and answer the
                        seed's requests at the same address, free skills only (docs/bindings/seed.md §6)
  --rest-port PORT      serve the node's nwaku REST API on this port (off unless given; 0: any free port; waku only)
  --rest-host HOST      where the REST API listens (default 127.0.0.1; it has no authentication)
  --tck-required-extension
                        conformance: declare the A2A TCK's extension urn:a2a:tck:required-extension as required,
                        for the suite's check that calls without it are refused (run it beside the plain one,
                        with its own --id: the suite's other calls do not activate it)
  -h, --help            this text

Settings: these options (the paid agent's fee settings also from the environment, under the gateway's names,
and its wallet mnemonic from ${PRIVATE_MNEMONIC_ENV}). The agent uses the gateway's defaults: the network's
cluster (local: 2) with 8 shards, and the discovery topic /logos/1/agent-discovery/proto.

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
    'networks-file': { type: 'string' },
    'seed-dialect': { type: 'boolean' },
    data: { type: 'string' },
    sequencer: { type: 'string' },
    'signing-mode': { type: 'string' },
    profile: { type: 'string' },
    'max-fee': { type: 'string' },
    'gas-limit': { type: 'string' },
    'private-mnemonic-file': { type: 'string' },
    'private-path': { type: 'string' },
    'announce-every': { type: 'string' },
    'rest-port': { type: 'string' },
    'rest-host': { type: 'string' },
    'tck-required-extension': { type: 'boolean' },
  },
  positionals: 1,
  run: runAgent,
};

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
  const fees = feeOptions(values, kind, prefix);
  const privateAccount = privateOption(values, kind, prefix);
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
  setFailureContext({ prefix, listenSetting: '--listen', peerSetting: '--peer' });
  const signalled = untilSignal();
  const { startAgentProcess } = await import('../agent-process.ts');
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
    ...fees,
    ...(privateAccount ? { privateAccount } : {}),
    ...(str(values['key-file']) ? { keyFile: str(values['key-file'])! } : {}),
    ...(str(values['card-key-file']) ? { cardKeyFile: str(values['card-key-file'])! } : {}),
    ...(str(values['networks-file']) ? { networksFile: str(values['networks-file'])! } : {}),
    ...(values['seed-dialect'] === true ? { seedDialect: true } : {}),
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
      ...running.peerNetworks,
      ...(running.profile ? [`  paid on ${sequencerUrl} (protocol profile ${running.profile})`] : []),
      ...(privateAccount ? privateAccountLines(privateAccount) : []),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await signalled;
  await running.stop();
  return 0;
}

/** The paid agent's private account, from its options or the environment (private-account.ts). */
function privateOption(values: Values, kind: string, prefix: string): PrivateAccount | undefined {
  const mnemonicFile = str(values['private-mnemonic-file']);
  const path = str(values['private-path']);
  if (kind !== 'paid') {
    if (mnemonicFile !== undefined || path !== undefined) {
      throw new UsageError(`${prefix}: --private-mnemonic-file and --private-path are for the paid agent`);
    }
    return undefined;
  }
  const mnemonic = process.env.LOGOS_A2A_PRIVATE_MNEMONIC || undefined;
  return privateAccountFrom(
    {
      ...(mnemonicFile === undefined ? {} : { mnemonicFile }),
      ...(mnemonic === undefined ? {} : { mnemonic }),
      ...(path === undefined ? {} : { path }),
    },
    prefix,
  );
}

/**
 * The paid agent's fee settings: options first, then the gateway's variables (LOGOS_A2A_PAYMENTS_PROFILE, _MAX_FEE,
 * _GAS_LIMIT), so an operator names them once for both.
 */
function feeOptions(
  values: Values,
  kind: string,
  prefix: string,
): { profile?: ProtocolProfile; maxFee?: string; gasLimit?: number } {
  const env = process.env;
  const profile = str(values.profile) ?? (env.LOGOS_A2A_PAYMENTS_PROFILE || undefined);
  const maxFee = str(values['max-fee']) ?? (env.LOGOS_A2A_PAYMENTS_MAX_FEE || undefined);
  const gasLimit = str(values['gas-limit']) ?? (env.LOGOS_A2A_PAYMENTS_GAS_LIMIT || undefined);
  const given = [str(values.profile), str(values['max-fee']), str(values['gas-limit'])].some((v) => v !== undefined);
  if (kind !== 'paid') {
    if (given) throw new UsageError(`${prefix}: --profile, --max-fee and --gas-limit are for the paid agent`);
    return {};
  }
  if (profile !== undefined && !(PROTOCOL_PROFILES as readonly string[]).includes(profile)) {
    throw new UsageError(`${prefix}: --profile is one of ${PROTOCOL_PROFILES.join(', ')}, got "${profile}"`);
  }
  if (maxFee !== undefined && !LezAmount.safeParse(maxFee).success) {
    throw new UsageError(`${prefix}: --max-fee takes base units, a decimal whole number, got "${maxFee}"`);
  }
  const gas = gasLimit === undefined ? undefined : Number(gasLimit);
  if (gas !== undefined && !(Number.isInteger(gas) && gas > 0 && gas <= 10_000_000)) {
    throw new UsageError(`${prefix}: --gas-limit takes a whole number from 1 to 10000000, got "${gasLimit}"`);
  }
  return {
    ...(profile === undefined ? {} : { profile: profile as ProtocolProfile }),
    ...(maxFee === undefined ? {} : { maxFee }),
    ...(gas === undefined ? {} : { gasLimit: gas }),
  };
}
