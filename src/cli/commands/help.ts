/** `logos-a2a help [COMMAND]`, and the overview and usage lines every command's help starts with. */
import { UsageError } from '../errors.ts';
import type { Command } from '../command.ts';

/** The help command of the registry `commands` (read when it runs: the registry holds this command too). */
export function helpCommand(commands: () => Record<string, Command>): Command {
  return {
    synopsis: '[COMMAND]',
    summary: "this overview, or a command's own help",
    help: () => "Prints the overview of the commands, or with a command name that command's help.\n",
    options: {},
    positionals: 1,
    async run(positionals) {
      const [name] = positionals;
      if (name === undefined) {
        process.stdout.write(overview(commands()));
        return 0;
      }
      const command = commands()[name];
      if (!command) throw unknownCommand(name, commands());
      process.stdout.write(commandHelp(name, command));
      return 0;
    },
  };
}

export function overview(commands: Record<string, Command>): string {
  const width = Math.max(...Object.entries(commands).map(([name, c]) => `${name} ${c.synopsis}`.length));
  return `Usage: logos-a2a <command> [options]

An A2A gateway to AI agents on the Logos network (Logos Messaging / Waku).

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${`${name} ${c.synopsis}`.padEnd(width)}  ${c.summary}`)
  .join('\n')}

logos-a2a COMMAND --help (or logos-a2a help COMMAND) says what a command takes and the settings it reads.
logos-a2a --version prints the version.
`;
}

export function commandHelp(name: string, command: Command): string {
  return `Usage: logos-a2a ${name} ${command.synopsis}\n\n${command.help()}`;
}

export function unknownCommand(name: string, commands: Record<string, Command>): UsageError {
  return new UsageError(
    `logos-a2a: unknown command "${name}"; the commands are ${Object.keys(commands).join(', ')} (logos-a2a help)`,
  );
}
