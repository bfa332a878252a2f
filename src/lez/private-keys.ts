/**
 * Private-account keys as the LEZ wallet derives them (docs/lez.md §4.4; `key_protocol`'s `ChildKeysPrivate`,
 * `secret_holders.rs`, `nssa_core` nullifier). A paid agent reads the notes paid to one node's keys (docs/payments.md
 * §10), derived from its operator's wallet mnemonic, so the money is that wallet's to spend.
 *
 * - root: I = HMAC-SHA512(key "LEE_master_priv", seed); secret spending key ssk = I_L, chain code = I_R
 * - NSK = SHA-256("LEE/keys" ‖ ssk ‖ 0x01 ‖ be32(idx) ‖ 0x00×19), idx 0 at the root, `cci` for children
 * - VSK = the same with 0x02
 * - NPK = SHA-256("LEE/keys" ‖ nsk ‖ 0x07 ‖ 0x00×23);  VPK = VSK·G, SEC1-compressed (33 bytes)
 * - child: I = HMAC-SHA512(key chain code, "LEE_seed_priv" ‖ be32bytes(nsk·vsk mod n) ‖ be32(cci));
 *   ssk = I_L, chain code = I_R
 * - account id: privateAccountId(NPK, identifier 0) (account-id.ts)
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { privateAccountId } from './account-id.ts';
import { concatBytes } from './bytes.ts';

const N = secp256k1.Point.Fn.ORDER;
const KEYS_TAG = new TextEncoder().encode('LEE/keys');

export interface PrivateKeyNode {
  secretSpendingKey: Uint8Array;
  nullifierSecretKey: Uint8Array;
  viewingSecretKey: Uint8Array;
  nullifierPublicKey: Uint8Array;
  /** 33-byte compressed point. */
  viewingPublicKey: Uint8Array;
  chainCode: Uint8Array;
  accountId: Uint8Array;
  path: readonly number[];
}

function be32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
}

function scalar(bytes: Uint8Array, what: string): bigint {
  const value = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  // LEZ treats these as k256 scalars and panics outside 0 < x < n; odds ~2^-128.
  if (value === 0n || value >= N) throw new Error(`${what} is not a valid secp256k1 scalar`);
  return value;
}

export function nullifierSecretKey(secretSpendingKey: Uint8Array, index = 0): Uint8Array {
  return sha256(concatBytes(KEYS_TAG, secretSpendingKey, Uint8Array.of(1), be32(index), new Uint8Array(19)));
}

export function viewingSecretKey(secretSpendingKey: Uint8Array, index = 0): Uint8Array {
  return sha256(concatBytes(KEYS_TAG, secretSpendingKey, Uint8Array.of(2), be32(index), new Uint8Array(19)));
}

export function nullifierPublicKey(nsk: Uint8Array): Uint8Array {
  return sha256(concatBytes(KEYS_TAG, nsk, Uint8Array.of(7), new Uint8Array(23)));
}

export function viewingPublicKey(vsk: Uint8Array): Uint8Array {
  return secp256k1.Point.BASE.multiply(scalar(vsk, 'viewing secret key')).toBytes(true);
}

/** The key bundle a secret spending key yields at `index` (0 for the root and for imported keys). */
export function privateKeysFromSpendingKey(
  secretSpendingKey: Uint8Array,
  index: number,
  chainCode: Uint8Array,
  path: readonly number[],
): PrivateKeyNode {
  const nsk = nullifierSecretKey(secretSpendingKey, index);
  const vsk = viewingSecretKey(secretSpendingKey, index);
  const npk = nullifierPublicKey(nsk);
  return {
    secretSpendingKey,
    nullifierSecretKey: nsk,
    viewingSecretKey: vsk,
    nullifierPublicKey: npk,
    viewingPublicKey: viewingPublicKey(vsk),
    chainCode,
    accountId: privateAccountId(npk, 0n),
    path,
  };
}

export function privateRoot(seed: Uint8Array): PrivateKeyNode {
  if (seed.byteLength !== 64) throw new RangeError('a LEZ seed is 64 bytes');
  const i = hmac(sha512, new TextEncoder().encode('LEE_master_priv'), seed);
  return privateKeysFromSpendingKey(i.slice(0, 32), 0, i.slice(32), []);
}

export function privateChild(parent: PrivateKeyNode, cci: number): PrivateKeyNode {
  if (!Number.isInteger(cci) || cci < 0 || cci > 0xffff_ffff) throw new RangeError(`child index must be a u32: ${cci}`);
  const nsk = scalar(parent.nullifierSecretKey, 'nullifier secret key');
  const vsk = scalar(parent.viewingSecretKey, 'viewing secret key');
  const product = (nsk * vsk) % N;
  const data = concatBytes(new TextEncoder().encode('LEE_seed_priv'), secp256k1.Point.Fn.toBytes(product), be32(cci));
  const i = hmac(sha512, parent.chainCode, data);
  return privateKeysFromSpendingKey(i.slice(0, 32), cci, i.slice(32), [...parent.path, cci]);
}

export function derivePrivateKeys(seed: Uint8Array, path: readonly number[]): PrivateKeyNode {
  return path.reduce(privateChild, privateRoot(seed));
}

/**
 * The node of the wallet's private key tree that `wallet account new private` gives its first private account: /0.
 * The wallet places new nodes layer by layer (key_tree `find_next_slot_layered`: /0, then /1, then /0/0, …) and
 * prints each one's path; its sync reads notes for every node it holds, so what is paid to this one is its to spend.
 */
export const FIRST_WALLET_PRIVATE_PATH: readonly number[] = [0];
