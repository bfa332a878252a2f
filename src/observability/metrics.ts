/**
 * The gateway's Prometheus metrics, served at /metrics. One registry per process, like prom-client's own default:
 * the modules that count import `metrics` and add one line where the thing happens, so nothing has to be threaded
 * through constructors. Several gateways in one process (tests) add to the same series; tests read differences.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

let peerSource: (() => number | undefined) | undefined;

/** What the peers gauge reads at each scrape: the running gateway's transport (undefined: nothing to count). */
export function countPeersWith(source: (() => number | undefined) | undefined): void {
  peerSource = source;
}

let collectingProcessMetrics = false;

/**
 * Adds the process's own series (CPU, memory, event loop, handles). Called by the Node runtime's composition root,
 * not on import: other runtimes (Workers) have no process to measure, and reading it there throws.
 */
export function collectProcessMetrics(): void {
  if (collectingProcessMetrics) return;
  collectingProcessMetrics = true;
  collectDefaultMetrics({ register: registry, prefix: 'logos_a2a_' });
}

/** The Logos payloads the gateways of this process sent and received, since it started. */
const logosMessageCounts = { in: 0, out: 0 };

/** Counts one Logos payload sent (out) or received (in) by the gateway. */
export function countLogosMessage(direction: 'in' | 'out'): void {
  logosMessageCounts[direction]++;
}

export const metrics = {
  /** Labelled by the route pattern (never the raw path, whose ids would make a series per task). */
  httpRequests: new Counter({
    name: 'logos_a2a_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'logos_a2a_http_request_duration_seconds',
    help: 'Time to the response head, by route pattern, method and status (a stream counts until it starts).',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  }),
  /** gRPC calls, by method (the service's, a bounded set) and status code name (OK, NOT_FOUND, …). */
  grpcRequests: new Counter({
    name: 'logos_a2a_grpc_requests_total',
    help: 'gRPC calls answered, by method and status code.',
    labelNames: ['method', 'code'] as const,
    registers: [registry],
  }),
  grpcDuration: new Histogram({
    name: 'logos_a2a_grpc_request_duration_seconds',
    help: "Time to a gRPC call's status, by method and status code (a stream counts until it ends).",
    labelNames: ['method', 'code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  }),
  /** Each state a task enters (its A2A TaskState), by agent: the rate of completions, failures, … */
  taskStates: new Counter({
    name: 'logos_a2a_task_states_total',
    help: 'Tasks that entered a state, by agent and state.',
    labelNames: ['agent', 'state'] as const,
    registers: [registry],
  }),
  logosMessages: new Counter({
    name: 'logos_a2a_logos_messages_total',
    help: 'Logos Messaging payloads sent (out: 1:1 sends and publications) and received (in) by the gateway.',
    labelNames: ['direction'] as const,
    registers: [registry],
    // Counted as plain numbers (countLogosMessage: several per task, where a labelled inc hashes its labels each
    // time), set into the counter at each scrape.
    collect() {
      this.reset();
      for (const direction of ['in', 'out'] as const) {
        if (logosMessageCounts[direction] > 0) this.inc({ direction }, logosMessageCounts[direction]);
      }
    },
  }),
  logosPeers: new Gauge({
    name: 'logos_a2a_logos_peers',
    help: 'Peers the gateway node is connected to (no sample with the in-process memory transport: it has none).',
    // Labelled so that "nothing to count" can be no sample at all; an unlabelled gauge always shows a number.
    labelNames: ['node'] as const,
    registers: [registry],
    collect() {
      const count = peerSource?.();
      this.reset();
      if (count !== undefined) this.set({ node: 'gateway' }, count);
    },
  }),
  /** outcome: paid, failed, in-doubt, needs-approval (gateway pays); client-paid, client-rejected (client pays). */
  payments: new Counter({
    name: 'logos_a2a_payments_total',
    help: 'Payments to agents, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  /**
   * outcome: refunded, refund-missing, refunded-late (recorded missing, found on chain later), no-refund (an agent whose
   * binding has no refunds).
   */
  refunds: new Counter({
    name: 'logos_a2a_refunds_total',
    help: 'Refunds owed by agents after a paid task ended without its result, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  openStreams: new Gauge({
    name: 'logos_a2a_open_streams',
    help: 'SSE streams open to clients.',
    registers: [registry],
  }),
  /** outcome: delivered, retried, failed (given up after the last attempt). */
  pushDeliveries: new Counter({
    name: 'logos_a2a_push_deliveries_total',
    help: 'Push-notification delivery attempts, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  /** Incremented by the replica that takes over a dead replica's task lease (one per task taken over). */
  leaseTakeovers: new Counter({
    name: 'logos_a2a_lease_takeovers_total',
    help: 'Task leases taken over from a replica that stopped renewing them.',
    registers: [registry],
  }),
  /** What a task costs the database: statements sent to PostgreSQL, by their first word (bench:store reads it). */
  databaseStatements: new Counter({
    name: 'logos_a2a_database_statements_total',
    help: 'Statements sent to PostgreSQL, by their first word (begin and commit count a transaction).',
    labelNames: ['statement'] as const,
    registers: [registry],
  }),
  /** Announcements on the discovery topic not taken, by reason (the discovery listener's counter names). */
  discoveryDrops: new Counter({
    name: 'logos_a2a_discovery_drops_total',
    help: 'Agent card announcements dropped by discovery, by reason (idTaken, badSignature, badAddress, ...).',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  rateLimited: new Counter({
    name: 'logos_a2a_rate_limited_total',
    help: 'Requests refused with 429, by the limit they hit (key or address).',
    labelNames: ['limit'] as const,
    registers: [registry],
  }),
};

/** The Prometheus text exposition of every metric. */
export function metricsText(): Promise<string> {
  return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;
