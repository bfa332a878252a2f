/**
 * The in-process network keeps the wire's separation of parties: each receiver gets bytes of its own, which neither
 * the sender (reusing its buffer) nor another receiver (writing into what it got) can change.
 */
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
