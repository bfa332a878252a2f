import { describe, expect, it } from 'vitest';
import { BorshDecodeError, BorshReader, BorshWriter } from '../../src/lez/borsh.ts';
import { toHex } from '../../src/lez/bytes.ts';

describe('borsh writer', () => {
  it('writes integers little-endian at fixed width', () => {
    const bytes = new BorshWriter()
      .u8(0xab)
      .u32(0x01020304)
      .u64(0x0102030405060708n)
      .u128((1n << 127n) | 0x1122n)
      .finish();
    expect(toHex(bytes)).toBe('ab' + '04030201' + '0807060504030201' + '2211' + '00'.repeat(13) + '80');
  });

  it('writes Vec, String, Option, enum tags and fixed arrays', () => {
    const bytes = new BorshWriter()
      .vec([1, 2], (w, n) => w.u32(n))
      .string('hé')
      .option(undefined, (w, n: number) => w.u8(n))
      .option(7, (w, n) => w.u8(n))
      .enumTag(2)
      .fixedBytes(Uint8Array.of(9, 9), 2)
      .bytes(Uint8Array.of(5))
      .finish();
    expect(toHex(bytes)).toBe(
      '02000000' + '01000000' + '02000000' + '03000000' + '68c3a9' + '00' + '0107' + '02' + '0909' + '0100000005',
    );
  });

  it('refuses values out of range (programming errors)', () => {
    expect(() => new BorshWriter().u8(256)).toThrow(RangeError);
    expect(() => new BorshWriter().u32(-1)).toThrow(RangeError);
    expect(() => new BorshWriter().u32(2 ** 32)).toThrow(RangeError);
    expect(() => new BorshWriter().u64(1n << 64n)).toThrow(RangeError);
    expect(() => new BorshWriter().u128(1n << 128n)).toThrow(RangeError);
    expect(() => new BorshWriter().u128(-1n)).toThrow(RangeError);
    expect(() => new BorshWriter().fixedBytes(new Uint8Array(31), 32)).toThrow(RangeError);
  });
});

describe('borsh reader', () => {
  it('reads back what the writer wrote', () => {
    const max128 = (1n << 128n) - 1n;
    const bytes = new BorshWriter()
      .u8(1)
      .u32(0xffffffff)
      .u64((1n << 64n) - 1n)
      .u128(max128)
      .vec([10n, 20n], (w, n) => w.u128(n))
      .string('logos')
      .option(3, (w, n) => w.u32(n))
      .bytes(Uint8Array.of(1, 2, 3))
      .finish();
    const r = new BorshReader(bytes);
    expect(r.u8()).toBe(1);
    expect(r.u32()).toBe(0xffffffff);
    expect(r.u64()).toBe((1n << 64n) - 1n);
    expect(r.u128()).toBe(max128);
    expect(r.vec(16, (r) => r.u128())).toEqual([10n, 20n]);
    expect(r.string()).toBe('logos');
    expect(r.option((r) => r.u32())).toBe(3);
    expect(r.bytes()).toEqual(Uint8Array.of(1, 2, 3));
    expect(() => r.end()).not.toThrow();
  });

  it('fails on truncation, trailing bytes, bad option tags and bad UTF-8', () => {
    expect(() => new BorshReader(Uint8Array.of(1, 2, 3)).u32()).toThrow(BorshDecodeError);
    const trailing = new BorshReader(Uint8Array.of(1, 2));
    trailing.u8();
    expect(() => trailing.end()).toThrow(/trailing/);
    expect(() => new BorshReader(Uint8Array.of(2)).option((r) => r.u8())).toThrow(/neither 0/);
    expect(() => new BorshReader(Uint8Array.of(1, 0, 0, 0, 0xff)).string()).toThrow(/UTF-8/);
  });

  it('rejects a length prefix that cannot fit before allocating anything', () => {
    // Claims 2^32-1 u128s in 4 bytes.
    const r = new BorshReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0));
    expect(() => r.vec(16, (r) => r.u128())).toThrow(/cannot fit/);
    expect(() => new BorshReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff)).bytes()).toThrow(/needs 4294967295 bytes/);
  });
});
