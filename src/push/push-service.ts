/**
 * A2A push notifications: the webhook configs of each task, and the delivery of every task event to them.
 *
 * `notify` writes one outbox row per event and config before anything is sent; a small pool of workers then POSTs
 * them through the SSRF guard, retrying with backoff what may succeed later. A config's deliveries go out one at a
 * time, in order. Delivery is at-least-once: a row leaves the outbox only once a receiver answered 2xx, and `start`
 * resumes whatever a previous process left, so a receiver may see an event twice and drops it by its event id
 * (`A2A-Notification-Id`).
 */
import { randomUUID } from 'node:crypto';
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { Agent } from 'undici';
import type {
  NewDelivery,
  OutboxDelivery,
  PushConfigRecord,
  PushProtocolVersion,
  PushStore,
} from '../store/push-store.ts';
import { notificationRequest } from './notification-request.ts';
import { backoffDelay } from './retry-timing.ts';
import { WebhookGuard, type Resolver } from './webhook-guard.ts';
import { postWebhook, type PostOutcome } from './webhook-post.ts';
import { metrics } from '../observability/metrics.ts';

/** What a running service holds: the guarded dispatcher once made, and what cuts its attempts short. */
interface Running {
  agent: Promise<Agent> | undefined;
  abort: AbortController;
}

export interface PushServiceOptions {
  /** Development: http receivers and private, loopback… addresses are allowed (cloud metadata never is). */
  allowPrivate?: boolean;
  /** CIDR networks whose addresses are allowed although not public (receivers on the operator's own network). */
  allowNetworks?: readonly string[];
  /** Refuse plain-http webhooks. Defaults to `!allowPrivate`. */
  requireHttps?: boolean;
  /** Resolves webhook host names; defaults to the system's `dns.lookup`. */
  resolver?: Resolver;
  /** One attempt, connection and redirects included. Default 10 s. */
  timeoutMs?: number;
  /** Attempts in flight at once. Default 8. */
  concurrency?: number;
  /** Attempts before a delivery is given up as failed. Default 10. */
  maxAttempts?: number;
  /** First retry delay; doubles with each failed attempt. Default 1 s. */
  backoffBaseMs?: number;
  /** Cap of the retry delay, a receiver's Retry-After included. Default 5 min. */
  maxBackoffMs?: number;
  /** Redirects followed per attempt, each hop checked by the guard. Default 3. */
  maxRedirects?: number;
  /**
   * On an outbox shared by replicas, how often it is looked at without a reason of this process's own: a replica that
   * stopped (or died) mid-queue leaves deliveries that fall due when its claims run out, which only a look finds.
   * Default 10 s.
   */
  sharedPollMs?: number;
  /** Deliveries given up, and other trouble; defaults to console.warn. */
  log?: (message: string) => void;
  /**
   * Reads a change as the task store's change feed holds it: required by a store that marks changes (`marksChanges`),
   * whose notifications are made from the feed.
   */
  readChange?: (text: string) => { task: Task; events: readonly StreamResponse[] };
}

export interface PushConfigInput {
  taskId: string;
  /** Generated when absent; an existing config of the task with this id is replaced. */
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  protocolVersion: PushProtocolVersion;
  owner?: string;
}

/** A config that cannot be accepted; the message is meant for the client (an invalid-params error). */
export class PushConfigError extends Error {
  override readonly name = 'PushConfigError';
}

/** Running totals, for metrics. */
export interface PushCounters {
  delivered: number;
  failed: number;
  /** Attempts that failed and were scheduled again. */
  retried: number;
}

/** Bounds of what a config may hold: they go into every delivery's request line and headers. */
const MAX_URL_CHARS = 2048;
const MAX_SECRET_CHARS = 4096;

/** Header values go on the wire verbatim: a line break would let a client add headers of its own. */
const UNSAFE_HEADER_VALUE = /[\r\n\0]/;

/**
 * How long a change stays marked before any replica's pump queues it: its own replica queues it within milliseconds
 * of the commit, so one marked this long ago was left by a replica that died (or whose lookup failed). Queuing a
 * change twice is impossible either way (queueMarked); this only keeps the pumps off changes in their first moments.
 */
const MARKED_LEFTOVER_MS = 5_000;

/** One delivery per event and webhook; the events' ids are new, the same for every webhook notified of an event. */
function deliveriesOf(task: Task, events: readonly StreamResponse[], configs: PushConfigRecord[]): NewDelivery[] {
  return events.flatMap((event) => {
    const eventId = randomUUID();
    return configs.map((config) => ({
      eventId,
      taskId: task.id,
      configId: config.id,
      url: config.url,
      ...notificationRequest(config, event, task, eventId),
    }));
  });
}

