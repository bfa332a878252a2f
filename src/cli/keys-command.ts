/**
 * `logos-a2a keys new|show|import`: the gateway wallet's LEZ key, encrypted at rest with a passphrase
 * (LOGOS_A2A_WALLET_PASSPHRASE). Secrets are read from files or standard input, never from the command line, so they
 * stay out of shell history and process lists.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { encryptKeyFile, loadKeyFile, saveKeyFile, type KeySecret } from '../lez/wallet-key-file.ts';
import { generateMnemonic, parseMnemonic, signingKeyFromMnemonic, signingKeyFromSecretKey } from '../lez/keys.ts';
import { parseHex, toHex } from '../lez/bytes.ts';
import { pickWalletAccount, publicKeysOfWalletStorage } from '../lez/official-wallet-storage.ts';

export interface KeysCommandOptions {
  action: string | undefined;
  file: string;
  /** The wallet path in the public key tree, e.g. "/" or "/0". */
  path: string;
  mnemonicFile?: string;
  secretKeyFile?: string;
  /** The official LEZ wallet's storage.json, and which of its public accounts (needed when it holds several). */
  walletStorage?: string;
  account?: string;
  passphrase: string | undefined;
  out: (text: string) => void;
}

export async function runKeysCommand(options: KeysCommandOptions): Promise<number> {
  const fail = (message: string, code = 1) => {
    options.out(`logos-a2a keys: ${message}\n`);
    return code;
  };
  if (!options.passphrase) return fail('set LOGOS_A2A_WALLET_PASSPHRASE to the passphrase that protects the key file.');
  const exists = () => fail(alreadyThere(options.file));
  switch (options.action) {
    case 'new': {
      if (existsSync(options.file)) return exists();
      const mnemonic = generateMnemonic();
      const saved = await save({ type: 'mnemonic', mnemonic, path: options.path }, options);
      if (typeof saved === 'string') return fail(saved);
      options.out(
        `Created ${options.file}\n  account    ${saved.account}\n  public key ${saved.publicKey}\n\n` +
          `Recovery phrase (shown once; write it down, anyone who has it controls the account):\n  ${mnemonic}\n`,
      );
      return 0;
    }
    case 'import': {
      if (existsSync(options.file)) return exists();
      const secret = readSecret(options);
      if (typeof secret === 'string') return fail(secret);
      const saved = await save(secret, options);
      if (typeof saved === 'string') return fail(saved);
      options.out(`Imported into ${options.file}\n  account    ${saved.account}\n  public key ${saved.publicKey}\n`);
      return 0;
    }
    case 'show': {
      const unlocked = await loadKeyFile(options.file, options.passphrase);
      if (!unlocked.ok) return fail(unlocked.message);
      options.out(
        `${options.file}\n  account    ${unlocked.key.account}\n  public key ${toHex(unlocked.key.publicKey)}\n`,
      );
      return 0;
    }
    default:
      return fail('say new, show or import.', 2);
  }
}

async function save(
  secret: KeySecret,
  options: KeysCommandOptions,
): Promise<{ account: string; publicKey: string } | string> {
  const key =
    secret.type === 'secret-key'
      ? signingKeyFromSecretKey(secret.secretKey)
      : signingKeyFromMnemonic(secret.mnemonic, secret.path);
  if ('ok' in key && !key.ok) return `cannot use this key: ${key.reason}`;
  if (!('secretKey' in key)) return 'cannot use this key';
  try {
    mkdirSync(dirname(options.file), { recursive: true });
    await saveKeyFile(options.file, await encryptKeyFile(secret, options.passphrase!));
  } catch (error) {
    // The file is written under a temporary name, then linked: never name that temporary file to the user.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return alreadyThere(options.file);
    return code
      ? `cannot write ${options.file} (${code}); check that its folder is writable`
      : `cannot write ${options.file}: ${(error as Error).message}`;
  }
  // The x-only form, as `card verify` prints it and a card's signature carries it: the account is derived from it.
  return { account: key.account, publicKey: toHex(key.publicKey) };
}

/** Key files are never overwritten: losing one loses the account's money. */
function alreadyThere(file: string): string {
  return (
    `${file} already exists, and keys never overwrites a key file. To see its account: logos-a2a keys show --file ${file}; ` +
    'to make another key, name another file with --file (or move this one away first).'
  );
}

function readSecret(options: KeysCommandOptions): KeySecret | string {
  if (options.mnemonicFile) {
    const parsed = parseMnemonic(readText(options.mnemonicFile));
    if (!parsed.ok) return `the mnemonic is not valid: ${parsed.reason}`;
    return { type: 'mnemonic', mnemonic: parsed.mnemonic, path: options.path };
  }
  if (options.secretKeyFile) {
    const hex = parseHex(readText(options.secretKeyFile).trim().toLowerCase());
    if (!hex.ok || hex.bytes.length !== 32) return 'the secret key file must hold 32 bytes as 64 hex characters.';
    return { type: 'secret-key', secretKey: hex.bytes };
  }
  if (options.walletStorage) {
    const keys = publicKeysOfWalletStorage(readText(options.walletStorage));
    if (!keys.ok) return `${options.walletStorage}: ${keys.reason}`;
    const picked = pickWalletAccount(keys.keys, options.account);
    if (!picked.ok) return `${options.walletStorage}: ${picked.reason}`;
    return { type: 'secret-key', secretKey: picked.key.secretKey };
  }
  return 'import takes --mnemonic-file FILE, --secret-key-file FILE (- for standard input) or --wallet-storage FILE.';
}

function readText(path: string): string {
  return readFileSync(path === '-' ? 0 : path, 'utf8');
}
