/**
 * The WakuMessages a party of the binding sends, whichever way they leave (its own relay node, or a node's REST API):
 * the payloads of `payloads.ts` on the content topics of `identity.ts`. Shared by the `waku` and `nwaku-rest`
 * transports so both put exactly the same on the wire.
 */
import { inboxTopicForPublicKey, parseWakuAddress } from './identity.ts';
import { sealDirect, sealKeyed } from './payloads.ts';

export interface PartyMessage {
  payload: Uint8Array;
  contentTopic: string;
  /** 0: the bytes as given; 1: encrypted and signed. */
  version: 0 | 1;
}

/** A 1:1 message to `address`: signed by the sender, encrypted to the recipient, on the recipient's inbox topic. */
export function directMessage(senderPrivateKey: Uint8Array, address: string, body: Uint8Array): PartyMessage {
  const recipient = recipientOf(address);
  return {
    payload: sealDirect(senderPrivateKey, recipient.publicKey, body),
    contentTopic: recipient.inbox,
    version: 1,
  };
}

interface Recipient {
  readonly publicKey: Uint8Array;
  readonly inbox: string;
}

/**
 * The recipients of recent 1:1 messages, by address as given: a gateway sends every task of an agent to the same
 * few addresses, and parsing one (a curve point check and a hash for the inbox topic) costs more than the lookup.
 * Addresses come from cards on the network too, so the map is emptied whenever it fills.
 */
const recipients = new Map<string, Recipient>();
const RECIPIENTS_CAPACITY = 4096;

function recipientOf(address: string): Recipient {
  let recipient = recipients.get(address);
  if (recipient === undefined) {
    const publicKey = parseWakuAddress(address);
    recipient = { publicKey, inbox: inboxTopicForPublicKey(publicKey) };
    if (recipients.size >= RECIPIENTS_CAPACITY) recipients.clear();
    recipients.set(address, recipient);
  }
  return recipient;
}

/** A publication on `topic`: signed and encrypted under `key` when there is one, else the body as is. */
export function publicationMessage(
  senderPrivateKey: Uint8Array,
  topic: string,
  body: Uint8Array,
  key: Uint8Array | undefined,
): PartyMessage {
  if (!key) return { payload: body, contentTopic: topic, version: 0 };
  return { payload: sealKeyed(senderPrivateKey, key, body), contentTopic: topic, version: 1 };
}
