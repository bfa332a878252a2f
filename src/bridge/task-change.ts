/**
 * What the task engine tells its listeners (blocking sends, streams, push notifications): one change of one task,
 * after it is on disk. A module of its own so that everything around the engine can name it without importing
 * the engine.
 */
import type { Message, StreamResponse, Task } from '@a2a-js/sdk';

/** What one applied agent reply (or a local change) produced. */
export interface TaskChange {
  events: StreamResponse[];
  /**
   * Set when the agent answered with a message instead of a task (binding §5.6): that message, for a blocking
   * SendMessage to return.
   */
  directAnswer?: Message;
  /** The task right after the change. Listeners must treat it as read-only. */
  task: Task;
}

export type ChangeListener = (change: TaskChange) => void;
