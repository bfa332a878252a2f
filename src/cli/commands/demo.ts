/** `logos-a2a demo`: the gateway, its agents and a devnet on one machine (demo.ts starts them, run-gateway.ts runs it). */
import { CONFIG_OPTION, type Command } from '../command.ts';
import { runGateway } from '../run-gateway.ts';

export const demoCommand: Command = {
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
};
