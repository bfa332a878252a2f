/**
 * The libp2p key of a Waku node: Ed25519 (gossipsub parses the node's own peer id at every publish, and an Ed25519
 * id parses for free where a secp256k1 one costs a point decompression), from a fixed 32-byte seed or fresh.
 *
 * A seed's public key is worked out by OpenSSL (node:crypto), not by @libp2p/crypto's `generateKeyPairFromSeed`,
 * which does it with @noble/curves: the first Ed25519 multiplication in a process builds the base point's table,
 * 55 ms of CPU when timed alone, for a single key (about 40 ms less CPU to the demo's first card, measured in
 * alternating starts). The key is the same one: @libp2p/crypto's raw Ed25519 private key is the seed followed by its
 * public key.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { generateKeyPair, privateKeyFromRaw } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';

/** The DER of a PKCS #8 Ed25519 private key (RFC 8410) up to its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PUBLIC_KEY_BYTES = 32;

/**
 * The node's key: from `seed` when given (the same key at every start), else a fresh one. @libp2p/crypto is typed
 * against a newer @libp2p/interface than libp2p 2 is; the key objects are the same.
 */
export async function nodePrivateKey(seed: Uint8Array | undefined): Promise<PrivateKey> {
  if (!seed) return (await generateKeyPair('Ed25519')) as unknown as PrivateKey;
  const secret = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  // An SPKI Ed25519 public key ends with the raw 32 bytes.
  const spki = createPublicKey(secret).export({ format: 'der', type: 'spki' });
  return privateKeyFromRaw(
    Buffer.concat([seed, spki.subarray(spki.length - PUBLIC_KEY_BYTES)]),
  ) as unknown as PrivateKey;
}
