/**
 * Identities and addresses of the `waku` transport.
 *
 * A party is a secp256k1 key pair. Its address is the text
 *
 *     waku:<compressed public key, 33 bytes as 66 lowercase hex characters>
 *
 * for example `waku:02a1…` (the first byte is 02 or 03). The canonical form is lowercase; `parseWakuAddress` also
 * accepts uppercase hex, and every address the transport reports (`address`, `Delivery.sender`) is canonical.
 *
 * Messages to a party travel on its inbox content topic, derived from the public key alone:
 *
 *     /logos-a2a/1/inbox-<first 16 hex characters of sha256(compressed public key)>/proto
 *
 * which is a valid autosharding content topic (`/application/version/name/encoding`). Its shard, like the shard of
 * every other `/logos-a2a/1/…` topic (the per-task status topics too), depends only on `logos-a2a` and `1`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

export const WAKU_ADDRESS_PREFIX = 'waku:';

const ADDRESS_PATTERN = /^waku:(0[23][0-9a-fA-F]{64})$/;

export interface WakuIdentity {
  /** 32-byte secp256k1 secret key. */
  readonly privateKey: Uint8Array;
  /** 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
  /** 65-byte uncompressed public key (what Waku's ECIES encryption takes). */
  readonly publicKeyUncompressed: Uint8Array;
  /** `waku:<66 hex>` */
  readonly address: string;
  /** The inbox content topic of this identity. */
  readonly inboxTopic: string;
}

export function generateWakuPrivateKey(): Uint8Array {
  return secp256k1.utils.randomSecretKey();
}

export function assertSecretKey(key: unknown, name: string): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32 || !secp256k1.utils.isValidSecretKey(key)) {
    throw new TypeError(`waku transport: ${name} must be a valid 32-byte secp256k1 secret key`);
  }
}

export function wakuIdentity(privateKey: Uint8Array): WakuIdentity {
  assertSecretKey(privateKey, 'privateKey');
  const key = privateKey.slice();
  const publicKey = secp256k1.getPublicKey(key, true);
  return {
    privateKey: key,
    publicKey,
    publicKeyUncompressed: secp256k1.getPublicKey(key, false),
    address: addressFromPublicKey(publicKey),
    inboxTopic: inboxTopicForPublicKey(publicKey),
  };
}

/** The address of a public key, compressed (33 bytes) or uncompressed (65 bytes). */
export function addressFromPublicKey(publicKey: Uint8Array): string {
  const compressed = publicKey.length === 33 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(true);
  return WAKU_ADDRESS_PREFIX + bytesToHex(compressed);
}

/** The compressed public key an address names; throws on anything that is not a `waku:` address of a curve point. */
export function parseWakuAddress(address: string): Uint8Array {
  const match = ADDRESS_PATTERN.exec(address);
  if (!match?.[1]) throw new TypeError(`not a waku address (expected waku:<66 hex>): ${JSON.stringify(address)}`);
  const publicKey = hexToBytes(match[1].toLowerCase());
  try {
    secp256k1.Point.fromBytes(publicKey).assertValidity();
  } catch {
    throw new TypeError(`not a waku address (not a secp256k1 public key): ${address}`);
  }
  return publicKey;
}

export function isWakuAddress(address: string): boolean {
  try {
    parseWakuAddress(address);
    return true;
  } catch {
    return false;
  }
}

/** The canonical (lowercase) spelling of a waku address. */
export function canonicalWakuAddress(address: string): string {
  return addressFromPublicKey(parseWakuAddress(address));
}

export function inboxTopicForPublicKey(publicKey: Uint8Array): string {
  return `/logos-a2a/1/inbox-${bytesToHex(sha256(publicKey)).slice(0, 16)}/proto`;
}

/** The inbox content topic of an address. */
export function inboxTopic(address: string): string {
  return inboxTopicForPublicKey(parseWakuAddress(address));
}

export function uncompressedPublicKey(publicKey: Uint8Array): Uint8Array {
  return secp256k1.Point.fromBytes(publicKey).toBytes(false);
}
