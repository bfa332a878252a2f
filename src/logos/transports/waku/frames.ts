/**
 * What the `waku` transport puts in a WakuMessage payload.
 *
 * 1:1 messages (`send` / `onDirect`), WakuMessage version 1, on the recipient's inbox content topic:
 *
 *     payload   = ECIES(recipient public key, WAKU2-PAYLOAD(plaintext, signed with the sender's key))
 *     plaintext = 0x01 ‖ recipient compressed public key (33 B) ‖ body
 *
 *   This is Waku's own payload encryption (26/WAKU2-PAYLOAD: flags, size, payload, random padding to 256 bytes,
 *   a recoverable secp256k1 signature over keccak256 of all that, then ECIES with AES-128-CTR and HMAC-SHA256),
 *   done by @waku/message-encryption. The sender is the public key recovered from that signature. The recipient's
 *   key inside the signed plaintext stops a recipient from re-encrypting a message it received to a third party,
 *   who would otherwise see a valid signature of the original sender ("surreptitious forwarding").
 *
 * Publications (`publish` / `subscribe`), WakuMessage version 0, in the clear on the given content topic:
 *
 *     payload = 0x01 ‖ signer compressed public key (33 B) ‖ timestamp (u64 BE, ms) ‖ signature (64 B) ‖ body
 *     signature = ECDSA secp256k1, compact r‖s with low s, over
 *                 sha256("logos-a2a/publication/1" ‖ u16 BE length of content topic ‖ content topic ‖ timestamp ‖ body)
 *
 *   The content topic is signed, so a publication cannot be moved to another topic; the timestamp makes two
 *   publications of the same body distinct, so a legitimate re-publication is never mistaken for a replay.
 *
 * Version 0x01 is the first byte of both plaintexts; a receiver drops anything else.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { decryptAsymmetric, encryptAsymmetric, postCipher, preCipher } from '@waku/message-encryption/ecies';
import { addressFromPublicKey } from './identity.ts';

export const FRAME_VERSION = 0x01;
const PUBKEY_BYTES = 33;
const SIGNATURE_BYTES = 64;
const TIMESTAMP_BYTES = 8;
export const DIRECT_HEADER_BYTES = 1 + PUBKEY_BYTES;
export const PUBLICATION_HEADER_BYTES = 1 + PUBKEY_BYTES + TIMESTAMP_BYTES + SIGNATURE_BYTES;
const PUBLICATION_DOMAIN = utf8ToBytes('logos-a2a/publication/1');

/** Why a received payload was not delivered. */
export type DropReason =
  'malformed' | 'oversized' | 'duplicate' | 'undecryptable' | 'unsigned' | 'badSignature' | 'wrongRecipient';

export type Opened = { ok: true; body: Uint8Array; sender: string } | { ok: false; reason: DropReason };

// ---- 1:1 messages ----------------------------------------------------------------------------------------------

export function directPlaintext(recipientPublicKey: Uint8Array, body: Uint8Array): Uint8Array {
  const plaintext = new Uint8Array(DIRECT_HEADER_BYTES + body.length);
  plaintext[0] = FRAME_VERSION;
  plaintext.set(recipientPublicKey, 1);
  plaintext.set(body, DIRECT_HEADER_BYTES);
  return plaintext;
}

/** The WakuMessage payload of a 1:1 message: signed plaintext, encrypted to the recipient. */
export async function sealDirect(
  senderPrivateKey: Uint8Array,
  recipientPublicKey: Uint8Array,
  recipientPublicKeyUncompressed: Uint8Array,
  body: Uint8Array,
): Promise<Uint8Array> {
  const signed = await preCipher(directPlaintext(recipientPublicKey, body), senderPrivateKey);
  return encryptAsymmetric(signed, recipientPublicKeyUncompressed);
}

