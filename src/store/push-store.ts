/**
 * Durable state of push notifications: the webhook configs clients register per task, and the outbox of deliveries.
 * Every event for a task is written to the outbox, once per config, before any attempt to deliver it, so a restart
 * resumes what was not yet delivered (at-least-once; receivers drop duplicates by event id).
 */

/** The A2A wire version a config was registered over: its webhook receives bodies in that version's shape. */
export type PushProtocolVersion = '1.0' | '0.3';

export interface PushConfigRecord {
  taskId: string;
  id: string;
  url: string;
  /** Sent back in `X-A2A-Notification-Token`, for the receiver to check the notification is for it. */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>` when both are present. */
  authentication?: { scheme: string; credentials?: string };
  protocolVersion: PushProtocolVersion;
  /** The API key (by name) the config was registered with. */
  owner?: string;
  /** ISO 8601. */
  createdAt: string;
}

/** A delivery as written to the outbox: everything needed to send it, so that sending needs no other state. */
export interface NewDelivery {
  /** Identifies the event, the same for every config notified of it: receivers drop duplicates by it. */
  eventId: string;
  taskId: string;
  configId: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Delivered rows leave the outbox; pending ones wait for an attempt; failed ones stay for an operator to see. */
export type DeliveryState = 'pending' | 'failed';

export interface OutboxDelivery extends NewDelivery {
  /** Outbox order: a config's deliveries are sent in this order. */
  seq: number;
  state: DeliveryState;
  attempts: number;
  /** Milliseconds since the epoch. */
  nextAttemptAt: number;
  lastError?: string;
  /** ISO 8601. */
  createdAt: string;
}

export interface PushStore {
  /**
   * Whether other processes (replicas) deliver from this outbox too. Then `due` claims what it returns, so a delivery
   * in flight here is not returned again, and what another writes is found only by looking (no write here wakes it).
   */
  readonly shared: boolean;
  /** Creates the config, or replaces the task's config with the same id. */
  saveConfig(record: PushConfigRecord): Promise<void>;
  getConfig(taskId: string, configId: string): Promise<PushConfigRecord | undefined>;
  listConfigs(taskId: string): Promise<PushConfigRecord[]>;
  /**
   * False only when no task can have a config (none was ever saved here): a task's change then needs no lookup at
   * all. A store other processes write to (replicas) answers true.
   */
  mayHaveConfigs(): boolean;
  /** Deletes the config and its undelivered rows (nobody wants them any more); false when there was none. */
  deleteConfig(taskId: string, configId: string): Promise<boolean>;

  /** Writes the deliveries in one transaction, due at `nowMs`; committed when it returns. */
  enqueue(deliveries: NewDelivery[], nowMs: number): Promise<void>;
  /**
   * Whether the task store marks each change of a task with a webhook in the transaction that commits it (PostgreSQL,
   * in the change feed), for `queueMarked` to turn into deliveries: then a replica that dies right after a commit
   * leaves its notifications to whichever looks next. Otherwise the change's notifications are queued once it is
   * committed (`enqueue`).
   */
  readonly marksChanges: boolean;
  /**
   * Turns marked changes into deliveries, due at `nowMs`, and clears their marks, in one transaction: each change's
   * notifications are queued once, whoever asks, and a task's in the order of its changes. `scope`: the changes of
   * these tasks, or those of any task marked at least `olderThanMs` ago (and with them, their tasks' later ones).
   * `build` makes a change's deliveries (the change as the feed holds it) for the task's configs. Returns how many
   * deliveries were queued; a store that marks nothing returns 0.
   */
  queueMarked(
    scope: { taskIds: readonly string[] } | { olderThanMs: number },
    build: (change: string, configs: PushConfigRecord[]) => NewDelivery[],
    nowMs: number,
  ): Promise<number>;
  /**
   * Pending deliveries due at `nowMs` that are first in their config's queue (a config's deliveries go out one at a
   * time, in order), oldest first. A store shared by replicas claims what it returns (no other replica gets it until
   * the claim runs out), so the caller records an outcome for each.
   */
  due(nowMs: number, limit: number): Promise<OutboxDelivery[]>;
  /** The earliest attempt time after `nowMs` among pending deliveries: when to look again. */
  nextAttemptAfter(nowMs: number): Promise<number | undefined>;
  markDelivered(seq: number): Promise<void>;
  scheduleRetry(seq: number, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  markFailed(seq: number, attempts: number, error: string): Promise<void>;
  /** A task's deliveries still in the outbox (pending or failed), in order. */
  deliveries(taskId: string): Promise<OutboxDelivery[]>;
  close(): Promise<void>;
}
