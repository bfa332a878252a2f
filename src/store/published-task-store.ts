/**
 * What a publication keeps of each task it carries to an HTTP agent (src/publish/), so that a restarted publishing
 * side picks the task up where the HTTP agent has it, instead of losing it: the Logos task's own request, and the
 * HTTP agent's task it became.
 */
export interface PublishedTask {
  /** The Logos task. */
  taskId: string;
  contextId: string;
  skill: string;
  params: Record<string, unknown>;
  message?: Record<string, unknown> | undefined;
  /** The HTTP agent's task and context. */
  originTaskId: string;
  originContextId: string;
}

export interface PublishedTaskStore {
  get(taskId: string): PublishedTask | undefined;
  /** Kept once the HTTP agent has named its task; again when it changes nothing. */
  put(task: PublishedTask): void;
  /** The task ended: nothing is left to pick up. */
  delete(taskId: string): void;
  close(): void;
}
