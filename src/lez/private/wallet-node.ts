/**
 * A node of the official wallet's private key tree from its BIP-39 mnemonic (docs/lez.md §4.4), as the receiving keys
 * of a paid agent's private account (docs/payments.md §10): by default /0, the node `wallet account new private`
 * makes first, so that what the agent is paid privately is the wallet's to spend after `wallet account sync-private`.
 */
import { readFileSync } from 'node:fs';
import { formatChainIndex, parseChainIndex, parseMnemonic, seedFromMnemonic } from '../keys.ts';
import { FIRST_WALLET_PRIVATE_PATH, derivePrivateKeys } from '../private-keys.ts';
import { receiveKeys, type PrivateReceiveKeys } from './receive.ts';

export type WalletPrivateNode =
  | { ok: true; keys: PrivateReceiveKeys; /** As the wallet writes it ("/0"). */ path: string }
  | { ok: false; problem: 'mnemonic' | 'path'; reason: string };

/** `path` as the wallet prints it ("/0", "/1", "/0/0"); default /0. */
export function walletPrivateNode(phrase: string, path?: string): WalletPrivateNode {
  const words = parseMnemonic(phrase);
  if (!words.ok) return { ok: false, problem: 'mnemonic', reason: words.reason };
  const index =
    path === undefined ? { ok: true as const, path: [...FIRST_WALLET_PRIVATE_PATH] } : parseChainIndex(path);
  if (!index.ok) return { ok: false, problem: 'path', reason: index.reason };
  const node = derivePrivateKeys(seedFromMnemonic(words.mnemonic), index.path);
  return {
    ok: true,
    keys: receiveKeys(node.nullifierSecretKey, node.viewingSecretKey),
    path: formatChainIndex(index.path),
  };
}

/** The mnemonic kept in `file`, or why it cannot be read (the error's code, e.g. ENOENT); never the phrase in a reason. */
export function readMnemonicFile(file: string): { ok: true; phrase: string } | { ok: false; reason: string } {
  try {
    return { ok: true, phrase: readFileSync(file, 'utf8') };
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}
