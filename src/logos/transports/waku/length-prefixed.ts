/**
 * The framing of Waku's request/response protocols (metadata, light push, filter, peer exchange): each protobuf
 * message preceded by its length as an unsigned varint, as libp2p's `writeLp` / `readLp` do.
 */
import type { Stream } from '@libp2p/interface';

export function lengthPrefixed(message: Uint8Array): Uint8Array {
  const prefix: number[] = [];
  let length = message.length;
  do {
    let byte = length & 0x7f;
    length = Math.floor(length / 128);
    if (length > 0) byte |= 0x80;
    prefix.push(byte);
  } while (length > 0);
  const framed = new Uint8Array(prefix.length + message.length);
  framed.set(prefix);
  framed.set(message, prefix.length);
  return framed;
}

/**
 * Reads one frame from a stream's source. Resolves undefined when the stream ends before a whole frame; rejects
 * when the frame announces more than `maxBytes` (the peer is not read further).
 *
 * The source is read through its iterator without ending it: ending it early would close our reading side, and the
 * peer's own close, arriving after, would count against the connection in mplex (which drops a connection after a
 * few messages for streams it no longer knows).
 */
export async function readFrame(
  source: AsyncIterable<{ subarray(): Uint8Array }>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const chunks = source[Symbol.asyncIterator]();
  let buffered = new Uint8Array(0);
  for (;;) {
    const next = await chunks.next();
    if (next.done) return undefined;
    const bytes = next.value.subarray();
    const joined = new Uint8Array(buffered.length + bytes.length);
    joined.set(buffered);
    joined.set(bytes, buffered.length);
    buffered = joined;
    const header = readVarint(buffered);
    if (header === undefined) {
      if (buffered.length >= 5) throw new Error('bad frame length');
      continue;
    }
    if (header.value > maxBytes) throw new Error(`frame of ${header.value} bytes exceeds ${maxBytes}`);
    if (buffered.length >= header.bytes + header.value) {
      return buffered.slice(header.bytes, header.bytes + header.value);
    }
  }
}

function readVarint(bytes: Uint8Array): { value: number; bytes: number } | undefined {
  let value = 0;
  for (let i = 0; i < Math.min(bytes.length, 5); i++) {
    const byte = bytes[i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return { value, bytes: i + 1 };
  }
  return undefined;
}

/**
 * One request/response exchange on an open stream: writes `request` (when given), reads one answer frame, and
 * aborts the stream when `timeoutMs` passes first.
 */
export async function exchange(
  stream: Stream,
  request: Uint8Array | undefined,
  maxResponseBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | undefined> {
  const timer = setTimeout(() => stream.abort(new Error('timed out')), timeoutMs);
  try {
    const reading = readFrame(stream.source, maxResponseBytes);
    if (request) await stream.sink([lengthPrefixed(request)]);
    return await reading;
  } finally {
    clearTimeout(timer);
  }
}

/** Writes one frame and closes the writing side. */
export async function writeFrame(stream: Stream, message: Uint8Array, timeoutMs: number): Promise<void> {
  const timer = setTimeout(() => stream.abort(new Error('timed out')), timeoutMs);
  try {
    await stream.sink([lengthPrefixed(message)]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for the peer to close its writing side after a one-way message, then the stream is closed at both ends;
 * aborts it (a reset, which frees the peer's side too) when the peer has not closed within `graceMs`. Closing only
 * our reading side would not do: mplex has no message for it, and the peer's close arriving afterwards for a stream
 * we no longer know counts against the connection (see `readFrame`).
 */
export async function awaitPeerClose(stream: Stream, graceMs: number): Promise<void> {
  const timer = setTimeout(() => stream.abort(new Error('the peer did not close the stream')), graceMs);
  try {
    for await (const _ of stream.source) {
      // A one-way stream carries nothing back; whatever the peer sends is read and dropped.
    }
  } catch {
    // Reset by the peer or aborted here: the stream is gone at both ends either way.
  } finally {
    clearTimeout(timer);
  }
}
