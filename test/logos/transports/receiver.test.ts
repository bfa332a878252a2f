/**
 * What a Waku party takes as a repeat: the same message brought twice (relay and Filter, two service nodes) is
 * dropped, and so is encrypted ciphertext stamped anew (a replay); but a plain publication whose bytes repeat at a
 * later time is a new message: a seed agent reports an unchanged `working` to keep its task alive.
 */
import { describe, expect, it } from 'vitest';
import { PartyReceiver, type TopicListener } from '../../../src/logos/transports/waku/receiver.ts';
import { directMessage } from '../../../src/logos/transports/waku/outgoing.ts';
import { generateWakuPrivateKey, wakuIdentity } from '../../../src/logos/transports/waku/identity.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const ns = (ms: number) => BigInt(ms) * 1_000_000n;

function receiver(): PartyReceiver {
  return new PartyReceiver(wakuIdentity(generateWakuPrivateKey()), 4096, 100);
}

describe('PartyReceiver repeats', () => {
  const heard: string[] = [];
  const listeners: TopicListener[] = [
    { handler: (payload) => heard.push(new TextDecoder().decode(payload)), key: undefined },
  ];
  const status = bytes('{"type":"task_status","task_id":"t1","state":"working"}');
  const topic = '/agent-task/1/t1/json';

  it('a plain publication repeated later with the same bytes is delivered each time', () => {
    const party = receiver();
    expect(party.publication({ payload: status, contentTopic: topic, timestamp: ns(1_000) }, listeners)).toBeDefined();
    expect(party.publication({ payload: status, contentTopic: topic, timestamp: ns(2_000) }, listeners)).toBeDefined();
    expect(party.dropped.duplicate).toBe(0);
  });

  it('the same message (topic, bytes and timestamp) brought twice is dropped as a duplicate', () => {
    const party = receiver();
    const message = { payload: status, contentTopic: topic, timestamp: ns(1_000) };
    expect(party.publication(message, listeners)).toBeDefined();
    expect(party.publication({ ...message, payload: status.slice() }, listeners)).toBeUndefined();
    expect(party.dropped.duplicate).toBe(1);
  });

  it('an encrypted message is a replay even when stamped anew', () => {
    const recipient = wakuIdentity(generateWakuPrivateKey());
    const party = new PartyReceiver(recipient, 4096, 100);
    const sender = wakuIdentity(generateWakuPrivateKey());
    const body = bytes(JSON.stringify({ from: sender.address, to: recipient.address, type: 'task_status' }));
    const sent = directMessage(sender.privateKey, recipient.address, body);
    const message = { payload: sent.payload, contentTopic: sent.contentTopic, version: 1, timestamp: ns(5) };
    expect(party.direct(message, [])).toBeDefined();
    expect(party.direct(message, [])).toBeUndefined();
    expect(party.direct({ ...message, timestamp: ns(6) }, [])).toBeUndefined();
    expect(party.dropped.duplicate).toBe(2);
  });

  it('a forgery ending in the bytes of a message on its way takes nothing from it: dropped, and the message delivered', () => {
    const recipient = wakuIdentity(generateWakuPrivateKey());
    const party = new PartyReceiver(recipient, 4096, 100);
    const sender = wakuIdentity(generateWakuPrivateKey());
    const body = bytes(JSON.stringify({ from: sender.address, to: recipient.address, type: 'task_status' }));
    const sent = directMessage(sender.privateKey, recipient.address, body);
    // Seen on the network first, its ciphertext altered but its MAC (the last bytes) kept.
    const forged = sent.payload.slice();
    forged[100] = forged[100]! ^ 0xff;
    const message = { payload: sent.payload, contentTopic: sent.contentTopic, version: 1 };
    expect(party.direct({ ...message, payload: forged }, [])).toBeUndefined();
    expect(party.dropped.undecryptable).toBe(1);
    expect(party.direct(message, [])).toBeDefined();
    // The real one, once delivered, makes any copy of its last bytes a repeat: nothing of it is opened again.
    expect(party.direct({ ...message, payload: forged }, [])).toBeUndefined();
    expect(party.dropped).toMatchObject({ duplicate: 1, undecryptable: 1 });
  });
});
