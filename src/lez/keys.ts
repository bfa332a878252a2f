/**
 * Public-account keys exactly as the LEZ wallet derives them (docs/lez.md §4.2–4.3; `key_protocol`'s
 * `ChildKeysPublic`, `wallet/src/chain_storage.rs`):
 *
 * 1. a BIP-39 mnemonic (the wallet makes 24 words, 256-bit entropy);
 * 2. seed = BIP-39 `to_seed("")`. The wallet's password is NOT mixed in (chain_storage passes "", marked TODO),
 *    so neither is one here: the same words give the same accounts as `wallet restore-keys`;
 * 3. root: I = HMAC-SHA512(key "LEE_master_pub", seed); secret key = I[0..32], chain code = I[32..64];
 * 4. child `cci`: I = HMAC-SHA512(key chain code, data), where data is `0x00 ‖ secret ‖ be32(cci)` when
 *    cci ≥ 2^31 (hardened) and `compressed public key (33) ‖ be32(cci)` otherwise; secret = (I_L + secret) mod n,
 *    chain code = I_R. This is BIP-32's private derivation, but from LEZ's own root.
 * 5. public key = BIP-340 x-only key of the secret; account id = SHA-256(prefix ‖ public key) (account-id.ts).
 *
 * Paths are written as the wallet writes its `ChainIndex`: "/" for the root, "/0", "/0/1", ….
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { formatAccountId, publicAccountId } from './account-id.ts';
import { concatBytes } from './bytes.ts';
import { compressedPublicKey, isValidSecretKey, xOnlyPublicKey } from './public-key.ts';

const HARDENED = 0x8000_0000;
const N = secp256k1.Point.Fn.ORDER;

/** A key the gateway can sign public transactions with, and the account it controls. */
export interface SigningKey {
  secretKey: Uint8Array;
  /** 32-byte BIP-340 x-only public key (what goes in a witness). */
  publicKey: Uint8Array;
  accountId: Uint8Array;
  /** base58 account id. */
  account: string;
}

export function signingKeyFromSecretKey(secretKey: Uint8Array): SigningKey {
  const publicKey = xOnlyPublicKey(secretKey);
  const accountId = publicAccountId(publicKey);
  return { secretKey, publicKey, accountId, account: formatAccountId(accountId) };
}

/** A node of the public key tree. */
export interface PublicKeyNode extends SigningKey {
  chainCode: Uint8Array;
  path: readonly number[];
}

// ---- mnemonics ------------------------------------------------------------------------------------------------

/** A fresh 24-word English mnemonic, as the wallet makes on first run. */
export function generateMnemonic(): string {
  return bip39Generate(english, 256);
}

/** Normalises spacing and case, then checks the words and checksum. Never throws. */
export function parseMnemonic(text: string): { ok: true; mnemonic: string } | { ok: false; reason: string } {
  const mnemonic = text.normalize('NFKD').trim().toLowerCase().split(/\s+/).join(' ');
  if (!validateMnemonic(mnemonic, english)) {
    return { ok: false, reason: 'not a valid English BIP-39 mnemonic (unknown word or bad checksum)' };
  }
  return { ok: true, mnemonic };
}

/** BIP-39 seed with the empty passphrase, as the LEZ wallet computes it. */
export function seedFromMnemonic(mnemonic: string): Uint8Array {
  const parsed = parseMnemonic(mnemonic);
  if (!parsed.ok) throw new RangeError(parsed.reason);
  return mnemonicToSeedSync(parsed.mnemonic, '');
}

// ---- the public key tree --------------------------------------------------------------------------------------

function node(secretKey: Uint8Array, chainCode: Uint8Array, path: readonly number[]): PublicKeyNode {
  return { ...signingKeyFromSecretKey(secretKey), chainCode, path };
}

function scalarBytes(value: bigint): Uint8Array {
  return secp256k1.Point.Fn.toBytes(value);
}

export function publicRoot(seed: Uint8Array): PublicKeyNode {
  if (seed.byteLength !== 64) throw new RangeError('a LEZ seed is 64 bytes');
  const i = hmac(sha512, new TextEncoder().encode('LEE_master_pub'), seed);
  const secretKey = i.slice(0, 32);
  // LEZ panics here ("Expect a valid Private Key"); the odds are ~2^-128, so this is not an expected outcome.
  if (!isValidSecretKey(secretKey)) throw new Error('seed yields an invalid root key');
  return node(secretKey, i.slice(32), []);
}

export function publicChild(parent: PublicKeyNode, cci: number): PublicKeyNode {
  if (!Number.isInteger(cci) || cci < 0 || cci > 0xffff_ffff) throw new RangeError(`child index must be a u32: ${cci}`);
  const index = new Uint8Array(4);
  new DataView(index.buffer).setUint32(0, cci, false);
  const data =
    cci >= HARDENED
      ? concatBytes(Uint8Array.of(0), parent.secretKey, index)
      : concatBytes(compressedPublicKey(parent.secretKey), index);
  const i = hmac(sha512, parent.chainCode, data);
  const tweak = BigInt(`0x${Buffer.from(i.subarray(0, 32)).toString('hex')}`);
  const parentScalar = BigInt(`0x${Buffer.from(parent.secretKey).toString('hex')}`);
  // As LEZ (k256 `Scalar::from_repr(..).expect(..)`): I_L ≥ n or a zero sum is a panic there, an error here.
  if (tweak >= N) throw new Error(`child ${cci}: derivation produced an out-of-range tweak`);
  const child = (tweak + parentScalar) % N;
  if (child === 0n) throw new Error(`child ${cci}: derivation produced the zero key`);
  return node(scalarBytes(child), i.slice(32), [...parent.path, cci]);
}

/** The wallet's `ChainIndex` text ("/", "/0", "/2147483661/7") as a list of u32 child indices. Never throws. */
export function parseChainIndex(text: string): { ok: true; path: number[] } | { ok: false; reason: string } {
  if (!text.startsWith('/')) return { ok: false, reason: 'a key path starts with "/"' };
  if (text === '/') return { ok: true, path: [] };
  const path: number[] = [];
  for (const segment of text.slice(1).split('/')) {
    if (!/^(?:0|[1-9][0-9]{0,9})$/.test(segment)) return { ok: false, reason: `bad path segment "${segment}"` };
    const cci = Number(segment);
    if (cci > 0xffff_ffff) return { ok: false, reason: `path segment ${segment} is larger than a u32` };
    path.push(cci);
  }
  return { ok: true, path };
}

export function formatChainIndex(path: readonly number[]): string {
  return `/${path.join('/')}`;
}

export function derivePublicKey(seed: Uint8Array, path: readonly number[]): PublicKeyNode {
  return path.reduce(publicChild, publicRoot(seed));
}

/** Mnemonic + wallet path → the signing key of that public account. Never throws on bad input. */
export function signingKeyFromMnemonic(
  mnemonic: string,
  pathText = '/',
): ({ ok: true } & PublicKeyNode) | { ok: false; reason: string } {
  const words = parseMnemonic(mnemonic);
  if (!words.ok) return words;
  const path = parseChainIndex(pathText);
  if (!path.ok) return path;
  return { ok: true, ...derivePublicKey(mnemonicToSeedSync(words.mnemonic, ''), path.path) };
}
