/**
 * A small borsh writer and reader: only what LEZ's public transactions need (docs/lez.md §3).
 *
 * Borsh rules used here: integers little-endian at fixed width; `Vec<T>` and `String` are a u32 length then the
 * items; `[T; N]` is the N items with no length; `Option<T>` is a u8 0/1 tag then the value; an enum is a u8
 * variant index then the variant's fields.
 *
 * The reader is for untrusted bytes (what clients send a devnet, what a sequencer returns). It throws
 * `BorshDecodeError` on anything malformed; the codecs built on it catch that and return `{ok:false, reason}`.
 * Lengths are checked against the bytes that remain before anything is allocated, so a hostile length prefix
 * cannot make us reserve gigabytes.
 */

export class BorshDecodeError extends Error {
  override name = 'BorshDecodeError';
}

const U32_MAX = 0xffff_ffff;
const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;

export class BorshWriter {
  private chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): this {
    this.chunks.push(bytes);
    this.length += bytes.byteLength;
    return this;
  }

  u8(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xff) throw new RangeError(`not a u8: ${value}`);
    return this.push(Uint8Array.of(value));
  }

  u32(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > U32_MAX) throw new RangeError(`not a u32: ${value}`);
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, value, true);
    return this.push(out);
  }

  u64(value: bigint): this {
    if (value < 0n || value > U64_MAX) throw new RangeError(`not a u64: ${value}`);
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, value, true);
    return this.push(out);
  }

  u128(value: bigint): this {
    if (value < 0n || value > U128_MAX) throw new RangeError(`not a u128: ${value}`);
    const out = new Uint8Array(16);
    const view = new DataView(out.buffer);
    view.setBigUint64(0, value & U64_MAX, true);
    view.setBigUint64(8, value >> 64n, true);
    return this.push(out);
  }

  /** A fixed-size array of bytes (`[u8; N]`): no length prefix. */
  fixedBytes(bytes: Uint8Array, length: number): this {
    if (bytes.byteLength !== length) throw new RangeError(`expected ${length} bytes, got ${bytes.byteLength}`);
    return this.push(bytes.slice());
  }

  /** `Vec<u8>`: u32 length, then the bytes. */
  bytes(bytes: Uint8Array): this {
    return this.u32(bytes.byteLength).push(bytes.slice());
  }

  /** `Vec<T>`: u32 count, then each item as `writeItem` writes it. */
  vec<T>(items: readonly T[], writeItem: (writer: this, item: T) => void): this {
    this.u32(items.length);
    for (const item of items) writeItem(this, item);
    return this;
  }

  string(value: string): this {
    return this.bytes(new TextEncoder().encode(value));
  }

  option<T>(value: T | undefined, writeValue: (writer: this, value: T) => void): this {
    if (value === undefined) return this.u8(0);
    this.u8(1);
    writeValue(this, value);
    return this;
  }

  /** An enum's variant index; the caller writes the variant's fields after it. */
  enumTag(index: number): this {
    return this.u8(index);
  }

  /** Raw bytes already in borsh form (e.g. a nested struct encoded elsewhere). */
  raw(bytes: Uint8Array): this {
    return this.push(bytes.slice());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out;
  }
}

export class BorshReader {
  private readonly data: Uint8Array;
  private readonly view: DataView;
  private offset = 0;

  constructor(data: Uint8Array) {
    this.data = data;
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  get remaining(): number {
    return this.data.byteLength - this.offset;
  }

  get position(): number {
    return this.offset;
  }

  private take(length: number, what: string): number {
    if (length > this.remaining) {
      throw new BorshDecodeError(
        `${what}: needs ${length} bytes at offset ${this.offset}, only ${this.remaining} left`,
      );
    }
    const at = this.offset;
    this.offset += length;
    return at;
  }

  u8(what = 'u8'): number {
    return this.view.getUint8(this.take(1, what));
  }

  u32(what = 'u32'): number {
    return this.view.getUint32(this.take(4, what), true);
  }

  u64(what = 'u64'): bigint {
    return this.view.getBigUint64(this.take(8, what), true);
  }

  u128(what = 'u128'): bigint {
    const at = this.take(16, what);
    return this.view.getBigUint64(at, true) | (this.view.getBigUint64(at + 8, true) << 64n);
  }

  fixedBytes(length: number, what = 'bytes'): Uint8Array {
    const at = this.take(length, what);
    return this.data.slice(at, at + length);
  }

  bytes(what = 'Vec<u8>'): Uint8Array {
    const length = this.u32(`${what} length`);
    return this.fixedBytes(length, what);
  }

  /**
   * `Vec<T>`: u32 count, then `count` items. `minItemBytes` is the smallest encoding of one item; a count that
   * could not fit in the remaining bytes is rejected before any item is read.
   */
  vec<T>(minItemBytes: number, readItem: (reader: this, index: number) => T, what = 'Vec'): T[] {
    const count = this.u32(`${what} length`);
    if (minItemBytes > 0 && count > this.remaining / minItemBytes) {
      throw new BorshDecodeError(`${what}: ${count} items cannot fit in the ${this.remaining} bytes left`);
    }
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(readItem(this, i));
    return items;
  }

  string(what = 'String'): string {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes(what));
    } catch (error) {
      if (error instanceof BorshDecodeError) throw error;
      throw new BorshDecodeError(`${what}: not valid UTF-8`);
    }
  }

  option<T>(readValue: (reader: this) => T, what = 'Option'): T | undefined {
    const tag = this.u8(`${what} tag`);
    if (tag === 0) return undefined;
    if (tag === 1) return readValue(this);
    throw new BorshDecodeError(`${what}: tag ${tag} is neither 0 (None) nor 1 (Some)`);
  }

  enumTag(what = 'enum tag'): number {
    return this.u8(what);
  }

  /** Everything not yet read (e.g. the body of an enum variant we do not decode). */
  rest(): Uint8Array {
    return this.fixedBytes(this.remaining, 'rest');
  }

  /** Borsh's `from_slice` rejects trailing bytes; so do we. */
  end(what = 'value'): void {
    if (this.remaining !== 0) throw new BorshDecodeError(`${what}: ${this.remaining} unexpected trailing bytes`);
  }
}
