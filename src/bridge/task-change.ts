/**
 * What the task engine tells its listeners (blocking sends, streams, push notifications): one change of one task,
 * after it is on disk. A module of its own so that everything around the engine can name it without importing
 * the engine.
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { AgentEnvelope } from '../logos/envelope.ts';

/** What one applied agent reply (or a local change) produced. */
export interface TaskChange {
  events: StreamResponse[];
  /** The agent's envelope behind the change; absent for changes the gateway made itself. */
  envelope?: AgentEnvelope;
  /** The task right after the change. Listeners must treat it as read-only. */
  task: Task;
}

export type ChangeListener = (change: TaskChange) => void;
