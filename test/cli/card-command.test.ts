/** `logos-a2a card sign|verify FILE` against real files: an encrypted LEZ key file and card files on disk. */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCardCommand, type CardCommandOptions } from '../../src/cli/card-command.ts';
import { runKeysCommand } from '../../src/cli/keys-command.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { encryptKeyFile, saveKeyFile, type ScryptParams } from '../../src/lez/wallet-key-file.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { verifyLogosCard } from '../../src/logos/card-signature.ts';

const FAST: ScryptParams = { logN: 10, r: 8, p: 1 };
const PASSPHRASE = 'correct horse';
const SECRET = hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32);
const KEY = signingKeyFromSecretKey(SECRET);
const OTHER = signingKeyFromSecretKey(
  hexToBytes('1111111111111111111111111111111111111111111111111111111111111111', 32),
);

const CARD = {
  id: 'upper',
  name: 'Upper',
  description: 'Shouts.',
  version: '1.0.0',
  skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text', 'x-lez-price': '5' }],
  agentInterfaces: [{ type: 'logos-messaging', version: '1', address: '0x02abcdef' }],
};

let dir: string;
let keyFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'logos-a2a-card-'));
  keyFile = join(dir, 'wallet.json');
  await saveKeyFile(
    keyFile,
    await encryptKeyFile({ type: 'secret-key', secretKey: Uint8Array.from(SECRET) }, PASSPHRASE, FAST),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(
  options: Omit<CardCommandOptions, 'out' | 'err'>,
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCardCommand({ ...options, out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

async function cardFile(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

describe('logos-a2a card sign', () => {
  it('prints the signed card, with the key’s account filled in, and leaves the file alone', async () => {
    const file = await cardFile('plain.json', CARD);
    const { code, out, err } = await run({ action: 'sign', file, keyFile, passphrase: PASSPHRASE });
    expect(err).toBe('');
    expect(code).toBe(0);
    const signed = JSON.parse(out);
    expect(signed['x-lez-identity']).toEqual({ account_id: KEY.account });
    expect(signed.signature.alg).toBe('bip340-sha256-jcs');
    expect(verifyLogosCard(out)).toMatchObject({ ok: true, accountId: KEY.account });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(CARD);
    // Member order of the author's file is kept for readability; the signature goes last.
    expect(Object.keys(signed)).toEqual([...Object.keys(CARD), 'x-lez-identity', 'signature']);
  });

  it('with --write replaces the file atomically (no temporary file left behind) and says so', async () => {
    const file = await cardFile('write.json', { ...CARD, 'x-lez-identity': { account_id: KEY.account } });
    const { code, out } = await run({ action: 'sign', file, keyFile, passphrase: PASSPHRASE, write: true });
    expect(code).toBe(0);
    expect(out).toBe(`Signed ${file}: agent upper, account ${KEY.account}\n`);
    expect(verifyLogosCard(await readFile(file, 'utf8')).ok).toBe(true);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // Signing again replaces the signature and still verifies.
    expect((await run({ action: 'sign', file, keyFile, passphrase: PASSPHRASE, write: true })).code).toBe(0);
    expect(verifyLogosCard(await readFile(file, 'utf8')).ok).toBe(true);
  });

  it('refuses a card that names another account', async () => {
    const file = await cardFile('other.json', { ...CARD, 'x-lez-identity': { account_id: OTHER.account } });
    const { code, out, err } = await run({ action: 'sign', file, keyFile, passphrase: PASSPHRASE });
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain(`names account ${OTHER.account}, but this key controls ${KEY.account}`);
  });

  it('refuses a wrong passphrase, a missing passphrase, an invalid card, non-JSON and unreadable files', async () => {
    const good = await cardFile('good.json', CARD);
    const wrong = await run({ action: 'sign', file: good, keyFile, passphrase: 'nope' });
    expect(wrong).toMatchObject({ code: 1, out: '' });
    expect(wrong.err).toMatch(/wrong passphrase/);
    const none = await run({ action: 'sign', file: good, keyFile });
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/LOGOS_A2A_WALLET_PASSPHRASE/);
    const invalid = await run({
      action: 'sign',
      file: await cardFile('invalid.json', { ...CARD, skills: [] }),
      keyFile,
      passphrase: PASSPHRASE,
    });
    expect(invalid.code).toBe(1);
    expect(invalid.err).toMatch(/not a valid Logos agent card: skills/);
    const garbage = await run({
      action: 'sign',
      file: await cardFile('garbage.json', '{"id":'),
      keyFile,
      passphrase: PASSPHRASE,
    });
    expect(garbage.code).toBe(1);
    expect(garbage.err).toMatch(/is not JSON/);
    const missing = await run({ action: 'sign', file: join(dir, 'missing.json'), keyFile, passphrase: PASSPHRASE });
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/cannot read/);
    const noKey = await run({
      action: 'sign',
      file: good,
      keyFile: join(dir, 'no-wallet.json'),
      passphrase: PASSPHRASE,
    });
    expect(noKey.code).toBe(1);
    expect(noKey.err).toMatch(/cannot read key file/);
  });

  it('answers usage mistakes with exit code 2', async () => {
    const good = await cardFile('usage.json', CARD);
    expect((await run({ action: undefined, file: good })).code).toBe(2);
    expect((await run({ action: 'frobnicate', file: good })).code).toBe(2);
    expect((await run({ action: 'sign', file: undefined })).code).toBe(2);
    const noKeyFile = await run({ action: 'sign', file: good, passphrase: PASSPHRASE });
    expect(noKeyFile.code).toBe(2);
    expect(noKeyFile.err).toMatch(/--key-file/);
    expect((await run({ action: 'sign', file: '-', keyFile, passphrase: PASSPHRASE, write: true })).code).toBe(2);
  });
});

describe('logos-a2a card verify', () => {
  it('prints OK with the agent, account and public key', async () => {
    const signed = await run({
      action: 'sign',
      file: await cardFile('to-verify.json', CARD),
      keyFile,
      passphrase: PASSPHRASE,
    });
    const file = await cardFile('signed.json', signed.out);
    const { code, out, err } = await run({ action: 'verify', file });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(`OK ${file}: agent upper (Upper)`);
    expect(out).toContain(`account    ${KEY.account}`);
    expect(out).toContain(`public key ${Buffer.from(KEY.publicKey).toString('hex')}`);
  });

  it('prints the key in the form `keys show` prints it for the same key file', async () => {
    const signed = await run({
      action: 'sign',
      file: await cardFile('shown.json', CARD),
      keyFile,
      passphrase: PASSPHRASE,
    });
    const verified = await run({ action: 'verify', file: await cardFile('shown-signed.json', signed.out) });
    let shown = '';
    const code = await runKeysCommand({
      action: 'show',
      file: keyFile,
      path: '/',
      passphrase: PASSPHRASE,
      out: (text) => (shown += text),
    });
    expect(code).toBe(0);
    const keyLine = (text: string) => /public key (\S+)/.exec(text)?.[1];
    expect(keyLine(shown)).toBe(keyLine(verified.out));
    expect(keyLine(shown)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('prints the reason and exits 1 for unsigned, tampered, re-signed, malformed and oversized cards', async () => {
    const signed = (
      await run({ action: 'sign', file: await cardFile('base.json', CARD), keyFile, passphrase: PASSPHRASE })
    ).out;
    const parsed = JSON.parse(signed);
    const cases: [string, unknown, string][] = [
      ['unsigned', CARD, 'unsigned'],
      ['tampered', { ...parsed, description: 'Whispers.' }, 'bad-signature'],
      ['account', { ...parsed, 'x-lez-identity': { account_id: OTHER.account } }, 'bad-signature'],
      ['malformed', { ...parsed, signature: { ...parsed.signature, alg: 'rsa' } }, 'malformed'],
      ['oversized', { ...parsed, padding: 'x'.repeat(70_000) }, 'oversized'],
    ];
    for (const [name, content, reason] of cases) {
      const file = await cardFile(`${name}.json`, content);
      const { code, out, err } = await run({ action: 'verify', file });
      expect(code, name).toBe(1);
      expect(out, name).toBe('');
      expect(err, name).toMatch(
        new RegExp(`^logos-a2a card: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${reason}: `),
      );
    }
  });

  it('writes messages to out when no err is given (as the keys command does)', async () => {
    let text = '';
    const code = await runCardCommand({
      action: 'verify',
      file: await cardFile('single.json', CARD),
      out: (t) => (text += t),
    });
    expect(code).toBe(1);
    expect(text).toMatch(/unsigned: the card has no signature/);
  });
});
