/** `logos-a2a keys`: its options and help; the work is keys-command.ts's, loaded when the command runs. */
import { str, type Command } from '../command.ts';

export const keysCommand: Command = {
  synopsis: 'new|show|import [options]',
  summary: "the gateway wallet's LEZ key: new, show or import",
  help: () => `The gateway wallet's LEZ key, in a file encrypted with a passphrase.

  keys new          creates a key and prints its account and recovery phrase (shown once); never overwrites a file
  keys show         prints the account and public key of the key in --file
  keys import       stores an existing key: --mnemonic-file FILE, --secret-key-file FILE (- for standard input), or
                    --wallet-storage FILE: a public account of LEZ's official wallet (its storage.json)

Options:
  --file FILE               the key file (default .data/wallet.json; its folder is created)
  --path PATH               the account's path in the key tree, for new and mnemonic imports (default /)
  --mnemonic-file FILE      import: the recovery phrase
  --secret-key-file FILE    import: the secret key, 64 hex characters (as the official wallet writes it)
  --wallet-storage FILE     import: the official wallet's storage.json (in ~/.lee/wallet, or LEE_WALLET_HOME_DIR)
  --account ID              with --wallet-storage: which public account (base58, Public/ prefix optional)
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
    'wallet-storage': { type: 'string' },
    account: { type: 'string' },
  },
  positionals: 1,
  async run(positionals, values) {
    const { runKeysCommand } = await import('../keys-command.ts');
    return runKeysCommand({
      action: positionals[0],
      file: str(values.file) ?? '.data/wallet.json',
      path: str(values.path) ?? '/',
      ...(str(values['mnemonic-file']) ? { mnemonicFile: str(values['mnemonic-file'])! } : {}),
      ...(str(values['secret-key-file']) ? { secretKeyFile: str(values['secret-key-file'])! } : {}),
      ...(str(values['wallet-storage']) ? { walletStorage: str(values['wallet-storage'])! } : {}),
      ...(str(values.account) ? { account: str(values.account)! } : {}),
      passphrase: process.env.LOGOS_A2A_WALLET_PASSPHRASE,
      out: (text) => process.stdout.write(text),
    });
  },
};
