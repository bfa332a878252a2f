/**
 * Benchmark: the cryptography of one Waku message, as the `waku` transport does it, against the stock
 * @waku/message-encryption in the same run.
 *
 * One operation is a signed 1:1 message sealed (signed plaintext, ECIES to the recipient) and opened (decrypted, the
 * signer recovered), or a signed keyed publication sealed and opened (AES-256-GCM), with a 600-byte body (a typical
 * task envelope). Rows: the stock package (pure JavaScript, asynchronous), this project's formats on @noble/curves
 * (what runs where the native addon does not load), and on libsecp256k1.
 *
 * Run:   node bench/waku-payloads.ts        Settings: BENCH_SECONDS per row (default 3)
 */
import { randomBytes } from 'node:crypto';
import { decryptAsymmetric, encryptAsymmetric, postCipher, preCipher } from '@waku/message-encryption/ecies';
import { decryptSymmetric, encryptSymmetric } from '@waku/message-encryption/symmetric';
import {
  eciesDecrypt,
  eciesEncrypt,
  openPlaintext,
  signedPlaintext,
  symmetricDecrypt,
  symmetricEncrypt,
} from '../src/logos/transports/waku/payload-format.ts';
import { loadNativeSecp256k1, nobleSecp256k1, type Secp256k1 } from '../src/logos/transports/waku/secp256k1-backend.ts';
import { FunctionalFailure, positiveNumber, printRows, runMain } from './support.ts';

const SECONDS = positiveNumber('BENCH_SECONDS', 3);
const body = Uint8Array.from(randomBytes(600));
const sender = Uint8Array.from(randomBytes(32));
const recipient = Uint8Array.from(randomBytes(32));
const recipientPublic = nobleSecp256k1.publicKey(recipient);
const senderPublic = nobleSecp256k1.publicKey(sender);
const topicKey = Uint8Array.from(randomBytes(32));

function check(opened: Uint8Array | undefined, signer: Uint8Array | undefined, what: string): void {
  if (!opened || Buffer.compare(opened, body) !== 0 || !signer || Buffer.compare(signer, senderPublic) !== 0)
    throw new FunctionalFailure(`${what}: the opened message is not the one sealed`);
}

type Operation = () => Promise<void> | void;

const stock = {
  direct: async () => {
    const sealed = await encryptAsymmetric(await preCipher(body, sender), recipientPublic);
    const opened = postCipher(await decryptAsymmetric(sealed, recipient));
    check(opened?.payload, opened?.sig?.publicKey, 'stock 1:1');
  },
  keyed: async () => {
    const sealed = await encryptSymmetric(await preCipher(body, sender), topicKey);
    const opened = postCipher(await decryptSymmetric(sealed, topicKey));
    check(opened?.payload, opened?.sig?.publicKey, 'stock keyed');
  },
};

function ours(curve: Secp256k1): { direct: Operation; keyed: Operation } {
  const open = (plaintext: Uint8Array | undefined, what: string) => {
    const opened = plaintext && openPlaintext(plaintext, curve);
    check(opened?.ok ? opened.body : undefined, opened?.ok ? opened.signer : undefined, what);
  };
  return {
    direct: () => {
      const sealed = eciesEncrypt(recipientPublic, signedPlaintext(body, sender, curve), curve);
      open(eciesDecrypt(recipient, sealed, curve), `${curve.name} 1:1`);
    },
    keyed: () => {
      const sealed = symmetricEncrypt(topicKey, signedPlaintext(body, sender, curve));
      open(symmetricDecrypt(topicKey, sealed), `${curve.name} keyed`);
    },
  };
}

/** Operations per second of `operation`, run back to back for SECONDS after a short warm-up. */
async function rate(operation: Operation): Promise<number> {
  for (let i = 0; i < 20; i++) await operation();
  let count = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) {
    await operation();
    count++;
  }
  return count / ((performance.now() - start) / 1000);
}

async function main(): Promise<void> {
  const native = loadNativeSecp256k1();
  const rows: [string, { direct: Operation; keyed: Operation }][] = [
    ['stock @waku/message-encryption', stock],
    ['ours, @noble/curves', ours(nobleSecp256k1)],
    ...(native ? [['ours, libsecp256k1', ours(native)] as [string, { direct: Operation; keyed: Operation }]] : []),
  ];
  if (!native) console.log('(the native addon did not load on this platform: no libsecp256k1 row)');
  const measured: [string, number, number][] = [];
  for (const [label, operations] of rows) {
    process.stdout.write(`${label}… `);
    measured.push([label, await rate(operations.direct), await rate(operations.keyed)]);
  }
  console.log('\n');
  const [, baseDirect, baseKeyed] = measured[0]!;
  printRows(
    ['implementation', '1:1 seal+open/s', 'ratio', 'keyed seal+open/s', 'ratio'],
    measured.map(([label, direct, keyed]) => [
      label,
      direct.toFixed(0),
      `${(direct / baseDirect).toFixed(1)}×`,
      keyed.toFixed(0),
      `${(keyed / baseKeyed).toFixed(1)}×`,
    ]),
    1,
  );
}

await runMain(main);