export class PushNotificationService {
  readonly counters: PushCounters = { delivered: 0, failed: 0, retried: 0 };
  private readonly store: PushStore;
  private readonly guard: WebhookGuard;
  private readonly settings: Required<
    Omit<PushServiceOptions, 'allowPrivate' | 'allowNetworks' | 'requireHttps' | 'resolver' | 'readChange'>
  >;
  private readonly readChange: PushServiceOptions['readChange'];
  /** In-flight attempts by config queue (at most one per config). */
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * Set while running: aborting it cuts short the attempts `stop` stopped waiting for. The guarded dispatcher is made
   * at the first attempt.
   */
  private running: Running | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pumpQueued = false;
  /** Looks at the outbox run one after another: two at once would start the same delivery twice. */
  private pumps: Promise<void> = Promise.resolve();
  /** Tasks whose marked changes this turn's lookup queues (see `changed`). */
  private markedLookups: Set<string> | undefined;
  /** What `notify` is queuing, by task, on a store that marks changes (see queuingDirectly). */
  private readonly directly = new Map<string, Promise<void>>();
  /** When the pump last queued the changes other replicas marked and left (ms since the epoch). */
  private leftoversAt = 0;
  private queuingLeftovers = false;

  constructor(store: PushStore, options: PushServiceOptions = {}) {
    this.store = store;
    this.guard = new WebhookGuard(options);
    this.settings = {
      timeoutMs: options.timeoutMs ?? 10_000,
      concurrency: options.concurrency ?? 8,
      maxAttempts: options.maxAttempts ?? 10,
      backoffBaseMs: options.backoffBaseMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 300_000,
      maxRedirects: options.maxRedirects ?? 3,
      sharedPollMs: options.sharedPollMs ?? 10_000,
      log: options.log ?? console.warn,
    };
    if (store.marksChanges && !options.readChange) {
      throw new Error('a push store that marks changes needs readChange');
    }
    this.readChange = options.readChange;
  }

  /** Why this config cannot be accepted, or undefined: lets a caller refuse a request before it creates anything. */
  configProblem(input: Pick<PushConfigInput, 'url' | 'token' | 'authentication'>): string | undefined {
    if (input.url.length > MAX_URL_CHARS) return `the webhook URL is longer than ${MAX_URL_CHARS} characters`;
    const lengths = [input.token, input.authentication?.scheme, input.authentication?.credentials].map(
      (value) => value?.length ?? 0,
    );
    if (Math.max(...lengths) > MAX_SECRET_CHARS)
      return `the token and the authentication are at most ${MAX_SECRET_CHARS} characters each`;
    const problem = this.guard.urlProblem(input.url);
    if (problem) return problem;
    const secrets = [input.token, input.authentication?.scheme, input.authentication?.credentials];
    if (secrets.some((value) => value !== undefined && UNSAFE_HEADER_VALUE.test(value))) {
      return 'the token and the authentication may not contain line breaks or NUL characters';
    }
    return undefined;
  }

  /** Throws PushConfigError when the URL or a credential is unacceptable. */
  async createConfig(input: PushConfigInput): Promise<PushConfigRecord> {
    const problem = this.configProblem(input);
    if (problem) throw new PushConfigError(problem);
    const record: PushConfigRecord = {
      taskId: input.taskId,
      id: input.id || randomUUID(),
      url: input.url,
      ...(input.token ? { token: input.token } : {}),
      ...(input.authentication?.scheme ? { authentication: input.authentication } : {}),
      protocolVersion: input.protocolVersion,
      ...(input.owner !== undefined ? { owner: input.owner } : {}),
      createdAt: new Date().toISOString(),
    };
    await this.store.saveConfig(record);
    return record;
  }

  getConfig(taskId: string, configId: string): Promise<PushConfigRecord | undefined> {
    return this.store.getConfig(taskId, configId);
  }

  listConfigs(taskId: string): Promise<PushConfigRecord[]> {
    return this.store.listConfigs(taskId);
  }

  /** Also drops the config's undelivered notifications. False when there was no such config. */
  deleteConfig(taskId: string, configId: string): Promise<boolean> {
    return this.store.deleteConfig(taskId, configId);
  }

