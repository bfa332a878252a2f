/**
 * The paid agent's private account (docs/payments.md §10) from the operator's LEZ wallet: the mnemonic the official
 * wallet was set up with and a node of its private key tree (docs/lez.md §4.4), by default /0, the node
 * `wallet account new private` makes first. The agent reads notes with that node's viewing key, and what it is paid
 * privately is the wallet's to spend after `wallet account sync-private`.
 */
import { UsageError } from './errors.ts';
import { formatAccountId, privateAccountId } from '../lez/account-id.ts';
import { paymentKeys, type PrivateReceiveKeys } from '../lez/private/receive.ts';
import { readMnemonicFile, walletPrivateNode } from '../lez/private/wallet-node.ts';

/** The environment variable that may hold the mnemonic itself, as LOGOS_A2A_WALLET_PASSPHRASE holds a passphrase. */
export const PRIVATE_MNEMONIC_ENV = 'LOGOS_A2A_PRIVATE_MNEMONIC';

export interface PrivateAccount {
  keys: PrivateReceiveKeys;
  /** The node of the wallet's private key tree, as the wallet writes it ("/0"). */
  path: string;
}

export interface PrivateAccountSetting {
  /** A file holding the mnemonic; read before `mnemonic`. */
  mnemonicFile?: string;
  /** The mnemonic itself (from PRIVATE_MNEMONIC_ENV). */
  mnemonic?: string;
  /** The wallet's chain index of the node, e.g. "/1" (default /0). */
  path?: string;
}

/**
 * The private account a setting names, or undefined when it names none. Bad input (no such file, a phrase that is
 * no BIP-39 mnemonic, a path that is no chain index) is a UsageError naming the option; the phrase is never echoed.
 */
export function privateAccountFrom(setting: PrivateAccountSetting, prefix: string): PrivateAccount | undefined {
  const phrase = setting.mnemonicFile === undefined ? setting.mnemonic : readMnemonic(setting.mnemonicFile, prefix);
  if (phrase === undefined) {
    if (setting.path === undefined) return undefined;
    throw new UsageError(
      `${prefix}: --private-path names a node of the wallet whose mnemonic is in --private-mnemonic-file FILE or ${PRIVATE_MNEMONIC_ENV}`,
    );
  }
  const source = setting.mnemonicFile ?? PRIVATE_MNEMONIC_ENV;
  const node = walletPrivateNode(phrase, setting.path);
  if (!node.ok && node.problem === 'mnemonic')
    throw new UsageError(`${prefix}: the mnemonic in ${source} is not valid: ${node.reason}`);
  if (!node.ok) throw new UsageError(`${prefix}: --private-path takes a wallet path such as /0 or /1: ${node.reason}`);
  return { keys: node.keys, path: node.path };
}

/** What a payer needs to pay privately, and where the operator finds the money in its wallet. */
export function privateAccountLines({ keys, path }: PrivateAccount): string[] {
  const id = formatAccountId(privateAccountId(keys.nullifierPublicKey, 0n));
  const { npk, vpk } = paymentKeys(keys);
  return [
    `  paid privately to its wallet's private key node ${path}: --to-npk ${npk} --to-vpk ${vpk}`,
    `  (each payment makes a new account of these keys; with --to-identifier 0 it is Private/${id})`,
  ];
}

function readMnemonic(file: string, prefix: string): string {
  const read = readMnemonicFile(file);
  if (!read.ok) throw new UsageError(`${prefix}: cannot read --private-mnemonic-file ${file} (${read.reason})`);
  return read.phrase;
}
