/**
 * Fewer, larger writes on a relay connection: what a node sends to a peer during one turn of the event loop leaves
 * as one Noise frame and one socket write, not one of each per message.
 *
 * Under load a node sends many small messages to the same peer at once (a gateway's 1:1 task requests, an agent's
 * replies), each of them its own mplex frame. libp2p writes each to the socket as it comes, and on loopback a
 * socket write costs more than encrypting the message (the receiver's TCP work is done in the sender's system
 * call). Here the plaintext stream into Noise is collected until the event loop has handled its pending I/O
 * (`setImmediate`), then passed on in one piece. The bytes on the wire are the same stream, framed differently:
 * Noise frames carry any split of the stream, and peers (nwaku, js-waku) read it the same.
 */
import type { ConnectionEncrypter, SecuredConnection } from '@libp2p/interface';

/** What libp2p streams carry: bytes, or a list of byte arrays (uint8arraylist) that `subarray()` joins. */
type Chunk = Uint8Array | { readonly byteLength: number; subarray(): Uint8Array };
type Sink = (source: AsyncIterable<Chunk>) => Promise<void>;

/** The same encrypter, its secured connections writing in batches. */
export function batchingWrites(encrypter: ConnectionEncrypter): ConnectionEncrypter {
  return {
    protocol: encrypter.protocol,
    secureInbound: async (connection, options) => batched(await encrypter.secureInbound(connection, options)),
    secureOutbound: async (connection, options) => batched(await encrypter.secureOutbound(connection, options)),
  };
}

function batched<T extends SecuredConnection>(secured: T): T {
  const conn = secured.conn as { sink: Sink };
  const sink = conn.sink;
  conn.sink = (source) => sink(inBatches(source));
  return secured;
}

/**
 * The chunks of `source`, joined into one per turn of the event loop. The source is read as fast as it yields, as
 * libp2p's own pipeline reads it (the muxer and the pubsub queues above it buffer anyway); ending and failing pass
 * through, and when the consumer stops, reading stops too.
 */
export async function* inBatches(source: AsyncIterable<Chunk>): AsyncGenerator<Chunk> {
  const pending: Chunk[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const iterator = source[Symbol.asyncIterator]();
  void (async () => {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        pending.push(next.value);
        wake?.();
      }
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      wake?.();
    }
  })();
  try {
    for (;;) {
      if (pending.length === 0) {
        if (failure) throw failure.error;
        if (ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
        // Let the rest of this turn's callbacks add what they send; but a source that ends (a connection closing:
        // its muxer sends its last frames, ends, and the socket goes as soon as that queue is drained) is
        // written at once, before the socket is gone.
        if (!ended) {
          await new Promise<void>((resolve) => {
            const turnEnd = setImmediate(resolve);
            wake = () => {
              if (!ended) return;
              clearImmediate(turnEnd);
              resolve();
            };
          });
        }
        wake = undefined;
        continue;
      }
      yield joined(pending.splice(0));
    }
  } finally {
    // Not awaited: a source waiting for its next chunk settles its return only after that chunk.
    if (!ended) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

function joined(chunks: Chunk[]): Chunk {
  if (chunks.length === 1) return chunks[0]!;
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk instanceof Uint8Array ? chunk : chunk.subarray(), offset);
    offset += chunk.byteLength;
  }
  return out;
}
