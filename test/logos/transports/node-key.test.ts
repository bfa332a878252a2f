/**
 * The node's libp2p key from a seed (waku/node-key.ts) is the key @libp2p/crypto's own generateKeyPairFromSeed makes
 * of it: the same raw bytes, public key and peer id, and its signatures verify under the stock key.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { nodePrivateKey } from '../../../src/logos/transports/waku/node-key.ts';

/** The peer id of a key (@libp2p/crypto is typed against a newer @libp2p/interface than @libp2p/peer-id is). */
const peerIdOf = (key: unknown) => peerIdFromPrivateKey(key as Parameters<typeof peerIdFromPrivateKey>[0]);

describe('the node key from a seed', () => {
  it('is the key @libp2p/crypto makes of the same seed', async () => {
    const seeds = [
      new Uint8Array(32),
      new Uint8Array(32).fill(0xff),
      ...Array.from({ length: 20 }, () => randomBytes(32)),
    ];
    for (const seed of seeds) {
      const ours = await nodePrivateKey(Uint8Array.from(seed));
      const stock = await generateKeyPairFromSeed('Ed25519', Uint8Array.from(seed));
      expect(ours.type).toBe('Ed25519');
      expect(Buffer.from(ours.raw).toString('hex')).toBe(Buffer.from(stock.raw).toString('hex'));
      expect(Buffer.from(ours.publicKey.raw).toString('hex')).toBe(Buffer.from(stock.publicKey.raw).toString('hex'));
      expect(peerIdOf(ours).toString()).toBe(peerIdOf(stock).toString());
      const message = randomBytes(64);
      expect(await stock.publicKey.verify(message, await ours.sign(message))).toBe(true);
    }
  });

  it('is a fresh key without a seed', async () => {
    const [one, two] = await Promise.all([nodePrivateKey(undefined), nodePrivateKey(undefined)]);
    expect(one.type).toBe('Ed25519');
    expect(peerIdOf(one).equals(peerIdOf(two))).toBe(false);
  });
});
