/**
 * One open stream of a task's changes, pushed to its sink as the engine tells them: the whole per-stream state of
 * SendStreamingMessage and SubscribeToTask once they are set up (their listener is this object's one closure).
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

export interface ChangeStreamOptions {
  /** Whether the stream closes after the change that left the task in this state. */
  ends: (task: Task) => boolean;
  /** The task as it stands, for the status a stream cut short by shutdown ends with. */
  current: (taskId: string) => Promise<Task | undefined>;
}

export class ChangeStream {
  /** What the engine calls with each change of the task. */
  readonly listener: ChangeListener = (change) => this.receive(change);
  private readonly sink: EventSink<StreamResponse>;
  private readonly options: ChangeStreamOptions;
  /** Changes that came before the opening went out, as they were then; undefined once they pass straight on. */
  private held: TaskChange[] | undefined = [];
  /** A follow-up's stream opens with the task as its first change left it, instead of that change's events. */
  private firstAsTask = false;
  private open = true;
  /** The gateway is shutting down: no more changes are taken; once the held ones are out, the stream ends. */
  private closing = false;
  /** The task followed, once known. */
  private taskId: string | undefined;
  private stopListening: (() => void) | undefined;
  private stopWaitingForShutdown: (() => void) | undefined;

  constructor(sink: EventSink<StreamResponse>, options: ChangeStreamOptions) {
    this.sink = sink;
    this.options = options;
  }

  /** How to stop hearing of the task once the stream ends; at once if it has ended already. */
  following(taskId: string, stopListening: () => void): void {
    this.taskId = taskId;
    this.stopListening = stopListening;
    if (!this.open) this.release();
  }

  /** How to stop waiting for the gateway's shutdown once the stream ends. */
  awaitingShutdown(stopWaiting: () => void): void {
    this.stopWaitingForShutdown = stopWaiting;
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
    if (this.options.ends(change.task)) this.end();
  }

  /** Ends with the task's current status; a follow-up that never opened ends without one. */
  private closeForShutdown(): void {
    this.release();
    const taskId = this.taskId;
    if (this.firstAsTask || taskId === undefined) return this.end();
    void this.options.current(taskId).then(
      (task) => {
        if (task) this.emit(statusEvent(task));
        this.end();
      },
      (error: unknown) => this.fail(error),
    );
  }

  private release(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.stopWaitingForShutdown?.();
    this.stopWaitingForShutdown = undefined;
  }
}
