/**
 * A push-based stream of events: the producer calls its sink as events happen, and the consumer can stop it. The
 * gateway's own bindings write each event to the client as it is pushed, without the layers of async generators
 * (and their suspended frames, queues and pending promises) a pull-based stream keeps per open stream; the two
 * adapters here connect it with the SDK's generator-based interfaces where those are still in the way.
 */
import { AsyncQueue } from './async-queue.ts';

/** Where a stream's events go. After `end` or `fail` the producer pushes nothing more. */
export interface EventSink<T> {
  event(item: T): void;
  end(): void;
  /** The stream failed: before its first event this becomes an error answer, after it an error at the end. */
  fail(error: unknown): void;
}

/** A started stream, to stop when its consumer goes away. */
export interface Stoppable {
  stop(): void;
}

/** Starts a stream into `sink`. Never throws: what fails is reported to the sink. */
export type EventSource<T> = (sink: EventSink<T>) => Stoppable;

/**
 * The source as an async generator, for the SDK's transport handlers. `abort` ends it while it waits for an
 * event: an async generator's `return()` takes effect only at its next `yield`.
 */
export async function* pullEvents<T>(
  source: EventSource<T>,
  abort: AbortSignal | undefined,
): AsyncGenerator<T, void, undefined> {
  const queue = new AsyncQueue<T>();
  let failure: { error: unknown } | undefined;
  const stream = source({
    event: (item) => queue.push(item),
    end: () => queue.close(),
    fail: (error) => {
      failure = { error };
      queue.close();
    },
  });
  const onAbort = () => queue.close();
  abort?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const item of queue) yield item;
    if (failure) throw failure.error;
  } finally {
    abort?.removeEventListener('abort', onAbort);
    stream.stop();
  }
}

/** An async generator (the SDK's v0.3 transport handlers return those) as a source. */
export function generatorEvents<T>(events: AsyncGenerator<T, void, undefined>): EventSource<T> {
  return (sink) => {
    let open = true;
    void (async () => {
      try {
        for (let next = await events.next(); !next.done && open; next = await events.next()) sink.event(next.value);
        sink.end();
      } catch (error) {
        sink.fail(error);
      }
    })();
    return {
      stop: () => {
        open = false;
        // The generator finishes at its next event or when the task ends; nothing waits for that here.
        void events.return(undefined).catch(() => undefined);
      },
    };
  };
}
