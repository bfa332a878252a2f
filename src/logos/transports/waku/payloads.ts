/**
 * What the `waku` transport puts in a WakuMessage payload: the stock payload formats of 26/WAKU2-PAYLOAD as
 * @waku/message-encryption writes and reads them (on native primitives: see `payload-format.ts`), and nothing of our
 * own around them. Every cryptographic operation of the transport goes through this file.
 *
 * - **1:1 messages** (`send` / `onDirect`), WakuMessage version 1 on the recipient's inbox topic: the body, signed
 *   with the sender's key (a recoverable secp256k1 signature over keccak256 of flags, size, body and padding),
 *   encrypted to the recipient's public key with ECIES (AES-128-CTR, HMAC-SHA256). The body is a JSON object that
 *   names both parties, `from` and `to` (addresses in either key form): the receiver takes it only when `to` is
 *   itself, so that a recipient cannot re-encrypt what it received to a third party who would then see a valid
 *   signature of the original sender; and only when `from` is the signer.
 * - **Keyed publications** (`publish` / `subscribe` with a key), WakuMessage version 1: the body, signed with the
 *   publisher's key, encrypted with AES-256-GCM under the topic's 32-byte key. Whoever holds the key reads them,
 *   and the signature says who published.
 * - **Plain publications** (no key), WakuMessage version 0: the body as is. Nothing vouches for the publisher, so
 *   what travels this way must carry its own proof (cards are signed inside).
 */
import { addressFromPublicKey, canonicalWakuAddress } from './identity.ts';
import {
  eciesDecrypt,
  eciesEncrypt,
  openPlaintext,
  signedPlaintext,
  symmetricDecrypt,
  symmetricEncrypt,
} from './payload-format.ts';
import { loadNativeSecp256k1, nobleSecp256k1 } from './secp256k1-backend.ts';

/** libsecp256k1 where its addon loads, else the same operations in JavaScript. */
const curve = loadNativeSecp256k1() ?? nobleSecp256k1;

/** Why a received payload was not delivered. */
export type DropReason =
  'malformed' | 'oversized' | 'duplicate' | 'undecryptable' | 'unsigned' | 'badSignature' | 'wrongRecipient';

export type Opened = { ok: true; body: Uint8Array; sender: string } | { ok: false; reason: DropReason };

/** The WakuMessage payload of a 1:1 message: the body signed by the sender, encrypted to the recipient. */
export function sealDirect(senderPrivateKey: Uint8Array, recipientPublicKey: Uint8Array, body: Uint8Array): Uint8Array {
  return eciesEncrypt(recipientPublicKey, signedPlaintext(body, senderPrivateKey, curve), curve);
}

/** Decrypts and checks a 1:1 message: signed, addressed to `ownAddress`, and sent by its signer. */
export function openDirect(ownPrivateKey: Uint8Array, ownAddress: string, payload: Uint8Array): Opened {
  const decrypted = eciesDecrypt(ownPrivateKey, payload, curve);
  if (!decrypted) return { ok: false, reason: 'undecryptable' };
  const opened = openSigned(decrypted);
  if (!opened.ok) return opened;
  const parties = partiesOf(opened.body);
  // The seed's dialect names no parties: delivered with its signer as sender (docs/bindings/seed.md §5 says what may act on it).
  if (parties === 'none') return opened;
  if (!parties) return { ok: false, reason: 'malformed' };
  if (parties.to !== ownAddress) return { ok: false, reason: 'wrongRecipient' };
  if (parties.from !== opened.sender) return { ok: false, reason: 'badSignature' };
  return opened;
}

/** The WakuMessage payload of a keyed publication: the body signed by the publisher, encrypted under `key`. */
export function sealKeyed(senderPrivateKey: Uint8Array, key: Uint8Array, body: Uint8Array): Uint8Array {
  return symmetricEncrypt(key, signedPlaintext(body, senderPrivateKey, curve));
}

/** Decrypts a keyed publication and says who signed it. */
export function openKeyed(key: Uint8Array, payload: Uint8Array): Opened {
  const decrypted = symmetricDecrypt(key, payload);
  if (!decrypted) return { ok: false, reason: 'undecryptable' };
  return openSigned(decrypted);
}

/** Reads the decrypted 26/WAKU2-PAYLOAD plaintext; only signed ones are taken. */
function openSigned(decrypted: Uint8Array): Opened {
  const opened = openPlaintext(decrypted, curve);
  if (!opened.ok) return opened;
  if (!opened.signer) return { ok: false, reason: 'unsigned' };
  let sender: string;
  try {
    sender = addressFromPublicKey(opened.signer);
  } catch {
    return { ok: false, reason: 'badSignature' };
  }
  return { ok: true, body: opened.body, sender };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The canonical `from` and `to` of a 1:1 body; `none` for a JSON object that names neither; undefined when it is not
 * a JSON object naming two addresses.
 */
function partiesOf(body: Uint8Array): { from: string; to: string } | 'none' | undefined {
  try {
    const json: unknown = JSON.parse(decoder.decode(body));
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
    const { from, to } = json as { from?: unknown; to?: unknown };
    if (from === undefined && to === undefined) return 'none';
    if (typeof from !== 'string' || typeof to !== 'string') return undefined;
    return { from: canonicalWakuAddress(from), to: canonicalWakuAddress(to) };
  } catch {
    return undefined;
  }
}
