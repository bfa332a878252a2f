/**
 * The cryptography of the stock Waku wire, as the `waku` transport does it, alone: what bench/waku-payloads.ts
 * compares against the stock package, and the floor bench/waku-cpu-per-task.ts sets each task's CPU time against.
 *
 * One task over Waku is one signed 1:1 message (the request: signed plaintext, ECIES to the agent) and one signed
 * keyed publication (the reply: AES-256-GCM under the task's key), each sealed by one end and opened by the other:
 * the seven secp256k1 operations of the two processes, with the hashes and ciphers around them. Every opened
 * message is checked against what was sealed.
 */
import { randomBytes } from 'node:crypto';
import {
  eciesDecrypt,
  eciesEncrypt,
  openPlaintext,
  signedPlaintext,
  symmetricDecrypt,
  symmetricEncrypt,
} from '../src/logos/transports/waku/payload-format.ts';
import { loadNativeSecp256k1, nobleSecp256k1, type Secp256k1 } from '../src/logos/transports/waku/secp256k1-backend.ts';
import { FunctionalFailure } from './support.ts';

/** A typical task envelope's size. */
export const body = Uint8Array.from(randomBytes(600));
export const sender = Uint8Array.from(randomBytes(32));
export const recipient = Uint8Array.from(randomBytes(32));
export const recipientPublic = nobleSecp256k1.publicKey(recipient);
const senderPublic = nobleSecp256k1.publicKey(sender);
export const topicKey = Uint8Array.from(randomBytes(32));

/** Throws unless a message opened to `body`, signed by `sender`. */
export function checkOpened(opened: Uint8Array | undefined, signer: Uint8Array | undefined, what: string): void {
  if (!opened || Buffer.compare(opened, body) !== 0 || !signer || Buffer.compare(signer, senderPublic) !== 0)
    throw new FunctionalFailure(`${what}: the opened message is not the one sealed`);
}

export type Operation = () => Promise<void> | void;

/** A 1:1 message and a keyed publication, each sealed and opened. */
export interface WireOperations {
  direct: Operation;
  keyed: Operation;
}

/** The wire's operations as the transport does them, on `curve`. */
export function wireOperations(curve: Secp256k1): WireOperations {
  const open = (plaintext: Uint8Array | undefined, what: string) => {
    const opened = plaintext && openPlaintext(plaintext, curve);
    checkOpened(opened?.ok ? opened.body : undefined, opened?.ok ? opened.signer : undefined, what);
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

/** Operations per second of `operation`, run back to back for `seconds` after a short warm-up. */
export async function rate(operation: Operation, seconds: number): Promise<number> {
  for (let i = 0; i < 20; i++) await operation();
  let count = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    await operation();
    count++;
  }
  return count / ((performance.now() - start) / 1000);
}

/**
 * Milliseconds of one task's wire cryptography on this machine now, on the backend the transport uses (libsecp256k1
 * where its addon loads): one 1:1 message and one keyed publication, sealed and opened. The best of `passes` passes,
 * so that a moment of other work on the machine does not raise the floor.
 */
export async function wireCryptoMsPerTask(seconds = 0.5, passes = 3): Promise<{ ms: number; backend: string }> {
  const curve = loadNativeSecp256k1() ?? nobleSecp256k1;
  const { direct, keyed } = wireOperations(curve);
  let best = Infinity;
  for (let pass = 0; pass < passes; pass++) {
    best = Math.min(best, 1000 / (await rate(direct, seconds)) + 1000 / (await rate(keyed, seconds)));
  }
  return { ms: best, backend: curve.name === 'native' ? 'libsecp256k1' : '@noble/curves' };
}
