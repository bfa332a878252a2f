#!/usr/bin/env node
/** `logos-a2a`: the Node entry point. */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type GatewayConfigInput } from './config.ts';
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
                    (at /agents/conformance), on the embedded Logos network.
  serve             The gateway alone, configured by --config FILE and environment variables.
  help              This text.

Options:
  --config FILE     JSON config file (also LOGOS_A2A_CONFIG). Environment variables override it:
                    PORT, HOST, PUBLIC_BASE_URL, LOGOS_A2A_DATABASE, LOGOS_A2A_AGENT_TIMEOUT_MS, ...
`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const command = positionals[0] ?? 'help';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const file = values.config ?? process.env.LOGOS_A2A_CONFIG;
  let overrides: GatewayConfigInput = {};
  if (command === 'demo') overrides = { agents: [{ builtin: 'echo' }, { builtin: 'conformance' }], defaultAgent: 'echo' };
  else if (command !== 'serve') {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig({ ...(file ? { file } : {}), overrides });
  const { startGateway } = await import('./gateway.ts');
  const gateway = await startGateway(config);
  printWelcome(gateway, command);
  await untilSignal();
  process.stdout.write('\nStopping…\n');
  await gateway.stop();
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
