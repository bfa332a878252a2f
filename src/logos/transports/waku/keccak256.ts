/**
 * Keccak-256 (the original Keccak padding, not FIPS 202's SHA3-256) for the signatures of Waku payloads, from one
 * of two implementations with the same results:
 *
 * - the `keccak` package's addon (the Keccak team's reference code in C, prebuilt), about ten times faster than
 *   JavaScript on a payload of a kilobyte or two: every message sent or received hashes its whole plaintext once,
 *   and OpenSSL in Node has no Keccak with the original padding (only SHA-3);
 * - @noble/hashes, pure JavaScript, wherever the addon does not load (Workers, browsers, a platform without a
 *   prebuilt binary).
 *
 * The addon is loaded on demand through Node's own `require` (never imported), as the secp256k1 one is, and used
 * through its sponge directly: the package's hashing API wraps every hash in a Node stream, which costs more than
 * the hash itself.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { loadNativeAddon } from './native-addon.ts';

/** The sponge of the `keccak` package's addon (its KeccakState class). */
interface NativeKeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Uint8Array;
}
type NativeKeccakStateClass = new () => NativeKeccakState;

/** Keccak-256: bitrate 1088, capacity 512, and the original domain padding (a single 1 bit, no SHA-3 suffix). */
const RATE_BITS = 1088;
const CAPACITY_BITS = 512;
const KECCAK_PADDING = 0x01;
const DIGEST_BYTES = 32;

let native: NativeKeccakStateClass | null | undefined;
/**
 * One sponge for every hash: `initialize` resets it completely, and hashing is synchronous, so no two hashes share
 * it at once. A new one per hash would be a wrapped C++ object with a finalizer each, for the GC to collect.
 */
let sponge: NativeKeccakState | undefined;

/** Whether the addon is in use (diagnostics, tests). */
export function keccak256Backend(): 'native' | 'noble' {
  return loadNative() ? 'native' : 'noble';
}

/** keccak-256 of `data`: 32 bytes. */
export function keccak256(data: Uint8Array): Uint8Array {
  const State = loadNative();
  if (!State) return keccak_256(data);
  const state = (sponge ??= new State());
  state.initialize(RATE_BITS, CAPACITY_BITS);
  state.absorb(data);
  state.absorbLastFewBits(KECCAK_PADDING);
  const digest = state.squeeze(DIGEST_BYTES);
  return new Uint8Array(digest.buffer, digest.byteOffset, DIGEST_BYTES);
}

function loadNative(): NativeKeccakStateClass | null {
  if (native === undefined) native = tryLoadNative();
  return native;
}

function tryLoadNative(): NativeKeccakStateClass | null {
  const State = loadNativeAddon((require, requireFrom) => {
    const packageJson = require.resolve('keccak/package.json');
    // node-gyp-build (the package's own loader, one of its dependencies) picks the prebuilt binary for this
    // platform from the package's folder, or throws when there is none.
    const loadBinary = requireFrom(packageJson)('node-gyp-build') as (folder: string) => unknown;
    return loadBinary(packageJson.slice(0, -'package.json'.length));
  });
  return typeof State === 'function' ? (State as NativeKeccakStateClass) : null;
}
