/** `logos-a2a serve`: the gateway alone, configured by a file and environment variables (run-gateway.ts). */
import { CONFIG_OPTION, type Command } from '../command.ts';
import { runGateway } from '../run-gateway.ts';
import { ENVIRONMENT } from '../../gateway/config.ts';

export const serveCommand: Command = {
  synopsis: '[--config FILE]',
  summary: 'the gateway, configured by a file and environment variables',
  help: () => `The gateway alone. It serves, at http://HOST:PORT/agents/{id}/, every Logos agent it hears announce its signed
card on the discovery topic, and the in-process agents of its configuration (default: echo). The config file's
\`networks\` add the peer bindings' networks (docs/bindings/networks.md): their agents are served too, and the HTTP
agents of \`published\` are announced on each logos-agent, lp-0008 and pilot network as well, in that binding's
format.

Options:
  --config FILE     a JSON config file (also LOGOS_A2A_CONFIG), e.g. examples/gateway.json
  -h, --help        this text

Settings: the config file's keys; these environment variables win over the file.
${settingsTable()}
The README's "Running the gateway" has each setting's default. A bad setting stops the start with a line naming it.

Spending limits (the file's payments.perTransactionLimit and perPeriodLimit, base units): the most one paid task,
and all of them over payments.periodMs, may cost the wallet before an operator must approve, price and fee
together. Left out, they are 100 a task and 1000 a period for prices, plus each payment's fee cap on a chain with
fees (lee-v0.3), so that a task priced up to 100 goes ahead on either profile. A limit set at or below the fee cap
is said at start: every paid task would wait for an operator.

Ctrl-C or SIGTERM drains it for at most shutdownGraceMs: new calls get 503 with Retry-After, a blocking call in
flight returns its task as it stands (the task carries on at the next start), an open stream ends with the task's
current status. A second signal stops it at once.
`,
  options: CONFIG_OPTION,
  positionals: 0,
  run: (_positionals, values) => runGateway('serve', values),
};

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
    ['LOGOS_A2A_WAKU_NODE_KEY_FILE', "transport.nodeKeyFile: the node's key, so its join address outlives a restart"],
    ['LOGOS_A2A_WAKU_REPLICA_PEERS', "transport.replicaPeers (host:port): a name listing the other replicas' nodes"],
    ['LOGOS_A2A_WAKU_REST_PORT', "transport.rest.port: serve the node's nwaku REST API (off unless set)"],
    ['LOGOS_A2A_WAKU_REST_HOST', 'transport.rest.host (default 127.0.0.1)'],
    ['LOGOS_A2A_NWAKU_REST_URL', 'transport.url: the nwaku REST API an nwaku-rest gateway goes through'],
    ['LOGOS_A2A_PAYMENTS_RAIL', 'payments.rail: none (default) or lez'],
    ['LOGOS_A2A_PAYMENTS_NETWORK', 'payments.network: testnet (the public LEZ testnet)'],
    ['LOGOS_A2A_PAYMENTS_PROFILE', "payments.profile: v0.2 or lee-v0.3 (default: the sequencer's, detected)"],
    [
      'LOGOS_A2A_PAYMENTS_MAX_FEE',
      "payments.maxFee: a hard cap on one payment's fee, with fees (default 32,448 at gas 200)",
    ],
    ['LOGOS_A2A_PAYMENTS_GAS_LIMIT', 'payments.gasLimit: the gas limit each payment declares, with fees'],
    ['LOGOS_A2A_SEQUENCER_URL', 'payments.sequencerUrl'],
    ['LOGOS_A2A_WALLET_KEY_FILE', 'payments.walletKeyFile'],
    ['LOGOS_A2A_WALLET_PASSPHRASE', "the wallet key file's passphrase (environment only)"],
  ];
  const width = Math.max(...rows.map(([env]) => env.length));
  return rows.map(([env, key]) => `  ${env.padEnd(width)}  ${key}`).join('\n');
}
