/**
 * `logos-a2a`: the registry of its commands (one module each under commands/), argument parsing, dispatch and the
 * one-line report of a failure. main.ts starts it; in dist/, a bundle.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError, describeFailure } from './errors.ts';
import type { Command, Values } from './command.ts';
import { failureContext, setFailureContext } from './failure-context.ts';
import { agentCommand } from './commands/agent.ts';
import { cardCommand } from './commands/card.ts';
import { demoCommand } from './commands/demo.ts';
import { devnetCommand } from './commands/devnet.ts';
import { commandHelp, helpCommand, overview, unknownCommand } from './commands/help.ts';
import { keysCommand } from './commands/keys.ts';
import { publishCommand } from './commands/publish.ts';
import { registryCommand } from './commands/registry.ts';
import { serveCommand } from './commands/serve.ts';

/** In the overview's order. */
const COMMANDS: Record<string, Command> = {
  demo: demoCommand,
  serve: serveCommand,
  agent: agentCommand,
  publish: publishCommand,
  devnet: devnetCommand,
  keys: keysCommand,
  card: cardCommand,
  registry: registryCommand,
  help: helpCommand(() => COMMANDS),
};

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
    process.stdout.write(overview(COMMANDS));
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
  if (!command) throw unknownCommand(first, COMMANDS);
  setFailureContext({ prefix: `logos-a2a ${first}` });
  const { positionals, values } = parseCommand(first, command, rest);
  if (values.help) {
    process.stdout.write(commandHelp(first, command));
    return 0;
  }
  return command.run(positionals, values);
}

/** Prints the one line for a known failure, or the stack of an unforeseen one, and says which exit code follows. */
function report(error: unknown): number {
  const context = failureContext();
  const failure = describeFailure(error, context);
  if (failure) {
    process.stderr.write(`${failure.message}\n`);
    return failure.exitCode;
  }
  process.stderr.write(
    `${context.prefix}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

// A server that cannot listen reports it as an 'error' event, which nobody awaits: it arrives here.
process.on('uncaughtException', (error) => process.exit(report(error)));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(report(error)),
);
