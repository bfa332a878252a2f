import { describe, expect, it } from 'vitest';
import {
  formatAccountId,
  formatWalletAccountRef,
  parseAccountId,
  parseWalletAccountRef,
  privateAccountId,
  publicAccountId,
} from '../../src/lez/account-id.ts';
import { hexToBytes, toHex } from '../../src/lez/bytes.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';
import { sha256 } from '@noble/hashes/sha2.js';

const idOfSecret = (secretHex: string) => formatAccountId(publicAccountId(xOnlyPublicKey(hexToBytes(secretHex, 32))));

describe('public account ids', () => {
  // docs/lez.md §2.6, §3.2: both debug-config ids reproduced from their keys.
  // The note shortens the keys; the full values are in LEZ's wallet/configs/debug/wallet_config.json.
  it('reproduce the two debug genesis accounts from their signing keys', () => {
    expect(idOfSecret('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb')).toBe(
      'CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r',
    );
    expect(idOfSecret('f434f8741720014586ae43356d2aec6257da086222f604ddb75d69733b86fc4c')).toBe(
      '2RHZhw9h534Zr3eq2RGhQete2Hh667foECzXPmSkGni2',
    );
  });

  // LEZ nssa/src/public_transaction/transaction.rs, test `signer_account_ids`: keys [1; 32] and [2; 32].
  it('match the repo vectors for the keys [1;32] and [2;32]', () => {
    expect(Array.from(publicAccountId(xOnlyPublicKey(new Uint8Array(32).fill(1))))).toEqual([
      148, 179, 206, 253, 199, 51, 82, 86, 232, 2, 152, 122, 80, 243, 54, 207, 237, 112, 83, 153, 44, 59, 204, 49, 128,
      84, 160, 227, 216, 149, 97, 102,
    ]);
    expect(Array.from(publicAccountId(xOnlyPublicKey(new Uint8Array(32).fill(2))))).toEqual([
      30, 145, 107, 3, 207, 73, 192, 230, 160, 63, 238, 207, 18, 69, 54, 216, 103, 244, 92, 94, 124, 248, 42, 16, 141,
      19, 119, 18, 14, 226, 140, 204,
    ]);
  });

  it('hash exactly the 32-byte zero-padded prefix and the x-only key (docs/lez.md §3)', () => {
    const pk = xOnlyPublicKey(new Uint8Array(32).fill(1));
    const prefix = new Uint8Array(32);
    prefix.set(new TextEncoder().encode('/LEE/v0.3/AccountId/Public/'));
    expect(toHex(publicAccountId(pk))).toBe(toHex(sha256(new Uint8Array([...prefix, ...pk]))));
  });
});

describe('private account ids', () => {
  // docs/lez.md §3.2 ("verified against the debug config's GoKB6RuE…"): npk from wallet_config.json, identifier 0.
  it('reproduce the debug config private accounts from their nullifier public keys', () => {
    const npk1 = Uint8Array.from([
      122, 213, 113, 8, 118, 179, 235, 94, 5, 219, 131, 106, 246, 253, 14, 204, 65, 93, 0, 198, 100, 108, 57, 48, 6, 65,
      183, 31, 136, 86, 82, 165,
    ]);
    const npk2 = Uint8Array.from([
      33, 68, 229, 154, 12, 235, 210, 229, 236, 144, 126, 122, 58, 107, 36, 58, 243, 128, 174, 197, 141, 137, 162, 190,
      155, 234, 94, 156, 218, 34, 13, 221,
    ]);
    expect(formatAccountId(privateAccountId(npk1, 0n))).toBe('GoKB6RuE6pT2KxCqDXQqiCuuuYZaGdJNfctzyqRdGBCy');
    expect(formatAccountId(privateAccountId(npk2, 0n))).toBe('BCdMnPkdH2DrVhe7cGdawkPU9iapsSboRvJpWX8pWnLq');
    // The identifier is part of the id on main.
    expect(formatAccountId(privateAccountId(npk1, 1n))).not.toBe('GoKB6RuE6pT2KxCqDXQqiCuuuYZaGdJNfctzyqRdGBCy');
  });
});

describe('account id text', () => {
  it('round-trips base58', () => {
    const parsed = parseAccountId('CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(formatAccountId(parsed.id)).toBe('CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r');
    // All-zero id: 32 leading '1's.
    expect(formatAccountId(new Uint8Array(32))).toBe('1'.repeat(32));
    expect(parseAccountId('1'.repeat(32))).toMatchObject({ ok: true });
  });

  it.each([
    ['', 'must be 32 to 44'],
    ['CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r'.repeat(2), 'must be 32 to 44'],
    ['CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr20', 'not base58'], // '0' is not in the alphabet
    ['CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSrIl', 'not base58'],
    ['1'.repeat(33), 'decode to 32 bytes'],
    ['z'.repeat(44), 'decode to 32 bytes'], // 58^44 > 2^256
    ['Public/CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r', 'must be 32 to 44'], // the CLI prefix is not part of an id
  ])('rejects %j', (text, reason) => {
    const parsed = parseAccountId(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  it('reads and writes the wallet CLI forms Public/… and Private/…', () => {
    expect(parseWalletAccountRef('Public/CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r')).toMatchObject({
      ok: true,
      visibility: 'public',
    });
    expect(parseWalletAccountRef('Private/GoKB6RuE6pT2KxCqDXQqiCuuuYZaGdJNfctzyqRdGBCy')).toMatchObject({
      ok: true,
      visibility: 'private',
    });
    expect(parseWalletAccountRef('CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r')).toMatchObject({
      ok: true,
      visibility: 'public',
    });
    expect(parseWalletAccountRef('Secret/CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r')).toMatchObject({ ok: false });
    expect(formatWalletAccountRef('private', new Uint8Array(32))).toBe(`Private/${'1'.repeat(32)}`);
  });

  it('refuses to format anything but 32 bytes', () => {
    expect(() => formatAccountId(new Uint8Array(31))).toThrow(RangeError);
    expect(() => publicAccountId(new Uint8Array(33))).toThrow(RangeError);
  });
});
