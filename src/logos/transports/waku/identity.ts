/**
 * Identities and addresses of the `waku` transport.
 *
 * A party is a secp256k1 key pair. Its address is the text `waku:<public key as lowercase hex>`, with the key in
 * either of its SEC 1 forms:
 *
 *     waku:04<128 hex>        uncompressed, 65 bytes: the canonical form, what cards carry and what the stock
 *                             ECIES encoder of @waku/message-encryption takes
 *     waku:02<64 hex> / 03…   compressed, 33 bytes: accepted, and read as the same party
 *
 * `parseWakuAddress` accepts both forms and uppercase hex; every address the transport reports (`address`,
 * `Delivery.sender`) is canonical, so two spellings of one party compare equal once canonicalised.
 *
 * Messages to a party travel on its inbox content topic, derived from the public key alone:
 *
 *     /logos-a2a/1/inbox-<first 16 hex characters of sha256(uncompressed public key, 65 bytes)>/proto
 *
 * which is a valid autosharding content topic (`/application/version/name/encoding`). Its shard, like the shard of
 * every other `/logos-a2a/1/…` topic (the per-task status topics too), depends only on `logos-a2a` and `1`.
 *
 * An address proof says that the party at an address accepts a LEZ account as its own (cards carry one, since a
 * card travels unsigned by the transport): a BIP-340 signature by the address's key, x-only, over
 *
 *     sha256(UTF-8 "logos-a2a/address-proof/1:" ‖ account id)
 *
 * written as 128 lowercase hex characters.
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export const WAKU_ADDRESS_PREFIX = 'waku:';

const ADDRESS_PATTERN = /^waku:(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/;

export interface WakuIdentity {
  /** 32-byte secp256k1 secret key. */
  readonly privateKey: Uint8Array;
  /** 65-byte uncompressed public key. */
  readonly publicKey: Uint8Array;
  /** `waku:04<128 hex>` */
  readonly address: string;
  /** The inbox content topic of this identity. */
  readonly inboxTopic: string;
}

export function generateWakuPrivateKey(): Uint8Array {
  return secp256k1.utils.randomSecretKey();
}

/**
 * A copy of a secret key, checked: 32 bytes, a valid secp256k1 scalar. A copy also of a Buffer (whose `slice` is a
 * view of the caller's bytes): the caller may reuse or wipe its own.
 */
export function checkedSecretKey(key: unknown, name: string): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32 || !secp256k1.utils.isValidSecretKey(key)) {
    throw new TypeError(`waku transport: ${name} must be a valid 32-byte secp256k1 secret key`);
  }
  return Uint8Array.from(key);
}

export function wakuIdentity(privateKey: Uint8Array): WakuIdentity {
  const key = checkedSecretKey(privateKey, 'privateKey');
  const publicKey = secp256k1.getPublicKey(key, false);
  return {
    privateKey: key,
    publicKey,
    address: addressFromPublicKey(publicKey),
    inboxTopic: inboxTopicForPublicKey(publicKey),
  };
}

/** The canonical address of a public key given in either form (33 or 65 bytes). */
export function addressFromPublicKey(publicKey: Uint8Array): string {
  // Every message received is signed: its signer's address is worked out once per key, as the key is decoded.
  const hex = bytesToHex(publicKey);
  let address = keyAddresses.get(hex);
  if (address === undefined) {
    address = WAKU_ADDRESS_PREFIX + bytesToHex(decodedPublicKey(publicKey, hex));
    if (keyAddresses.size >= DECODED_KEYS_CAPACITY) keyAddresses.clear();
    keyAddresses.set(hex, address);
  }
  return address;
}

/** Addresses already worked out, by the hex of the key as given; kept like `decodedKeys` below. */
const keyAddresses = new Map<string, string>();

/**
 * The uncompressed (65-byte) public key an address names, in either form; throws on anything that is not a `waku:`
 * address of a curve point.
 */
