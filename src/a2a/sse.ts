/**
 * Server-Sent Events for A2A streams: one `data:` line of JSON per event, no buffering by proxies, a comment line
 * as heartbeat when the stream is idle, and the generator closed (never the task changed) when the client leaves.
 *
 * A gateway holds thousands of streams open, so what each one costs while idle counts (bench/streams.ts). On Node
 * (@hono/node-server) the events are written straight to the socket's response, without a web ReadableStream and
 * its reader, controller and pending reads per stream; elsewhere (Workers, app.request in tests) they go through a
 * ReadableStream. One timer per heartbeat interval serves every open stream.
 */
import type { ServerResponse } from 'node:http';
import { SSE_HEADERS as SDK_SSE_HEADERS } from '@a2a-js/sdk';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { metrics } from '../observability/metrics.ts';
import { CORS_HEADERS, respond } from './responses.ts';

/** The SDK's SSE headers, with the charset named and proxies told not to transform (compress, buffer) the stream. */
const SSE_HEADERS = {
  ...SDK_SSE_HEADERS,
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
};

export interface SseOptions<T> {
  heartbeatMs: number;
  /** The JSON value one event carries. */
  format: (item: T) => unknown;
  /** The JSON value of the `event: error` frame sent when the stream fails midway. */
  formatError: (error: unknown) => unknown;
  headers?: Record<string, string>;
  /** Called when the client goes away, so the producer can stop waiting. */
  onCancel?: () => void;
}

/** Where a stream's frames go: the Node response, or a ReadableStream's controller. */
interface FrameSink {
  write(frame: string): void;
  end(): void;
}

/**
 * Pulls the first item before answering, so that an error the generator throws at once (an unknown task, say)
 * becomes a plain error response from `onEarlyError` instead of a stream.
 */
export async function sseResponse<T>(
  c: Context,
  events: AsyncGenerator<T, void, undefined>,
  options: SseOptions<T>,
  onEarlyError: (error: unknown) => Response,
): Promise<Response> {
  let first: IteratorResult<T, void>;
  try {
    first = await events.next();
  } catch (error) {
    return onEarlyError(error);
  }
  const stream = new SseStream(events, options);
  const outgoing = nodeResponseOf(c);
  if (outgoing) {
    outgoing.writeHead(200, { ...CORS_HEADERS, ...SSE_HEADERS, ...options.headers });
    // 'close' comes when the response has ended or the connection went first; only the latter cancels.
    outgoing.once('close', () => stream.cancel());
    stream.run(first, { write: (frame) => outgoing.write(frame), end: () => outgoing.end() });
    return RESPONSE_ALREADY_SENT;
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stream.run(first, {
        write: (frame) => controller.enqueue(encoder.encode(frame)),
        end: () => controller.close(),
      });
    },
    cancel: () => stream.cancel(),
  });
  return respond(body, 200, { ...SSE_HEADERS, ...options.headers });
}

const encoder = new TextEncoder();

/** The Node response under `c` when @hono/node-server serves it; undefined elsewhere. */
function nodeResponseOf(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: Partial<ServerResponse> } | undefined)?.outgoing;
  return typeof outgoing?.writeHead === 'function' && !outgoing.headersSent ? (outgoing as ServerResponse) : undefined;
}

/** What the heartbeat timer needs of a stream. */
interface Beating {
  readonly lastWrite: number;
  write(frame: string): void;
}

/** One open stream: writes its events until the generator ends or the client leaves, whichever comes first. */
class SseStream<T> implements Beating {
  /** When a frame last went out: a heartbeat is due only after a quiet interval. */
  lastWrite = Date.now();
  private readonly events: AsyncGenerator<T, void, undefined>;
  private readonly options: SseOptions<T>;
  private sink: FrameSink | undefined;
  private open = true;

  constructor(events: AsyncGenerator<T, void, undefined>, options: SseOptions<T>) {
    this.events = events;
    this.options = options;
  }

  run(first: IteratorResult<T, void>, sink: FrameSink): void {
    this.sink = sink;
    metrics.openStreams.inc();
    heartbeats.add(this, this.options.heartbeatMs);
    void this.pump(first);
  }

  write(frame: string): void {
    if (!this.open) return;
    this.lastWrite = Date.now();
    this.sink!.write(frame);
  }

  /** The client went away: stop listening. The task itself carries on untouched. */
  cancel(): void {
    if (!this.close()) return;
    this.options.onCancel?.();
    // The generator finishes at its next event or when the task ends; nothing waits for that here.
    void this.events.return(undefined).catch(() => undefined);
  }

  private async pump(first: IteratorResult<T, void>): Promise<void> {
    try {
      for (let next = first; !next.done && this.open; next = await this.events.next()) {
        this.write(`data: ${JSON.stringify(this.options.format(next.value))}\n\n`);
      }
    } catch (error) {
      try {
        this.write(`event: error\ndata: ${JSON.stringify(this.options.formatError(error))}\n\n`);
      } catch {
        // the client is gone
      }
    }
    const sink = this.sink!;
    if (!this.close()) return;
    try {
      sink.end();
    } catch {
      // already cancelled by the client
    }
  }

  /** Ends the stream's bookkeeping once, however it ends; false when it had already ended. */
  private close(): boolean {
    if (!this.open) return false;
    this.open = false;
    heartbeats.remove(this, this.options.heartbeatMs);
    metrics.openStreams.dec();
    return true;
  }
}

/**
 * The heartbeats of every open stream: one timer per interval (in practice one, the configured one) instead of one
 * per stream. A tick writes a comment to each stream that has been quiet for most of the interval.
 */
const heartbeats = {
  byInterval: new Map<number, { timer: NodeJS.Timeout; streams: Set<Beating> }>(),

  add(stream: Beating, intervalMs: number): void {
    let beat = this.byInterval.get(intervalMs);
    if (!beat) {
      const streams = new Set<Beating>();
      const timer = setInterval(() => {
        const quietSince = Date.now() - intervalMs * 0.9;
        for (const open of streams) if (open.lastWrite <= quietSince) open.write(': keep-alive\n\n');
      }, intervalMs);
      timer.unref();
      this.byInterval.set(intervalMs, (beat = { timer, streams }));
    }
    beat.streams.add(stream);
  },

  remove(stream: Beating, intervalMs: number): void {
    const beat = this.byInterval.get(intervalMs);
    if (!beat?.streams.delete(stream) || beat.streams.size > 0) return;
    clearInterval(beat.timer);
    this.byInterval.delete(intervalMs);
  },
};
