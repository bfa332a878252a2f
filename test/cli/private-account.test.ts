/**
 * The paid agent's private account from its operator's wallet mnemonic (src/cli/private-account.ts): the node /0 of
 * the wallet's private key tree unless --private-path names another, from a file or the environment's phrase, and a
 * clear usage error for what is not a mnemonic or a path, without echoing the phrase.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { privateAccountFrom } from '../../src/cli/private-account.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { privateChild, privateRoot } from '../../src/lez/private-keys.ts';
import { paymentKeys, receiveKeys } from '../../src/lez/private/receive.ts';

/** docs/lez.md §9.5: the mnemonic and the seed the wallet makes of it. */
const MNEMONIC = `${'abandon '.repeat(23)}art`;
const SEED = hexToBytes(
  '408b285c123836004f4b8842c89324c1f01382450c0d439af345ba7fc49acf705489c6fc77dbd4e3dc1dd8cc6bc9f043db8ada1e243c4a0eafb290d399480840',
  64,
);
const keysAt = (...path: number[]) => {
  const node = path.reduce(privateChild, privateRoot(SEED));
  return paymentKeys(receiveKeys(node.nullifierSecretKey, node.viewingSecretKey));
};

const dir = mkdtempSync(join(tmpdir(), 'private-account-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PREFIX = 'logos-a2a agent';

describe('privateAccountFrom', () => {
  it("is the wallet's first private node, /0, from a mnemonic file", () => {
    const file = join(dir, 'mnemonic.txt');
    writeFileSync(file, `  ${MNEMONIC.toUpperCase()}\n`);
    const account = privateAccountFrom({ mnemonicFile: file }, PREFIX)!;
    expect(account.path).toBe('/0');
    expect(paymentKeys(account.keys)).toEqual(keysAt(0));
    expect(paymentKeys(account.keys)).not.toEqual(keysAt());
  });

  it('takes the phrase from the environment, and another node by its wallet path', () => {
    const account = privateAccountFrom({ mnemonic: MNEMONIC, path: '/0/0' }, PREFIX)!;
    expect(account.path).toBe('/0/0');
    expect(paymentKeys(account.keys)).toEqual(keysAt(0, 0));
  });

  it('reads the file before the environment', () => {
    const file = join(dir, 'other.txt');
    writeFileSync(file, MNEMONIC);
    const other = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const account = privateAccountFrom({ mnemonicFile: file, mnemonic: other }, PREFIX)!;
    expect(paymentKeys(account.keys)).toEqual(keysAt(0));
  });

  it('names none without a mnemonic', () => {
    expect(privateAccountFrom({}, PREFIX)).toBeUndefined();
  });

  it('refuses bad input with a usage error that does not repeat the phrase', () => {
    const bad = `${'abandon '.repeat(23)}zoo`;
    const attempt = (setting: Parameters<typeof privateAccountFrom>[0]) => () => privateAccountFrom(setting, PREFIX);
    expect(attempt({ mnemonic: bad })).toThrow(UsageError);
    expect(attempt({ mnemonic: bad })).toThrow(/the mnemonic in LOGOS_A2A_PRIVATE_MNEMONIC is not valid/);
    expect(attempt({ mnemonic: bad })).not.toThrow(/abandon/);
    expect(attempt({ mnemonic: MNEMONIC, path: '0' })).toThrow(/--private-path takes a wallet path/);
    expect(attempt({ mnemonic: MNEMONIC, path: '/4294967296' })).toThrow(/larger than a u32/);
    expect(attempt({ path: '/1' })).toThrow(/--private-path names a node of the wallet whose mnemonic/);
    expect(attempt({ mnemonicFile: join(dir, 'absent.txt') })).toThrow(
      /cannot read --private-mnemonic-file .* \(ENOENT\)/,
    );
  });
});
