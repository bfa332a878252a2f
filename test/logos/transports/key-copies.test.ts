/**
 * Keys handed to the transports are copied, also when they come as a Buffer (whose `slice` is a view of the caller's
 * bytes, not a copy): a caller that reuses or wipes its buffer afterwards changes nothing of the identity or the
 * subscription it made with it.
 */
import { describe, expect, it } from 'vitest';
import { MemoryNetwork } from '../../../src/logos/transports/memory.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { generateWakuPrivateKey, wakuIdentity } from '../../../src/logos/transports/waku/identity.ts';
import { topicKey } from '../../../src/logos/transports/waku/receiver.ts';
import { eventually } from '../../support/gateway.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('keys given as a Buffer', () => {
  it('a Waku identity keeps its own copy of the secret key', () => {
    const secret = generateWakuPrivateKey();
    const given = Buffer.from(secret);
    const identity = wakuIdentity(given);
    given.fill(0);
    expect(hex(identity.privateKey)).toBe(hex(secret));
    expect(identity.address).toBe(wakuIdentity(secret).address);
  });

  it('a Waku transport keeps its own copy of its key', () => {
    const secret = generateWakuPrivateKey();
    const given = Buffer.from(secret);
    const transport = new WakuTransport({ privateKey: given, nodeKey: Buffer.from(generateWakuPrivateKey()) });
    given.fill(0);
    expect(hex(transport.privateKey)).toBe(hex(secret));
  });

  it('a topic key is copied', () => {
    const key = Buffer.alloc(32, 7);
    const copy = topicKey(key, 'test');
    key.fill(1);
    expect(hex(copy)).toBe('07'.repeat(32));
  });

  it('a memory subscription keeps the key it was made with', async () => {
    const network = new MemoryNetwork();
    const [publisher, subscriber] = [network.node('a'), network.node('b')];
    await Promise.all([publisher.start(), subscriber.start()]);
    const key = Buffer.alloc(32, 7);
    const received: string[] = [];
    subscriber.subscribe('/t/1/keys/json', (payload) => received.push(Buffer.from(payload).toString()), { key });
    key.fill(1); // the subscriber reuses its buffer
    await publisher.publish('/t/1/keys/json', Buffer.from('hello'), { key: new Uint8Array(32).fill(7) });
    await eventually(() => received[0]);
    expect(received).toEqual(['hello']);
  });
});
