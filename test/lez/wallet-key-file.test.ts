import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import {
  decryptKeyFile,
  encryptKeyFile,
  loadKeyFile,
  saveKeyFile,
  serializeKeyFile,
  type KeyFile,
  type ScryptParams,
} from '../../src/lez/wallet-key-file.ts';

// Cheap scrypt for tests; files written by the gateway use DEFAULT_SCRYPT (2^17).
const FAST: ScryptParams = { logN: 10, r: 8, p: 1 };
const GENESIS_1 = hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32);
const MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art';

describe('encrypted key files', () => {
  let secretKeyFile: KeyFile;
  let mnemonicFile: KeyFile;
  let dir: string;

  beforeAll(async () => {
    secretKeyFile = await encryptKeyFile({ type: 'secret-key', secretKey: GENESIS_1 }, 'correct horse', FAST);
    mnemonicFile = await encryptKeyFile({ type: 'mnemonic', mnemonic: MNEMONIC, path: '/0' }, 'battery staple', FAST);
    dir = await mkdtemp(join(tmpdir(), 'lez-key-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the documented JSON shape, with the public account in the clear and no secret', () => {
    expect(secretKeyFile).toMatchObject({
      format: 'logos-a2a/lez-key',
      version: 1,
      kdf: { name: 'scrypt', logN: 10, r: 8, p: 1 },
      cipher: 'aes-256-gcm',
      account: 'CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r',
    });
    expect(Buffer.from(secretKeyFile.salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(secretKeyFile.nonce, 'base64')).toHaveLength(12);
    const text = serializeKeyFile(secretKeyFile);
    expect(text).not.toContain('7f273098');
    expect(serializeKeyFile(mnemonicFile)).not.toContain('abandon');
  });

  it('unlocks with the right passphrase (from JSON text or the parsed object)', async () => {
    const unlocked = await decryptKeyFile(serializeKeyFile(secretKeyFile), 'correct horse');
    expect(unlocked.ok).toBe(true);
    if (!unlocked.ok) return;
    expect(unlocked.secret).toEqual({ type: 'secret-key', secretKey: GENESIS_1 });
    expect(unlocked.key.account).toBe('CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r');

    const fromMnemonic = await decryptKeyFile(mnemonicFile, 'battery staple');
    expect(fromMnemonic).toMatchObject({ ok: true, secret: { type: 'mnemonic', mnemonic: MNEMONIC, path: '/0' } });
    if (fromMnemonic.ok) expect(fromMnemonic.key.account).toBe(mnemonicFile.account);
  });

  it('says "wrong-passphrase" for a wrong passphrase', async () => {
    expect(await decryptKeyFile(secretKeyFile, 'correct horse!')).toEqual({
      ok: false,
      reason: 'wrong-passphrase',
      message: 'wrong passphrase (or the key file was altered)',
    });
    expect(await decryptKeyFile(secretKeyFile, '')).toMatchObject({ ok: false, reason: 'wrong-passphrase' });
  });

  it('detects edits to the header as well as to the ciphertext', async () => {
    const otherAccount = { ...secretKeyFile, account: '2RHZhw9h534Zr3eq2RGhQete2Hh667foECzXPmSkGni2' };
    expect(await decryptKeyFile(otherAccount, 'correct horse')).toMatchObject({
      ok: false,
      reason: 'wrong-passphrase',
    });
    const body = Buffer.from(secretKeyFile.ciphertext, 'base64');
    body[3]! ^= 1;
    expect(
      await decryptKeyFile({ ...secretKeyFile, ciphertext: body.toString('base64') }, 'correct horse'),
    ).toMatchObject({ ok: false, reason: 'wrong-passphrase' });
    expect(
      await decryptKeyFile({ ...secretKeyFile, kdf: { ...secretKeyFile.kdf, logN: 11 } }, 'correct horse'),
    ).toMatchObject({ ok: false, reason: 'wrong-passphrase' });
  });

  it('normalises the passphrase (NFKC), so composed and decomposed accents both unlock', async () => {
    const file = await encryptKeyFile({ type: 'secret-key', secretKey: GENESIS_1 }, 'caf\u00e9', FAST);
    expect(await decryptKeyFile(file, 'cafe\u0301')).toMatchObject({ ok: true });
  });

  it.each([
    ['not JSON', () => '{nope', 'malformed'],
    ['another format', () => ({ ...secretKeyFile, format: 'x' }), 'malformed'],
    ['a newer version', () => ({ ...secretKeyFile, version: 2 }), 'unsupported'],
    ['a hostile scrypt cost', () => ({ ...secretKeyFile, kdf: { ...secretKeyFile.kdf, logN: 30 } }), 'malformed'],
    ['a short salt', () => ({ ...secretKeyFile, salt: 'AAAA' }), 'malformed'],
    ['a bad account', () => ({ ...secretKeyFile, account: 'nope' }), 'malformed'],
    ['a missing field', () => ({ ...secretKeyFile, nonce: undefined }), 'malformed'],
  ])('refuses %s', async (_, make, reason) => {
    expect(await decryptKeyFile(make(), 'correct horse')).toMatchObject({ ok: false, reason });
  });

  it('refuses to write with an empty passphrase, an invalid key or a bad mnemonic (caller errors)', async () => {
    await expect(encryptKeyFile({ type: 'secret-key', secretKey: GENESIS_1 }, '', FAST)).rejects.toThrow(RangeError);
    await expect(encryptKeyFile({ type: 'secret-key', secretKey: new Uint8Array(32) }, 'pw', FAST)).rejects.toThrow(
      RangeError,
    );
    await expect(encryptKeyFile({ type: 'mnemonic', mnemonic: 'hello', path: '/' }, 'pw', FAST)).rejects.toThrow(
      RangeError,
    );
    await expect(
      encryptKeyFile({ type: 'secret-key', secretKey: GENESIS_1 }, 'pw', { logN: 25, r: 8, p: 1 }),
    ).rejects.toThrow(RangeError);
  });

  it('saves owner-only and loads back; a missing file is "unreadable"', async () => {
    const path = join(dir, 'gateway.key.json');
    await saveKeyFile(path, secretKeyFile);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(secretKeyFile);
    expect(await loadKeyFile(path, 'correct horse')).toMatchObject({
      ok: true,
      key: { account: secretKeyFile.account },
    });
    expect(await loadKeyFile(path, 'nope')).toMatchObject({ ok: false, reason: 'wrong-passphrase' });
    // Never clobbers a key by accident; replaces it only when asked.
    await expect(saveKeyFile(path, mnemonicFile)).rejects.toThrow(/EEXIST/);
    expect(await loadKeyFile(path, 'correct horse')).toMatchObject({ ok: true });
    await saveKeyFile(path, mnemonicFile, { overwrite: true });
    expect(await loadKeyFile(path, 'battery staple')).toMatchObject({
      ok: true,
      key: { account: mnemonicFile.account },
    });
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(await loadKeyFile(join(dir, 'missing.json'), 'x')).toMatchObject({ ok: false, reason: 'unreadable' });
    await writeFile(join(dir, 'garbage.json'), 'garbage');
    expect(await loadKeyFile(join(dir, 'garbage.json'), 'x')).toMatchObject({ ok: false, reason: 'malformed' });
  });
});
