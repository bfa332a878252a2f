/**
 * The write batching under the relay node's Noise connections: what is sent during one turn of the event loop
 * leaves as one chunk, every byte in order; the end and a failure of the stream pass through.
 */
import { expect, it } from 'vitest';
import { inBatches } from '../../../src/logos/transports/waku/write-batching.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);
const flat = (chunk: Uint8Array | { subarray(): Uint8Array }) =>
  Array.from(chunk instanceof Uint8Array ? chunk : chunk.subarray());

/** A source fed by hand, as libp2p's pushable queues are. */
function queue() {
  const items: Uint8Array[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  async function* source(): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (items.length > 0) {
        yield items.shift()!;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return {
    source: source(),
    push(item: Uint8Array) {
      items.push(item);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    fail(error: Error) {
      failure = error;
      wake?.();
    },
  };
}

it('joins what is sent in one turn of the event loop into one chunk, in order', async () => {
  const q = queue();
  const batches = inBatches(q.source);
  q.push(bytes(1, 2));
  q.push(bytes(3));
  q.push(bytes(4, 5, 6));
  expect(flat((await batches.next()).value!)).toEqual([1, 2, 3, 4, 5, 6]);
  // Sent in a later turn: a batch of its own.
  await new Promise((resolve) => setTimeout(resolve, 5));
  q.push(bytes(7));
  expect(flat((await batches.next()).value!)).toEqual([7]);
  q.end();
  expect((await batches.next()).done).toBe(true);
});

it('delivers what was sent before a failure, then the failure', async () => {
  const q = queue();
  const batches = inBatches(q.source);
  q.push(bytes(9));
  q.fail(new Error('connection reset'));
  expect(flat((await batches.next()).value!)).toEqual([9]);
  await expect(batches.next()).rejects.toThrow('connection reset');
});

it('stops reading the source when the consumer stops', async () => {
  let returned = false;
  async function* source(): AsyncGenerator<Uint8Array> {
    try {
      for (let i = 0; ; i++) {
        yield bytes(i);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      returned = true;
    }
  }
  const batches = inBatches(source());
  await batches.next();
  await batches.return(undefined);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(returned).toBe(true);
});

it('writes at once what was sent just before the source ended, not at the end of the turn', async () => {
  const q = queue();
  const batches = inBatches(q.source);
  const first = batches.next();
  q.push(bytes(1));
  q.push(bytes(2));
  q.end(); // a closing connection: its last frames, then the end, in the same turn
  let written: number[] | undefined;
  void first.then((result) => (written = flat(result.value!)));
  // Only microtasks: a socket closed once the muxer's queue is drained would be gone by the next turn.
  for (let tick = 0; tick < 50 && !written; tick++) await Promise.resolve();
  expect(written).toEqual([1, 2]);
  expect((await batches.next()).done).toBe(true);
});
