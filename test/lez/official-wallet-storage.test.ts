/**
 * Importing a public account of LEZ's official wallet: its `storage.json` (`PersistentStorage` of the wallet crate;
 * secret keys as LEZ's `PrivateKey` displays them, 64 hex), with the keys of LEZ's own sources: the built-in testnet
 * state's first public account (`testnet_initial_state`), and the public tree root of the seed `[42; 64]` that the
 * wallet's storage test uses (`ChildKeysPublic::root`, key tree checked against LEZ's vectors in keys.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runKeysCommand } from '../../src/cli/keys-command.ts';
import { toHex } from '../../src/lez/bytes.ts';
import { publicRoot, signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { pickWalletAccount, publicKeysOfWalletStorage } from '../../src/lez/official-wallet-storage.ts';
import { loadKeyFile } from '../../src/lez/wallet-key-file.ts';

const TESTNET_A = {
  secretKeyHex: '10a26a9aec7d34b82364eeae45c5294dbb0a764b000b94eeb9b58511dc487c4d',
  account: '6iArKUXxhUJqS7kCaPNhwMWt3ro71PDyBj7jwAyE2VQV',
};
const ROOT_42 = publicRoot(new Uint8Array(64).fill(42));

/** A storage.json as the wallet writes it: one derived account, one imported, one private. */
const STORAGE = JSON.stringify({
  key_chain: {
    accounts: [
      {
        Public: {
          account_id: ROOT_42.account,
          chain_index: '/',
          data: {
            csk: toHex(ROOT_42.secretKey),
            cpk: toHex(ROOT_42.publicKey),
            ccc: [...ROOT_42.chainCode],
            cci: null,
          },
        },
      },
      { ImportedPublic: { account_id: TESTNET_A.account, pub_sign_key: TESTNET_A.secretKeyHex } },
      { Private: { account_id: 'GoKB6RuE', chain_index: '/', data: { value: [{}, []], ccc: [], cci: null } } },
    ],
  },
  last_synced_block: 7,
  labels: {},
});

const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-wallet-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the official wallet's storage.json", () => {
  it('yields its public accounts, each account derived from its key, private ones skipped', () => {
    const read = publicKeysOfWalletStorage(STORAGE);
    if (!read.ok) throw new Error(read.reason);
    expect(read.keys.map((key) => key.account)).toEqual([ROOT_42.account, TESTNET_A.account]);
    expect(toHex(read.keys[1]!.secretKey)).toBe(TESTNET_A.secretKeyHex);
  });

  it('picks one by id (with or without Public/), and asks which when there are several', () => {
    const read = publicKeysOfWalletStorage(STORAGE);
    if (!read.ok) throw new Error(read.reason);
    expect(pickWalletAccount(read.keys, `Public/${TESTNET_A.account}`)).toMatchObject({
      ok: true,
      key: { account: TESTNET_A.account },
    });
    expect(pickWalletAccount(read.keys, TESTNET_A.account)).toMatchObject({ ok: true });
    const ambiguous = pickWalletAccount(read.keys, undefined);
    expect(ambiguous).toMatchObject({ ok: false });
    if (!ambiguous.ok) expect(ambiguous.reason).toContain(`Public/${TESTNET_A.account}`);
    const stranger = signingKeyFromSecretKey(new Uint8Array(32).fill(0x33)).account;
    expect(pickWalletAccount(read.keys, stranger)).toMatchObject({ ok: false });
  });

  it('refuses what is not a wallet storage file, and a key that is not one', () => {
    expect(publicKeysOfWalletStorage('{')).toMatchObject({ ok: false, reason: 'not JSON' });
    expect(publicKeysOfWalletStorage('{"accounts":[]}')).toMatchObject({ ok: false });
    const zero = JSON.stringify({ key_chain: { accounts: [{ ImportedPublic: { pub_sign_key: '00'.repeat(32) } }] } });
    expect(publicKeysOfWalletStorage(zero)).toMatchObject({
      ok: false,
      reason: 'a public account holds an invalid secret key',
    });
  });

  it('keys import --wallet-storage stores the chosen account in an encrypted key file', async () => {
    const storage = join(dir, 'storage.json');
    writeFileSync(storage, STORAGE);
    const file = join(dir, 'wallet.json');
    let out = '';
    const code = await runKeysCommand({
      action: 'import',
      file,
      path: '/',
      walletStorage: storage,
      account: `Public/${TESTNET_A.account}`,
      passphrase: 'correct horse',
      out: (text) => (out += text),
    });
    expect(code).toBe(0);
    expect(out).toContain(`account    ${TESTNET_A.account}`);
    expect(readFileSync(file, 'utf8')).not.toContain(TESTNET_A.secretKeyHex);
    const unlocked = await loadKeyFile(file, 'correct horse');
    expect(unlocked.ok && toHex(unlocked.key.secretKey)).toBe(TESTNET_A.secretKeyHex);
  });

  it('without --account, a wallet of several accounts is refused, listing them', async () => {
    const storage = join(dir, 'storage.json');
    writeFileSync(storage, STORAGE);
    let out = '';
    const code = await runKeysCommand({
      action: 'import',
      file: join(dir, 'other.json'),
      path: '/',
      walletStorage: storage,
      passphrase: 'correct horse',
      out: (text) => (out += text),
    });
    expect(code).toBe(1);
    expect(out).toMatch(/holds 2 public accounts; name one with --account/);
  });
});