  /**
   * Queues the events for every webhook of the task; they are on disk when this returns, delivered in the
   * background while the service runs. `task` is the task as it stands after the events.
   *
   * Chained rather than async: it runs at every change of every task, most of which have no webhook, and then costs
   * the store's lookup and one step after it (async frames and their awaits would add promises of their own).
   */
  notify(task: Task, events: readonly StreamResponse[]): Promise<void> {
    // Most gateways never see a webhook: their task changes skip the lookup and its promises.
    if (events.length === 0 || !this.store.mayHaveConfigs()) return Promise.resolve();
    const failed = (error: unknown) => this.notQueued(task, error);
    try {
      const queued = this.store
        .listConfigs(task.id)
        .then(
          (configs) => (configs.length === 0 ? undefined : this.enqueue(task, events, configs).catch(failed)),
          failed,
        );
      if (this.store.marksChanges) this.queuingDirectly(task.id, queued);
      return queued;
    } catch (error) {
      failed(error);
      return Promise.resolve();
    }
  }

  /**
   * Notes a task's events being queued by `notify` (the new task itself, which no change marks), so that its marked
   * changes are queued after them: a webhook hears the task before its first change.
   */
  private queuingDirectly(taskId: string, queued: Promise<void>): void {
    this.directly.set(taskId, queued);
    void queued.then(() => {
      if (this.directly.get(taskId) === queued) this.directly.delete(taskId);
    });
  }

  /** The task itself is committed and goes on; only its notifications are lost, so say so. */
  private notQueued(task: Task, error: unknown): void {
    this.settings.log(`[push] queueing notifications of task ${task.id}: ${String(error)}`);
  }

  private async enqueue(task: Task, events: readonly StreamResponse[], configs: PushConfigRecord[]): Promise<void> {
    await this.store.enqueue(deliveriesOf(task, events, configs), Date.now());
    this.schedulePump();
  }

  /**
   * A change of a task the engine committed, as `notify` takes it. On a store that marks such changes as it commits
   * them (PostgreSQL), their notifications are queued from the marks instead, so that a replica that dies right after
   * a commit does not lose them (another queues them: see the pump); the lookups of one turn go as one.
   */
  changed(task: Task, events: readonly StreamResponse[]): Promise<void> {
    if (!this.store.marksChanges) return this.notify(task, events);
    if (events.length === 0) return Promise.resolve();
    if (!this.markedLookups) {
      const lookups = new Set<string>();
      this.markedLookups = lookups;
      setImmediate(() => {
        this.markedLookups = undefined;
        const taskIds = [...lookups];
        void Promise.all(taskIds.map((taskId) => this.directly.get(taskId))).then(() => this.queueMarked({ taskIds }));
      });
    }
    this.markedLookups.add(task.id);
    return Promise.resolve();
  }

  /** Queues the notifications of marked changes; a failure leaves the marks, for the next look to try again. */
  private async queueMarked(scope: { taskIds: readonly string[] } | { olderThanMs: number }): Promise<void> {
    try {
      const build = (change: string, configs: PushConfigRecord[]) => this.markedDeliveries(change, configs);
      const queued = await this.store.queueMarked(scope, build, Date.now());
      if (queued > 0) this.schedulePump();
    } catch (error) {
      this.settings.log(`[push] queueing notifications of committed changes: ${String(error)}`);
    }
  }

  /** A marked change's deliveries, for webhooks `configs`. */
  private markedDeliveries(change: string, configs: PushConfigRecord[]): NewDelivery[] {
    if (configs.length === 0) return [];
    try {
      const { task, events } = this.readChange!(change);
      return deliveriesOf(task, events, configs);
    } catch (error) {
      // One change that cannot be read must not hold back the others queued with it: its mark goes, said.
      this.settings.log(`[push] a marked change could not be read, and is not notified: ${String(error)}`);
      return [];
    }
  }

  /** Starts delivering, beginning with whatever the outbox holds from before. */
  start(): void {
    if (this.running) return;
    this.running = { agent: undefined, abort: new AbortController() };
    this.schedulePump();
  }

