/**
 * The in-process network keeps the wire's separation of parties: each receiver gets bytes of its own, which neither
 * the sender (reusing its buffer) nor another receiver (writing into what it got) can change.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { expect, it } from 'vitest';
import { MemoryNetwork } from '../../../src/logos/transports/memory.ts';

it('hands each receiver a copy of its own, apart from the sender’s bytes and the other receivers’', async () => {
  const network = new MemoryNetwork();
  const sender = network.node('sender');
  const first = network.node('first');
  const second = network.node('second');
  await Promise.all([sender.start(), first.start(), second.start()]);
  const key = new Uint8Array(32).fill(7);
  const received: Uint8Array[] = [];
  first.subscribe('/t/1/x/json', (payload) => received.push(payload), { key });
  second.subscribe('/t/1/x/json', (payload) => received.push(payload), { key });

  const bytes = new TextEncoder().encode('{"hello":"world"}');
  await sender.publish('/t/1/x/json', bytes, { key });
  bytes.fill(0); // the sender reuses its buffer at once
  await new Promise((resolve) => setTimeout(resolve, 0));

  expect(received).toHaveLength(2);
  received[0]!.fill(1); // one receiver writes into what it got
  expect(new TextDecoder().decode(received[1])).toBe('{"hello":"world"}');
  expect(received[0]).not.toBe(received[1]);
});

it('delivers a keyed publication to the subscribers with the same key only, naming its publisher', async () => {
  const network = new MemoryNetwork();
  const [sender, same, other, plain] = ['sender', 'same', 'other', 'plain'].map((name) => network.node(name));
  await Promise.all([sender, same, other, plain].map((node) => node!.start()));
  const key = new Uint8Array(32).fill(7);
  const heard: [string, string | undefined][] = [];
  const listen =
    (name: string) =>
    (_payload: Uint8Array, { sender: from }: { sender?: string | undefined }) =>
      heard.push([name, from]);
  same!.subscribe('/t/1/x/json', listen('same'), { key: key.slice() });
  other!.subscribe('/t/1/x/json', listen('other'), { key: new Uint8Array(32).fill(8) });
  plain!.subscribe('/t/1/x/json', listen('plain'));
  // An empty key is none, as before keys were compared as bytes.
  plain!.subscribe('/t/1/x/json', listen('empty'), { key: new Uint8Array(0) });

  key.fill(9); // a subscriber's key is its own: the sender changing its bytes later changes nothing
  await sender!.publish('/t/1/x/json', new Uint8Array([1]), { key: new Uint8Array(32).fill(7) });
  await sender!.publish('/t/1/x/json', new Uint8Array([2]));
  await new Promise((resolve) => setTimeout(resolve, 0));

  expect(heard).toEqual([
    ['same', 'sender'],
    ['plain', undefined],
    ['empty', undefined],
  ]);
});

it('stops delivering to a subscriber once it unsubscribes, and leaves the others subscribed', async () => {
  const network = new MemoryNetwork();
  const [sender, receiver] = ['sender', 'receiver'].map((name) => network.node(name));
  await Promise.all([sender!.start(), receiver!.start()]);
  const heard: string[] = [];
  const first = receiver!.subscribe('/t/1/x/json', () => heard.push('first'));
  receiver!.subscribe('/t/1/x/json', () => heard.push('second'));
  first();
  first(); // twice is once
  await sender!.publish('/t/1/x/json', new Uint8Array([1]));
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(heard).toEqual(['second']);
});

it('ends every subscription of a node when it stops, and an unsubscribe after that changes nothing', async () => {
  const network = new MemoryNetwork();
  const [sender, receiver, other] = ['sender', 'receiver', 'other'].map((name) => network.node(name));
  await Promise.all([sender!.start(), receiver!.start(), other!.start()]);
  const heard: string[] = [];
  const unsubscribe = receiver!.subscribe('/t/1/x/json', () => heard.push('receiver'));
  receiver!.onDirect(() => heard.push('receiver direct'));
  other!.subscribe('/t/1/x/json', () => heard.push('other'));
  await receiver!.stop();
  unsubscribe();
  await sender!.publish('/t/1/x/json', new Uint8Array([1]));
  await sender!.send('receiver', new Uint8Array([2]));
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(heard).toEqual(['other']);
  // Started again, it subscribes afresh.
  await receiver!.start();
  receiver!.subscribe('/t/1/x/json', () => heard.push('receiver again'));
  await sender!.publish('/t/1/x/json', new Uint8Array([3]));
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(heard).toEqual(['other', 'other', 'receiver again']);
});

it('runs a receiver after the sender’s own code, in order, in the async context the sender sent from', async () => {
  const network = new MemoryNetwork();
  const sender = network.node('sender');
  const receiver = network.node('receiver');
  await Promise.all([sender.start(), receiver.start()]);
  const storage = new AsyncLocalStorage<string>();
  const heard: string[] = [];
  receiver.onDirect((payload) => heard.push(`${new TextDecoder().decode(payload)} in ${storage.getStore()}`));

  storage.run('request 1', () => void sender.send('receiver', new TextEncoder().encode('a')));
  storage.run('request 2', () => void sender.send('receiver', new TextEncoder().encode('b')));
  heard.push('sender done');
  await new Promise((resolve) => setTimeout(resolve, 0));

  expect(heard).toEqual(['sender done', 'a in request 1', 'b in request 2']);
});
