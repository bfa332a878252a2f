/**
 * The public keys kept by LEZ's official wallet (`wallet`, docs/lez.md §4.7), read so that `keys import` can take an
 * account made there. The wallet keeps its accounts in `storage.json` in its home directory (`~/.lee/wallet`, or
 * `LEE_WALLET_HOME_DIR`; `NSSA_WALLET_HOME_DIR` in older releases), as plain JSON: its password is not used to
 * encrypt it yet.
 *
 * ```json
 * { "key_chain": { "accounts": [
 *     { "Public": { "account_id": "<base58>", "chain_index": "/0",
 *                   "data": { "csk": "<secret key, 64 hex>", "cpk": …, "ccc": […], "cci": 0 } } },
 *     { "ImportedPublic": { "account_id": "<base58>", "pub_sign_key": "<secret key, 64 hex>" } },
 *     { "Private": … }, { "ImportedPrivate": … } ] },
 *   "last_synced_block": 0, "labels": {} }
 * ```
 *
 * A secret key is written as LEZ's `PrivateKey` displays it: 64 lowercase hex characters, which is also what a
 * `--secret-key-file` takes. Private accounts are skipped: this gateway pays from public accounts only. Nothing in the
 * file is trusted: each key's account is derived from the key itself.
 */
import { z } from 'zod';
import { parseHex } from './bytes.ts';
import { signingKeyFromSecretKey, type SigningKey } from './keys.ts';
import { isValidSecretKey } from './public-key.ts';

const SecretKeyHex = z.string().regex(/^[0-9a-fA-F]{64}$/, 'a secret key is 64 hex characters');

const PublicEntry = z.object({ Public: z.object({ data: z.object({ csk: SecretKeyHex }).loose() }).loose() });
const ImportedPublicEntry = z.object({ ImportedPublic: z.object({ pub_sign_key: SecretKeyHex }).loose() });
/** An entry is an externally tagged enum: one key, the variant's name. */
const Entry = z.record(z.string(), z.unknown()).refine((entry) => Object.keys(entry).length === 1, 'one variant');

const Storage = z.object({ key_chain: z.object({ accounts: z.array(Entry) }).loose() }).loose();

export type WalletStorageKeys = { ok: true; keys: SigningKey[] } | { ok: false; reason: string };

/** The public accounts' signing keys in a wallet's `storage.json`, in the file's order. */
export function publicKeysOfWalletStorage(text: string): WalletStorageKeys {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = Storage.safeParse(json);
  if (!parsed.success) {
    return { ok: false, reason: `not an LEZ wallet storage file (${parsed.error.issues[0]?.message ?? 'bad shape'})` };
  }
  const keys: SigningKey[] = [];
  for (const entry of parsed.data.key_chain.accounts) {
    const hex =
      'Public' in entry
        ? PublicEntry.safeParse(entry).data?.Public.data.csk
        : 'ImportedPublic' in entry
          ? ImportedPublicEntry.safeParse(entry).data?.ImportedPublic.pub_sign_key
          : 'skip';
    if (hex === 'skip') continue; // a private account
    if (hex === undefined) return { ok: false, reason: 'a public account entry has no valid secret key' };
    const bytes = parseHex(hex.toLowerCase());
    if (!bytes.ok || !isValidSecretKey(bytes.bytes))
      return { ok: false, reason: 'a public account holds an invalid secret key' };
    keys.push(signingKeyFromSecretKey(bytes.bytes));
  }
  return { ok: true, keys };
}

/** The key of `account` (base58, with or without the wallet's `Public/` prefix), or why there is none to take. */
export function pickWalletAccount(
  keys: readonly SigningKey[],
  account: string | undefined,
): { ok: true; key: SigningKey } | { ok: false; reason: string } {
  const listed = keys.map((key) => `Public/${key.account}`).join(', ');
  if (account === undefined) {
    if (keys.length === 1) return { ok: true, key: keys[0]! };
    return keys.length === 0
      ? { ok: false, reason: 'the wallet holds no public account' }
      : { ok: false, reason: `the wallet holds ${keys.length} public accounts; name one with --account (${listed})` };
  }
  const wanted = account.replace(/^Public\//, '');
  const key = keys.find((k) => k.account === wanted);
  if (key) return { ok: true, key };
  return {
    ok: false,
    reason: `the wallet holds no public account ${wanted}${keys.length > 0 ? ` (it holds ${listed})` : ''}`,
  };
}
