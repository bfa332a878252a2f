/**
 * One open stream of a task's changes, pushed to its sink as the engine tells them: the whole per-stream state of
 * SendStreamingMessage and SubscribeToTask once they are set up. A gateway holds thousands of these, so a stream is
 * one object with one closure (its listener); what every stream of an agent shares is in `ChangeStreams`.
 *
 * Changes are held until the stream's opening is out (the task as submitted, or as subscribed to), then passed on
 * as they come. The stream ends at the change that `ends` (a terminal state, for sends also an interrupted one),
 * when the client goes away (`stop`), or, at gateway shutdown, with the task's current status, so that clients
 * resubscribe.
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { EventSink } from './event-source.ts';
import type { ChangeListener, TaskChange } from './task-change.ts';
import { snapshotTask, statusEvent } from './task-events.ts';

/** What the streams of one agent share: the engine's side, and the gateway's shutdown. */
export class ChangeStreams {
  private readonly engine: ChangeStreamEngine;
  private readonly shutdown: AbortSignal | undefined;
  /** The streams open while the gateway runs: each ends when it shuts down. */
  private readonly open = new Set<ChangeStream>();

  /** One listener for every stream: a listener per stream on the one signal would cost more than a set entry. */
  private readonly endAll = () => this.open.forEach((stream) => stream.shutdown());

  constructor(engine: ChangeStreamEngine, shutdown: AbortSignal | undefined) {
    this.engine = engine;
    this.shutdown = shutdown;
  }

  /** A new stream into `sink`, closing after the change that leaves the task in a state that `ends`. */
  stream(sink: EventSink<StreamResponse>, ends: (task: Task) => boolean): ChangeStream {
    return new ChangeStream(sink, ends, this);
  }

  /** The stream ends at shutdown, now if that has begun. */
  watch(stream: ChangeStream): void {
    if (this.shutdown?.aborted) queueMicrotask(() => stream.shutdown());
    else if (this.shutdown) {
      // The gateway's signal holds this object only while a stream is open: request handlers, and their streams
      // with them, are built again whenever an agent's card changes, and the old ones must be let go.
      if (this.open.size === 0) this.shutdown.addEventListener('abort', this.endAll, { once: true });
      this.open.add(stream);
    }
  }

  release(stream: ChangeStream, taskId: string | undefined): void {
    if (this.open.delete(stream) && this.open.size === 0) this.shutdown?.removeEventListener('abort', this.endAll);
    if (taskId !== undefined) this.engine.unlisten(taskId, stream.listener);
  }

  current(taskId: string): Promise<Task | undefined> {
    return this.engine.current(taskId);
  }
}

/** What the streams need of the task engine, for one agent. */
export interface ChangeStreamEngine {
  unlisten(taskId: string, listener: ChangeListener): void;
  /** The task as it stands, for the status a stream cut short by shutdown ends with. */
  current(taskId: string): Promise<Task | undefined>;
}

export class ChangeStream {
  /** What the engine calls with each change of the task. */
  readonly listener: ChangeListener = (change) => this.receive(change);
  private readonly sink: EventSink<StreamResponse>;
  private readonly ends: (task: Task) => boolean;
  private readonly streams: ChangeStreams;
  /** Changes that came before the opening went out, as they were then; undefined once they pass straight on. */
  private held: TaskChange[] | undefined = [];
  /** A follow-up's stream opens with the task as its first change left it, instead of that change's events. */
  private firstAsTask = false;
  private open = true;
  /** The gateway is shutting down: no more changes are taken; once the held ones are out, the stream ends. */
  private closing = false;
  /** The task followed, once known: the stream stops listening to it when it ends. */
  private taskId: string | undefined;

  constructor(sink: EventSink<StreamResponse>, ends: (task: Task) => boolean, streams: ChangeStreams) {
    this.sink = sink;
    this.ends = ends;
    this.streams = streams;
    streams.watch(this);
  }

  /** The task the listener was attached to; it is let go at once if the stream has ended already. */
  following(taskId: string): void {
    this.taskId = taskId;
    if (!this.open) this.release();
  }

  emit(event: StreamResponse): void {
    if (this.open) this.sink.event(event);
  }

  /** The opening is out: the held changes go, then every later one as it comes. */
  flow(options: { firstAsTask?: boolean } = {}): void {
    this.firstAsTask = options.firstAsTask ?? false;
    const held = this.held ?? [];
    this.held = undefined;
    for (const change of held) if (this.open) this.pass(change);
    if (this.closing && this.open) this.closeForShutdown();
  }

  /** The gateway is shutting down. */
  shutdown(): void {
    if (!this.open || this.closing) return;
    this.closing = true;
    if (!this.held) this.closeForShutdown();
  }

  /** The client went away: stop listening, say nothing more. */
  stop(): void {
    if (!this.open) return;
    this.open = false;
    this.release();
  }

  fail(error: unknown): void {
    if (!this.open) return;
    this.open = false;
    this.release();
    this.sink.fail(error);
  }

  end(): void {
    if (!this.open) return;
    this.open = false;
    this.release();
    this.sink.end();
  }

  private receive(change: TaskChange): void {
    if (!this.open || this.closing) return;
    // Held changes wait while the task goes on changing: they keep the task as it was.
    if (this.held) this.held.push({ ...change, task: snapshotTask(change.task) });
    else this.pass(change);
  }

  private pass(change: TaskChange): void {
    if (this.firstAsTask) {
      this.firstAsTask = false;
      this.sink.event({ payload: { $case: 'task', value: snapshotTask(change.task) } });
    } else {
      for (const event of change.events) if (this.open) this.sink.event(event);
    }
    if (this.ends(change.task)) this.end();
  }

  /** Ends with the task's current status; a follow-up that never opened ends without one. */
  private closeForShutdown(): void {
    const taskId = this.taskId;
    this.release();
    if (this.firstAsTask || taskId === undefined) return this.end();
    void this.streams.current(taskId).then(
      (task) => {
        if (task) this.emit(statusEvent(task));
        this.end();
      },
      (error: unknown) => this.fail(error),
    );
  }

  private release(): void {
    this.streams.release(this, this.taskId);
    this.taskId = undefined;
  }
}