/** Decrypts and checks a 1:1 message addressed to `ownPublicKey`. */
export async function openDirect(
  ownPrivateKey: Uint8Array,
  ownPublicKey: Uint8Array,
  payload: Uint8Array,
): Promise<Opened> {
  let decrypted: Uint8Array;
  try {
    decrypted = await decryptAsymmetric(payload, ownPrivateKey);
  } catch {
    return { ok: false, reason: 'undecryptable' };
  }
  let opened: ReturnType<typeof postCipher>;
  try {
    opened = postCipher(decrypted);
  } catch {
    // The signature bytes do not recover a public key.
    return { ok: false, reason: 'badSignature' };
  }
  if (!opened) return { ok: false, reason: 'malformed' };
  if (!opened.sig) return { ok: false, reason: 'unsigned' };
  const plaintext = opened.payload;
  if (plaintext.length < DIRECT_HEADER_BYTES || plaintext[0] !== FRAME_VERSION)
    return { ok: false, reason: 'malformed' };
  if (!equalBytes(plaintext.subarray(1, DIRECT_HEADER_BYTES), ownPublicKey))
    return { ok: false, reason: 'wrongRecipient' };
  const signer = opened.sig.publicKey;
  if (!signer) return { ok: false, reason: 'badSignature' };
  let sender: string;
  try {
    sender = addressFromPublicKey(signer);
  } catch {
    return { ok: false, reason: 'badSignature' };
  }
  return { ok: true, body: plaintext.slice(DIRECT_HEADER_BYTES), sender };
}

// ---- publications ----------------------------------------------------------------------------------------------

function publicationDigestInput(contentTopic: string, timestamp: Uint8Array, body: Uint8Array): Uint8Array {
  const topic = utf8ToBytes(contentTopic);
  if (topic.length > 0xffff) throw new RangeError('content topic too long');
  const input = new Uint8Array(PUBLICATION_DOMAIN.length + 2 + topic.length + TIMESTAMP_BYTES + body.length);
  let at = 0;
  input.set(PUBLICATION_DOMAIN, at);
  at += PUBLICATION_DOMAIN.length;
  input[at++] = topic.length >> 8;
  input[at++] = topic.length & 0xff;
  input.set(topic, at);
  at += topic.length;
  input.set(timestamp, at);
  at += TIMESTAMP_BYTES;
  input.set(body, at);
  return input;
}

function timestampBytes(ms: number): Uint8Array {
  const bytes = new Uint8Array(TIMESTAMP_BYTES);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(Math.max(0, Math.floor(ms))), false);
  return bytes;
}

/** The WakuMessage payload of a publication: the body in a signed frame. */
export function signPublication(
  privateKey: Uint8Array,
  publicKey: Uint8Array,
  contentTopic: string,
  body: Uint8Array,
  nowMs: number = Date.now(),
): Uint8Array {
  const timestamp = timestampBytes(nowMs);
  // prehash (the default) makes noble sign sha256(input); low s is the default too.
  const signature = secp256k1.sign(publicationDigestInput(contentTopic, timestamp, body), privateKey);
  const frame = new Uint8Array(PUBLICATION_HEADER_BYTES + body.length);
  let at = 0;
  frame[at++] = FRAME_VERSION;
  frame.set(publicKey, at);
  at += PUBKEY_BYTES;
  frame.set(timestamp, at);
  at += TIMESTAMP_BYTES;
  frame.set(signature, at);
  at += SIGNATURE_BYTES;
  frame.set(body, at);
  return frame;
}

/** Checks the frame of a publication received on `contentTopic`. */
export function openPublication(contentTopic: string, payload: Uint8Array): Opened {
  if (payload.length < PUBLICATION_HEADER_BYTES || payload[0] !== FRAME_VERSION)
    return { ok: false, reason: 'unsigned' };
  let at = 1;
  const publicKey = payload.subarray(at, (at += PUBKEY_BYTES));
  const timestamp = payload.subarray(at, (at += TIMESTAMP_BYTES));
  const signature = payload.subarray(at, (at += SIGNATURE_BYTES));
  const body = payload.subarray(at);
  let valid: boolean;
  try {
    valid = secp256k1.verify(signature, publicationDigestInput(contentTopic, timestamp, body), publicKey);
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: 'badSignature' };
  return { ok: true, body: body.slice(), sender: addressFromPublicKey(publicKey) };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
