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
import { decryptAsymmetric, encryptAsymmetric, postCipher, preCipher } from '@waku/message-encryption/ecies';
import { decryptSymmetric, encryptSymmetric } from '@waku/message-encryption/symmetric';
import { loadNativeSecp256k1, nobleSecp256k1 } from '../src/logos/transports/waku/secp256k1-backend.ts';
import { positiveNumber, printRows, runMain } from './support.ts';
import {
  body,
  checkOpened,
  rate,
  recipient,
  recipientPublic,
  sender,
  topicKey,
  wireOperations,
  type WireOperations,
} from './wire-crypto.ts';

const SECONDS = positiveNumber('BENCH_SECONDS', 3);

const stock: WireOperations = {
  direct: async () => {
    const sealed = await encryptAsymmetric(await preCipher(body, sender), recipientPublic);
    const opened = postCipher(await decryptAsymmetric(sealed, recipient));
    checkOpened(opened?.payload, opened?.sig?.publicKey, 'stock 1:1');
  },
  keyed: async () => {
    const sealed = await encryptSymmetric(await preCipher(body, sender), topicKey);
    const opened = postCipher(await decryptSymmetric(sealed, topicKey));
    checkOpened(opened?.payload, opened?.sig?.publicKey, 'stock keyed');
  },
};

async function main(): Promise<void> {
  const native = loadNativeSecp256k1();
  const rows: [string, WireOperations][] = [
    ['stock @waku/message-encryption', stock],
    ['ours, @noble/curves', wireOperations(nobleSecp256k1)],
    ...(native ? [['ours, libsecp256k1', wireOperations(native)] as [string, WireOperations]] : []),
  ];
  if (!native) console.log('(the native addon did not load on this platform: no libsecp256k1 row)');
  const measured: [string, number, number][] = [];
  for (const [label, operations] of rows) {
    process.stdout.write(`${label}… `);
    measured.push([label, await rate(operations.direct, SECONDS), await rate(operations.keyed, SECONDS)]);
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
