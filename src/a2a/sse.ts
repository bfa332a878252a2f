/**
 * Server-Sent Events for A2A streams: one `data:` line of JSON per event, no buffering by proxies, a comment line
 * as heartbeat when the stream is idle, and the source stopped (never the task changed) when the client leaves.
 *
 * A gateway holds thousands of streams open, so what each one costs while idle counts (bench/streams.ts). Events
 * are pushed (bridge/event-source.ts): each is written as it comes, with no generator waiting per stream. On Node
 * (@hono/node-server) the events are written straight to the socket's response, without a web ReadableStream and
 * its reader, controller and pending reads per stream; elsewhere (Workers, app.request in tests) they go through a
 * ReadableStream. One timer per heartbeat interval serves every open stream.
 */
import type { ServerResponse } from 'node:http';
import { SSE_HEADERS as SDK_SSE_HEADERS } from '@a2a-js/sdk';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { EventSink, EventSource, Stoppable } from '../bridge/event-source.ts';
import { keepAlive, stopKeepingAlive, type KeptAlive } from '../keep-alive.ts';
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
  /** Called when the client goes away (besides stopping the source), for a producer that waits on a signal. */
  onCancel?: () => void;
}

/** Where a stream's frames go: the Node response itself, or a ReadableStream's controller. */
interface FrameSink {
  write(frame: string): unknown;
  end(): unknown;
}

/**
 * Answers once the source has pushed its first event (or ended): an error it reports before that (an unknown task,
 * say) becomes a plain error response from `onEarlyError` instead of a stream.
 */
export function sseResponse<T>(
  c: Context,
  source: EventSource<T>,
  options: SseOptions<T>,
  onEarlyError: (error: unknown) => Response,
): Promise<Response> {
  return new Promise((answer) => new SseStream(options, { c, answer, onEarlyError }).start(source));
}

const encoder = new TextEncoder();

/** The Node response under `c` when @hono/node-server serves it; undefined elsewhere. */
function nodeResponseOf(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: Partial<ServerResponse> } | undefined)?.outgoing;
  return typeof outgoing?.writeHead === 'function' && !outgoing.headersSent ? (outgoing as ServerResponse) : undefined;
}

/**
 * Node keeps the response's head block (`_header`) for the response's lifetime, as it built it: a rope of some 35
 * concatenations, about 1.1 KB of heap per open stream against some 0.4 KB flat. It is replaced by a flat copy
 * (decoded from its bytes: a head block is Latin-1), which Node sends the same. Reading a character of the rope, as
 * before, left a quarter of them unflattened once that code was optimised (bench/streams.ts, heap snapshots).
 */
function flattenHeadBlock(outgoing: ServerResponse): void {
  const response = outgoing as unknown as { _header?: unknown };
  if (typeof response._header === 'string')
    response._header = Buffer.from(response._header, 'latin1').toString('latin1');
}

/**
 * @hono/node-server listens for each response's 'close', to abort the web Request's signal and drain a body left
 * unread. A stream has read its body, and once it answers nothing of it watches that signal (its own 'close'
 * listener below ends it, and a producer that waits on a signal has its own, through `onCancel`); but the adapter's
 * listener keeps the Request wrapper and its headers, about 550 bytes, for the stream's whole life
 * (bench/streams.ts, heap snapshots). The stream takes the response: the listeners set on it before go.
 */
function takeOverClose(outgoing: ServerResponse, onClose: () => void): void {
  outgoing.removeAllListeners('close');
  outgoing.on('close', onClose);
}

/** What a stream needs until it answers; dropped once it has. */
interface Opening {
  c: Context;
  answer: (response: Response) => void;
  onEarlyError: (error: unknown) => Response;
}

/**
 * One stream: answers at its first event, then writes each event as the source pushes it, until the source ends
 * or the client leaves, whichever comes first.
 */
class SseStream<T> implements EventSink<T>, KeptAlive {
  /** When a frame last went out: a heartbeat is due only after a quiet interval. */
  lastSentAt = 0;
  private readonly options: SseOptions<T>;
  private opening: Opening | undefined;
  private out: FrameSink | undefined;
  private source: Stoppable | undefined;
  private open = false;
  /** The Node response's 'close' listener: it comes when the response has ended or the connection went first. */
  private readonly onClose = () => this.cancel();

  constructor(options: SseOptions<T>, opening: Opening) {
    this.options = options;
    this.opening = opening;
  }

  start(source: EventSource<T>): void {
    const started = source(this);
    // A source that ended within its start has nothing left to stop.
    if (this.opening || this.open) this.source = started;
  }

  event(item: T): void {
    if (this.opening) this.answer();
    if (!this.open) return;
    try {
      this.write(`data: ${JSON.stringify(this.options.format(item))}\n\n`);
    } catch (error) {
      this.source?.stop();
      this.fail(error);
    }
  }

  end(): void {
    if (this.opening) this.answer();
    const out = this.out;
    if (!this.close()) return;
    try {
      out!.end();
    } catch {
      // already cancelled by the client
    }
  }

  fail(error: unknown): void {
    const opening = this.opening;
    if (opening) {
      this.opening = undefined;
      opening.answer(opening.onEarlyError(error));
      return;
    }
    try {
      this.write(`event: error\ndata: ${JSON.stringify(this.options.formatError(error))}\n\n`);
    } catch {
      // the client is gone
    }
    this.end();
  }

  beat(): void {
    this.write(': keep-alive\n\n');
  }

  write(frame: string): void {
    if (!this.open) return;
    this.lastSentAt = performance.now();
    this.out!.write(frame);
  }

  /** The client went away: stop listening. The task itself carries on untouched. */
  private cancel(): void {
    const source = this.source;
    if (!this.close()) return;
    this.options.onCancel?.();
    source?.stop();
  }

  /** Answers with the stream, headers first. */
  private answer(): void {
    const { c, answer } = this.opening!;
    this.opening = undefined;
    this.open = true;
    this.lastSentAt = performance.now();
    metrics.openStreams.inc();
    keepAlive(this, this.options.heartbeatMs);
    const outgoing = nodeResponseOf(c);
    if (outgoing) {
      outgoing.writeHead(200, { ...CORS_HEADERS, ...SSE_HEADERS, ...this.options.headers });
      flattenHeadBlock(outgoing);
      takeOverClose(outgoing, this.onClose);
      this.out = outgoing;
      answer(RESPONSE_ALREADY_SENT);
      // A client that left before the first event (a follow-up waiting its turn on the task, say): its 'close'
      // came and went before the listener above.
      if (outgoing.destroyed) this.cancel();
      return;
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.out = {
          write: (frame) => controller.enqueue(encoder.encode(frame)),
          end: () => controller.close(),
        };
      },
      cancel: () => this.cancel(),
    });
    answer(respond(body, 200, { ...SSE_HEADERS, ...this.options.headers }));
  }

  /** Ends the stream's bookkeeping once, however it ends; false when it was not open. */
  private close(): boolean {
    if (!this.open) return false;
    this.open = false;
    this.source = undefined;
    stopKeepingAlive(this, this.options.heartbeatMs);
    metrics.openStreams.dec();
    return true;
  }
}
