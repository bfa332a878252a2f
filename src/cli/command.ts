/** What a `logos-a2a` command is (commands.ts dispatches them), and the helpers their options share. */
import type { ParseArgsConfig } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface Command {
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

export const CONFIG_OPTION = { config: { type: 'string' } } as const satisfies Options;

/** An option's value when it was given as a string. */
export function str(value: Values[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `text` as a TCP port, 0 (any free port) to 65535; undefined when it is not one. */
export function portNumber(text: string): number | undefined {
  const port = Number(text);
  return text !== '' && Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}
