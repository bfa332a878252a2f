/**
 * Server-Sent Events for A2A streams: one `data:` line of JSON per event, no buffering by proxies, a comment line
 * as heartbeat when the stream is idle, and the generator closed (never the task changed) when the client leaves.
 */
import { SSE_HEADERS as SDK_SSE_HEADERS } from '@a2a-js/sdk';
import { metrics } from '../observability/metrics.ts';
import { respond } from './responses.ts';

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

const encoder = new TextEncoder();

/**
 * Pulls the first item before answering, so that an error the generator throws at once (an unknown task, say)
 * becomes a plain error response from `onEarlyError` instead of a stream.
 */
export async function sseResponse<T>(
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

  let heartbeat: NodeJS.Timeout | undefined;
  let lastWrite = Date.now();
  // A stream ends once, however it ends (its last event, or the client leaving first).
  let open = true;
  const closed = () => {
    if (open) metrics.openStreams.dec();
    open = false;
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      metrics.openStreams.inc();
      const write = (text: string) => {
        lastWrite = Date.now();
        controller.enqueue(encoder.encode(text));
      };
      heartbeat = setInterval(() => {
        if (Date.now() - lastWrite >= options.heartbeatMs * 0.9) write(': keep-alive\n\n');
      }, options.heartbeatMs);
      heartbeat.unref();

      void (async () => {
        try {
          if (!first.done) {
            write(`data: ${JSON.stringify(options.format(first.value))}\n\n`);
            for (let next = await events.next(); !next.done; next = await events.next()) {
              write(`data: ${JSON.stringify(options.format(next.value))}\n\n`);
            }
          }
        } catch (error) {
          try {
            write(`event: error\ndata: ${JSON.stringify(options.formatError(error))}\n\n`);
          } catch {
            // the client is gone
          }
        } finally {
          clearInterval(heartbeat);
          closed();
          try {
            controller.close();
          } catch {
            // already cancelled by the client
          }
        }
      })();
    },
    cancel() {
      // The client went away: stop listening. The task itself carries on untouched. (The generator finishes at
      // its next event or when the task ends; nothing waits for that here.)
      clearInterval(heartbeat);
      closed();
      options.onCancel?.();
      void events.return(undefined).catch(() => undefined);
    },
  });
  return respond(body, 200, { ...SSE_HEADERS, ...options.headers });
}
