#!/usr/bin/env node
/** `logos-a2a`: the Node entry point. */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import type { Gateway } from './gateway.ts';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    `logos-a2a needs Node.js 22.13 or newer (this is ${process.version}). From a checkout, use npm start or npm run serve:\n` +
      'they run the Node 22 that npm ci installed into the project.\n',
  );
  process.exit(1);
}

// node:sqlite still announces itself as experimental on Node 22; that line would only confuse operators. Every
// other warning still prints. The gateway is imported after this, as loading it loads node:sqlite.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
  process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

const USAGE = `Usage: logos-a2a <command> [options]

Commands:
  demo              The gateway with the echo agent (default, at /) and the conformance agent
                    (at /agents/conformance), each on its own Waku relay node on 127.0.0.1.
  serve             The gateway alone, configured by --config FILE and environment variables.
  agent KIND        A Logos agent (echo or conformance) as its own process, reached over Waku only.
  devnet            A local LEZ sequencer emulator on 127.0.0.1:3040 (--port, LOGOS_A2A_DEVNET_PORT), funded
                    with the LEZ debug genesis accounts.
  card sign|verify FILE  Sign an agent card with a LEZ key (--key-file K, LOGOS_A2A_WALLET_PASSPHRASE;
                    --write replaces FILE), or check a signed card (signature and account binding).
  registry export   One a2a-registry entry per agent of a running gateway, as <id>.json: --gateway URL
                    (default http://localhost:8080), --out DIR (default registry), --author NAME.
  keys ACTION       The gateway wallet's LEZ key: new, show, or import (--mnemonic-file / --secret-key-file,
                    - for standard input), encrypted with LOGOS_A2A_WALLET_PASSPHRASE in --file
                    (default .data/wallet.json); --path picks the account in the key tree (default /).
  help              This text.

Gateway options:
  --config FILE     JSON config file (also LOGOS_A2A_CONFIG). Environment variables override it:
                    PORT, HOST, PUBLIC_BASE_URL, LOGOS_A2A_DATABASE, LOGOS_A2A_TRANSPORT,
                    LOGOS_A2A_WAKU_LISTEN, LOGOS_A2A_WAKU_PEERS, LOGOS_A2A_AGENT_TIMEOUT_MS, ...

Agent options:
  --peer MULTIADDR  A relay peer to join through (repeatable), e.g. the gateway's address printed at start.
  --listen MULTIADDR  Where this agent's node listens (default /ip4/127.0.0.1/tcp/0).
  --id ID           The agent's id, its URL at the gateway (default: KIND).
  --key-file FILE   The agent's identity (default .data/agent-ID.key, created on first start).
  --card-key-file FILE  The LEZ key the card is signed with (default .data/agent-ID.lez.key).
  --announce-every MS  How often the card is announced on the discovery topic (default 30000).
`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      peer: { type: 'string', multiple: true },
      listen: { type: 'string', multiple: true },
      id: { type: 'string' },
      'key-file': { type: 'string' },
      'announce-every': { type: 'string' },
      file: { type: 'string' },
      path: { type: 'string' },
      'mnemonic-file': { type: 'string' },
      'secret-key-file': { type: 'string' },
      port: { type: 'string' },
      write: { type: 'boolean' },
      gateway: { type: 'string' },
      out: { type: 'string' },
      author: { type: 'string' },
      'card-key-file': { type: 'string' },
    },
  });
  const command = positionals[0] ?? 'help';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'keys') {
    const { runKeysCommand } = await import('./keys-command.ts');
    return runKeysCommand({
      action: positionals[1],
      file: values.file ?? '.data/wallet.json',
      path: values.path ?? '/',
      ...(values['mnemonic-file'] ? { mnemonicFile: values['mnemonic-file'] } : {}),
      ...(values['secret-key-file'] ? { secretKeyFile: values['secret-key-file'] } : {}),
      passphrase: process.env.LOGOS_A2A_WALLET_PASSPHRASE,
      out: (text) => process.stdout.write(text),
    });
  }
  if (command === 'registry') {
    if (positionals[1] !== 'export') {
      process.stderr.write(`logos-a2a registry: the action is export.\n\n${USAGE}`);
      return 2;
    }
    const { runRegistryExport } = await import('./registry-export.ts');
    return runRegistryExport({
      gatewayUrl: values.gateway ?? 'http://localhost:8080',
      outDir: values.out ?? 'registry',
      ...(values.author ? { author: values.author } : {}),
    });
  }
  if (command === 'card') {
    const { runCardCommand } = await import('./card-command.ts');
    return runCardCommand({
      action: positionals[1],
      file: positionals[2],
      ...(values['key-file'] ? { keyFile: values['key-file'] } : {}),
      passphrase: process.env.LOGOS_A2A_WALLET_PASSPHRASE,
      write: values.write === true,
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
    });
  }
  if (command === 'agent') {
    const kind = positionals[1];
    if (kind !== 'echo' && kind !== 'conformance') {
      process.stderr.write(`logos-a2a agent: say which agent, echo or conformance.\n\n${USAGE}`);
      return 2;
    }
    const announceEveryMs = values['announce-every'] === undefined ? undefined : Number(values['announce-every']);
    if (announceEveryMs !== undefined && !(Number.isInteger(announceEveryMs) && announceEveryMs > 0)) {
      process.stderr.write(`logos-a2a agent: --announce-every takes milliseconds, got "${values['announce-every']}".\n`);
      return 2;
    }
    const { startAgentProcess } = await import('./agent-process.ts');
    const running = await startAgentProcess({
      kind,
      peers: values.peer ?? [],
      ...(values.listen ? { listen: values.listen } : {}),
      ...(values.id ? { id: values.id } : {}),
      ...(values['key-file'] ? { keyFile: values['key-file'] } : {}),
      ...(values['card-key-file'] ? { cardKeyFile: values['card-key-file'] } : {}),
      ...(announceEveryMs ? { announceEveryMs } : {}),
    });
    process.stdout.write(
      [
        `logos-a2a agent ${running.agent.card.id}: ${running.transport.address}`,
        `  listening at ${running.transport.multiaddrs().join(', ')}`,
        `  peers: ${(values.peer ?? []).join(', ') || 'none (pass --peer to join a network)'}`,
        'Ctrl-C stops it.',
        '',
      ].join('\n'),
    );
    await untilSignal();
    await running.stop();
    return 0;
  }
  if (command === 'devnet') {
    const { startDevnet, DEVNET_GENESIS } = await import('./lez/devnet/devnet.ts');
    const devnet = await startDevnet({ port: Number(values.port ?? process.env.LOGOS_A2A_DEVNET_PORT ?? 3040), host: '127.0.0.1' });
    process.stdout.write(
      [
        `logos-a2a devnet: a local LEZ sequencer at ${devnet.url} (blocks every second)`,
        'Funded genesis accounts (the LEZ debug keys; import one with logos-a2a keys import --secret-key-file -):',
        ...DEVNET_GENESIS.map((g) => `  ${g.account}  ${g.balance}  secret key ${g.secretKeyHex}`),
        'Ctrl-C stops it.',
        '',
      ].join('\n'),
    );
    await untilSignal();
    await devnet.stop();
    return 0;
  }
  const file = values.config ?? process.env.LOGOS_A2A_CONFIG;
  if (command !== 'demo' && command !== 'serve') {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  const { startGateway } = await import('./gateway.ts');
  if (command === 'serve') {
    const gateway = await startGateway(loadConfig({ ...(file ? { file } : {}) }));
    printWelcome(gateway, command);
    await untilSignal();
    process.stdout.write('\nStopping…\n');
    await gateway.stop();
    return 0;
  }
  const { startDemo } = await import('./demo.ts');
  const demo = await startDemo(file);
  printWelcome(demo.gateway, command);
  process.stdout.write(demo.paymentsHelp);
  await untilSignal();
  process.stdout.write('\nStopping…\n');
  await demo.stop();
  return 0;
}

function printWelcome(gateway: Gateway, command: string): void {
  const lines = [
    `logos-a2a ${command}: A2A gateway listening at ${gateway.url}`,
    '',
    'Agents:',
    ...gateway.directory.all().map((entry) => `  ${entry.id.padEnd(12)} ${gateway.url}/agents/${entry.id}/.well-known/agent-card.json`),
    `  (default)    ${gateway.url}/.well-known/agent-card.json`,
    '',
    `OpenAPI:      ${gateway.url}/openapi.json`,
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
  const join = gateway.network.joinAddresses();
  if (join.length === 0) return ['Logos network: in-process (memory)'];
  return [
    `Logos network: Waku relay; join at ${join[0]}`,
    `  another agent, as its own process: npm run agent -- echo --id echo2 --peer ${join[0]}`,
  ];
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`logos-a2a: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
