/**
 * The secp256k1 operations the Waku payload schemes need, from one of two implementations with the same results:
 *
 * - `nobleSecp256k1`: @noble/curves, pure JavaScript, runs everywhere (Node, browsers, Workers);
 * - `loadNativeSecp256k1()`: libsecp256k1 through the `secp256k1` package's prebuilt addon, an order of magnitude
 *   faster. ECDH, signing and key recovery are most of a Waku message's cost, so Node uses it when it loads.
 *
 * The native one is loaded on demand through Node's own `require` (never imported), so that bundles for other
 * runtimes neither see nor need it.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { loadNativeAddon } from './native-addon.ts';

export interface Secp256k1 {
  readonly name: 'native' | 'noble';
  /** The 65-byte uncompressed public key of a 32-byte secret key. */
  publicKey(secretKey: Uint8Array): Uint8Array;
  /** The x coordinate (32 bytes) of secretKey × publicKey: the ECIES shared secret. */
  sharedX(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array;
  /** A low-s ECDSA signature of a 32-byte hash: 64 bytes r‖s and the recovery id. */
  sign(hash: Uint8Array, secretKey: Uint8Array): { signature: Uint8Array; recovery: number };
  /** The 65-byte public key that made `signature` over `hash`; throws when none does. */
  recover(hash: Uint8Array, signature: Uint8Array, recovery: number): Uint8Array;
}

export const nobleSecp256k1: Secp256k1 = {
  name: 'noble',
  publicKey: (secretKey) => secp256k1.getPublicKey(secretKey, false),
  sharedX: (secretKey, publicKey) => secp256k1.getSharedSecret(secretKey, publicKey, true).subarray(1),
  sign(hash, secretKey) {
    // 'recovered' is the recovery id, then r‖s.
    const recovered = secp256k1.sign(hash, secretKey, { prehash: false, format: 'recovered' });
    return { signature: recovered.subarray(1), recovery: recovered[0]! };
  },
  recover(hash, signature, recovery) {
    const recovered = new Uint8Array(65);
    recovered[0] = recovery;
    recovered.set(signature, 1);
    const compressed = secp256k1.recoverPublicKey(recovered, hash, { prehash: false });
    return secp256k1.Point.fromBytes(compressed).toBytes(false);
  },
};

/** The part of the `secp256k1` package's API used here. */
interface NativeAddon {
  publicKeyCreate(secretKey: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(hash: Uint8Array, secretKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, hash: Uint8Array, compressed: boolean): Uint8Array;
  ecdh(
    publicKey: Uint8Array,
    secretKey: Uint8Array,
    options: { hashfn: (x: Uint8Array, y: Uint8Array, data: unknown, output: Uint8Array) => Uint8Array },
    output: Uint8Array,
  ): Uint8Array;
}

/** The raw x coordinate, where libsecp256k1's ECDH would hash the point by default. */
const xOnly = { hashfn: (x: Uint8Array) => x };

let native: Secp256k1 | null | undefined;

/** libsecp256k1 when its addon loads on this platform, else undefined (the caller keeps the JavaScript one). */
export function loadNativeSecp256k1(): Secp256k1 | undefined {
  if (native === undefined) native = tryLoadNative();
  return native ?? undefined;
}

function tryLoadNative(): Secp256k1 | null {
  // `secp256k1/bindings` is the addon only; the package's main entry would fall back to a slow JS library silently.
  const addon = loadNativeAddon((require) => require('secp256k1/bindings') as NativeAddon);
  if (!addon) return null;
  return {
    name: 'native',
    publicKey: (secretKey) => addon.publicKeyCreate(secretKey, false),
    sharedX: (secretKey, publicKey) => addon.ecdh(publicKey, secretKey, xOnly, new Uint8Array(32)),
    sign(hash, secretKey) {
      const { signature, recid } = addon.ecdsaSign(hash, secretKey);
      return { signature, recovery: recid };
    },
    recover: (hash, signature, recovery) => addon.ecdsaRecover(signature, recovery, hash, false),
  };
}
