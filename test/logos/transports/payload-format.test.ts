/**
 * The native payload formats against the stock @waku/message-encryption, both ways and on both secp256k1 backends:
 * whatever one side writes, the other reads, with the same body and the same signer.
 */
import { randomBytes } from 'node:crypto';
import { decryptAsymmetric, encryptAsymmetric, postCipher, preCipher } from '@waku/message-encryption/ecies';
import { decryptSymmetric, encryptSymmetric } from '@waku/message-encryption/symmetric';
import { describe, expect, it } from 'vitest';
import {
  eciesDecrypt,
  eciesEncrypt,
  openPlaintext,
  signedPlaintext,
  symmetricDecrypt,
  symmetricEncrypt,
} from '../../../src/logos/transports/waku/payload-format.ts';
import {
  loadNativeSecp256k1,
  nobleSecp256k1,
  type Secp256k1,
} from '../../../src/logos/transports/waku/secp256k1-backend.ts';

const native = loadNativeSecp256k1();
const backends: Secp256k1[] = [nobleSecp256k1, ...(native ? [native] : [])];
// Sizes around the size field's steps and the padding's boundary (1 + 1 + 189 + 65 = 256).
const BODY_SIZES = [0, 1, 189, 190, 255, 256, 70_000];

it('the native backend loads where the package ships a prebuilt addon', () => {
  if (process.platform === 'linux' && process.arch === 'x64') expect(native?.name).toBe('native');
});

describe.each(backends.map((curve) => [curve.name, curve] as const))('on the %s backend', (_name, curve) => {
  const sender = Uint8Array.from(randomBytes(32));
  const senderPublic = nobleSecp256k1.publicKey(sender);
  const recipient = Uint8Array.from(randomBytes(32));
  const recipientPublic = nobleSecp256k1.publicKey(recipient);
  const topicKey = Uint8Array.from(randomBytes(32));

  it('derives the same public keys, shared secrets and signatures as the JavaScript backend', () => {
    expect(curve.publicKey(sender)).toEqual(senderPublic);
    expect(curve.sharedX(sender, recipientPublic)).toEqual(nobleSecp256k1.sharedX(recipient, senderPublic));
    const hash = Uint8Array.from(randomBytes(32));
    const { signature, recovery } = curve.sign(hash, sender);
    expect(nobleSecp256k1.recover(hash, signature, recovery)).toEqual(senderPublic);
  });

  it.each(BODY_SIZES)('ECIES of a %i-byte body: ours reads as stock, stock reads as ours', async (size) => {
    const body = Uint8Array.from(randomBytes(size));
    const ours = eciesEncrypt(recipientPublic, signedPlaintext(body, sender, curve), curve);
    const stockOpened = postCipher(await decryptAsymmetric(ours, recipient));
    expect(stockOpened?.payload).toEqual(body);
    expect(stockOpened?.sig?.publicKey).toEqual(senderPublic);
    expect((await decryptAsymmetric(ours, recipient)).length % 256).toBe(0);

    const stock = await encryptAsymmetric(await preCipher(body, sender), recipientPublic);
    const plaintext = eciesDecrypt(recipient, stock, curve);
    expect(plaintext).toBeDefined();
    expect(openPlaintext(plaintext!, curve)).toEqual({ ok: true, body, signer: senderPublic });
  });

  it.each(BODY_SIZES.slice(0, -1))(
    'AES-256-GCM of a %i-byte body: ours reads as stock, stock reads as ours',
    async (size) => {
      const body = Uint8Array.from(randomBytes(size));
      const ours = symmetricEncrypt(topicKey, signedPlaintext(body, sender, curve));
      const stockOpened = postCipher(await decryptSymmetric(ours, topicKey));
      expect(stockOpened?.payload).toEqual(body);
      expect(stockOpened?.sig?.publicKey).toEqual(senderPublic);

      const stock = await encryptSymmetric(await preCipher(body, sender), topicKey);
      expect(openPlaintext(symmetricDecrypt(topicKey, stock)!, curve)).toEqual({
        ok: true,
        body,
        signer: senderPublic,
      });
    },
  );

  it('reads an unsigned stock plaintext, with no signer', async () => {
    const body = Uint8Array.from(randomBytes(40));
    expect(openPlaintext(await preCipher(body), curve)).toEqual({ ok: true, body });
  });

  it('refuses what was tampered with, encrypted to another key or under another key', () => {
    const plaintext = signedPlaintext(Uint8Array.from(randomBytes(64)), sender, curve);
    const ecies = eciesEncrypt(recipientPublic, plaintext, curve);
    for (const at of [0, 70, 100, ecies.length - 1]) {
      const tampered = Uint8Array.from(ecies);
      tampered[at]! ^= 1;
      expect(eciesDecrypt(recipient, tampered, curve)).toBeUndefined();
    }
    expect(eciesDecrypt(sender, ecies, curve)).toBeUndefined();
    expect(eciesDecrypt(recipient, ecies.subarray(0, 113), curve)).toBeUndefined();

    const sealed = symmetricEncrypt(topicKey, plaintext);
    const tampered = Uint8Array.from(sealed);
    tampered[3]! ^= 1;
    expect(symmetricDecrypt(topicKey, tampered)).toBeUndefined();
    expect(symmetricDecrypt(Uint8Array.from(randomBytes(32)), sealed)).toBeUndefined();
    expect(symmetricDecrypt(topicKey, sealed.subarray(0, 27))).toBeUndefined();
  });

  it('tells a malformed plaintext from a bad signature', () => {
    const plaintext = signedPlaintext(Uint8Array.from(randomBytes(64)), sender, curve);
    const badRecovery = Uint8Array.from(plaintext);
    badRecovery[badRecovery.length - 1] = 7;
    expect(openPlaintext(badRecovery, curve)).toEqual({ ok: false, reason: 'badSignature' });
    const otherSigner = Uint8Array.from(plaintext);
    otherSigner[10]! ^= 1; // the body changed: the signature recovers someone else, or no one
    const opened = openPlaintext(otherSigner, curve);
    if (opened.ok) expect(opened.signer).not.toEqual(senderPublic);
    const oversizedClaim = Uint8Array.from(plaintext);
    oversizedClaim[1] = 255; // claims a 255-byte body in a 320-byte plaintext with a signature
    oversizedClaim[2] = 255;
    oversizedClaim[0] = 0b110;
    expect(openPlaintext(oversizedClaim, curve)).toEqual({ ok: false, reason: 'malformed' });
    expect(openPlaintext(new Uint8Array([0]), curve)).toEqual({ ok: false, reason: 'malformed' });
    expect(openPlaintext(new Uint8Array(0), curve)).toEqual({ ok: false, reason: 'malformed' });
  });
});
