/** `logos-a2a card`: its options and help; the work is card-command.ts's, loaded when the command runs. */
import { str, type Command } from '../command.ts';

export const cardCommand: Command = {
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
    const { runCardCommand } = await import('../card-command.ts');
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
};