export function parseWakuAddress(address: string): Uint8Array {
  const match = ADDRESS_PATTERN.exec(address);
  if (!match?.[1]) {
    throw new TypeError(
      `not a waku address (expected waku:04<128 hex> or waku:02|03<64 hex>): ${JSON.stringify(address)}`,
    );
  }
  try {
    return uncompressedPublicKey(hexToBytes(match[1].toLowerCase()));
  } catch {
    throw new TypeError(`not a waku address (not a secp256k1 public key): ${address}`);
  }
}

export function isWakuAddress(address: string): boolean {
  try {
    parseWakuAddress(address);
    return true;
  } catch {
    return false;
  }
}

/** The canonical spelling (uncompressed key, lowercase) of a waku address in any accepted form. */
export function canonicalWakuAddress(address: string): string {
  let canonical = canonicalAddresses.get(address);
  if (canonical === undefined) {
    canonical = addressFromPublicKey(parseWakuAddress(address));
    if (canonicalAddresses.size >= DECODED_KEYS_CAPACITY) canonicalAddresses.clear();
    canonicalAddresses.set(address, canonical);
  }
  return canonical;
}

/**
 * Canonical spellings already worked out: every 1:1 body names its two parties, nearly always the same few. Kept
 * like `decodedKeys` below, and only for addresses that parse.
 */
const canonicalAddresses = new Map<string, string>();

/** The inbox topic of a 65-byte uncompressed public key. */
export function inboxTopicForPublicKey(publicKey: Uint8Array): string {
  return `/logos-a2a/1/inbox-${bytesToHex(sha256(publicKey)).slice(0, 16)}/proto`;
}

/** The inbox content topic of an address. */
export function inboxTopic(address: string): string {
  return inboxTopicForPublicKey(parseWakuAddress(address));
}

/**
 * Public keys already decoded, by their hex: every message names or is signed by one, and decoding checks the curve
 * point in JavaScript (a square root for a compressed key). Keys come from the network too, so the map is emptied
 * whenever it fills.
 */
const decodedKeys = new Map<string, Uint8Array>();
const DECODED_KEYS_CAPACITY = 4096;

/** The 65-byte form of a public key given in either form; throws for bytes that are not a curve point. */
export function uncompressedPublicKey(publicKey: Uint8Array): Uint8Array {
  return decodedPublicKey(publicKey, bytesToHex(publicKey)).slice();
}

/** The cached 65-byte form of `publicKey` (whose hex is `hex`): callers that hand it out copy it. */
function decodedPublicKey(publicKey: Uint8Array, hex: string): Uint8Array {
  let decoded = decodedKeys.get(hex);
  if (decoded === undefined) {
    const point = secp256k1.Point.fromBytes(publicKey);
    point.assertValidity();
    decoded = point.toBytes(false);
    if (decodedKeys.size >= DECODED_KEYS_CAPACITY) decodedKeys.clear();
    decodedKeys.set(hex, decoded);
  }
  return decoded;
}

const ADDRESS_PROOF_DOMAIN = 'logos-a2a/address-proof/1:';

function addressProofDigest(accountId: string): Uint8Array {
  return sha256(utf8ToBytes(ADDRESS_PROOF_DOMAIN + accountId));
}

/**
 * The proof that this key's address speaks for `accountId`. Deterministic (zero auxiliary randomness, which BIP-340
 * allows: the nonce still depends on the key and the message), so a card's bytes stay the same across restarts.
 */
export function proveAddress(privateKey: Uint8Array, accountId: string): string {
  return bytesToHex(schnorr.sign(addressProofDigest(accountId), privateKey, new Uint8Array(32)));
}

/** Whether `proof` is the address proof of `address` for `accountId`. Never throws. */
export function verifyAddressProof(address: string, accountId: string, proof: string): boolean {
  try {
    if (!/^[0-9a-f]{128}$/.test(proof)) return false;
    const xOnly = parseWakuAddress(address).subarray(1, 33);
    return schnorr.verify(hexToBytes(proof), addressProofDigest(accountId), xOnly);
  } catch {
    return false;
  }
}