  /**
   * Takes no new work and waits up to `timeoutMs` for the attempts in flight; those still running then are cut
   * short and left as they were in the outbox, for the next start.
   */
  async stop(timeoutMs = 5000): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    clearTimeout(this.timer);
    const settled = Promise.allSettled(this.inFlight.values());
    let timeout: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      settled.then(() => false),
      new Promise<boolean>((resolve) => (timeout = setTimeout(resolve, timeoutMs, true))),
    ]);
    clearTimeout(timeout);
    if (timedOut) {
      running.abort.abort();
      await settled;
    }
    await (await running.agent)?.destroy();
  }

  /** Coalesces the wake-ups of a busy moment (many `notify` calls, many attempts ending) into one look at the outbox. */
  private schedulePump(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumps = this.pumps
        .then(() => {
          this.pumpQueued = false;
          return this.pump();
        })
        .catch((error: unknown) => this.settings.log(`[push] reading the outbox: ${String(error)}`));
    });
  }

  /** Starts attempts for the due deliveries while workers are free, and sets a timer for the next retry due. */
  private async pump(): Promise<void> {
    const running = this.running;
    if (!running) return;
    const now = Date.now();
    const free = this.settings.concurrency - this.inFlight.size;
    if (free > 0) {
      // Asked for what can start now: every delivery a shared outbox returns is claimed, and one not started would
      // wait out its claim. An outbox of this process's own returns the heads of the queues in flight too: that many
      // more.
      const due = await this.store.due(now, this.store.shared ? free : free + this.inFlight.size);
      if (this.running !== running) return;
      for (const delivery of due) {
        if (this.inFlight.size >= this.settings.concurrency) break;
        const queue = `${delivery.taskId}\n${delivery.configId}`;
        if (this.inFlight.has(queue)) continue;
        const attempt = this.attempt(delivery, running)
          .catch((error: unknown) =>
            this.settings.log(`[push] recording a delivery of task ${delivery.taskId}: ${String(error)}`),
          )
          .finally(() => {
            this.inFlight.delete(queue);
            this.schedulePump();
          });
        this.inFlight.set(queue, attempt);
      }
    }
    // Changes a replica committed and marked but did not live to queue (nor anyone since): queued here, at most once
    // per poll. Their notifications then go out with the next look.
    // Not awaited: a wait for another replica's locks must not hold up deliveries; what it queues pumps again.
    if (this.store.marksChanges && !this.queuingLeftovers && now - this.leftoversAt >= this.settings.sharedPollMs) {
      this.leftoversAt = now;
      this.queuingLeftovers = true;
      void this.queueMarked({ olderThanMs: MARKED_LEFTOVER_MS }).finally(() => (this.queuingLeftovers = false));
    }
    // Deliveries due now but not started wait for an attempt to end, which pumps again; the timer is for later ones,
    // and on a shared outbox for what other replicas leave.
    clearTimeout(this.timer);
    const next = await this.store.nextAttemptAfter(now);
    const wake = Math.min(next ?? Infinity, this.store.shared ? now + this.settings.sharedPollMs : Infinity);
    if (wake !== Infinity && this.running) this.timer = setTimeout(() => this.schedulePump(), wake - now).unref();
  }

  private async attempt(delivery: OutboxDelivery, running: Running): Promise<void> {
    running.agent ??= this.guard.createAgent(this.settings.timeoutMs);
    const outcome = await postWebhook(delivery, {
      guard: this.guard,
      dispatcher: await running.agent,
      signal: AbortSignal.any([running.abort.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      maxRedirects: this.settings.maxRedirects,
    });
    // Cut short by stop(): not the receiver's doing, so the row stays exactly as it was.
    if (running.abort.signal.aborted) return;
    await this.record(delivery, outcome);
  }

  private async record(delivery: OutboxDelivery, outcome: PostOutcome): Promise<void> {
    const attempts = delivery.attempts + 1;
    if (outcome.kind === 'delivered') {
      await this.store.markDelivered(delivery.seq);
      this.counters.delivered++;
      metrics.pushDeliveries.inc({ outcome: 'delivered' });
    } else if (outcome.kind === 'retry' && attempts < this.settings.maxAttempts) {
      const { backoffBaseMs, maxBackoffMs } = this.settings;
      const delay = Math.min(outcome.retryAfterMs ?? backoffDelay(attempts, backoffBaseMs, maxBackoffMs), maxBackoffMs);
      await this.store.scheduleRetry(delivery.seq, attempts, Date.now() + delay, outcome.reason);
      this.counters.retried++;
      metrics.pushDeliveries.inc({ outcome: 'retried' });
    } else {
      await this.store.markFailed(delivery.seq, attempts, outcome.reason);
      this.counters.failed++;
      metrics.pushDeliveries.inc({ outcome: 'failed' });
      this.settings.log(
        `[push] notification ${delivery.eventId} of task ${delivery.taskId} to webhook ${delivery.configId} failed after ${attempts} attempt(s): ${outcome.reason}`,
      );
    }
  }
}
