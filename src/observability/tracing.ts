/**
 * OpenTelemetry traces: HTTP request → bridge → Logos send → the agent's replies. The W3C trace context crosses the
 * Logos hop in the envelope's `traceparent` field (docs/binding.md, "Trace context"), so an agent can continue the
 * trace. Spans are exported over OTLP/HTTP only when an endpoint is configured; without one the context still
 * propagates (a client's `traceparent` reaches the agent) and nothing is recorded.
 */
import { fillRandom } from '../random-pool.ts';
import { useOneAsyncContext } from './async-context.ts';
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TraceState,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';

export { SpanKind, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('logos-a2a');

export interface TracingSettings {
  /** OTLP/HTTP traces endpoint (e.g. http://collector:4318/v1/traces); spans are recorded only with one. */
  otlpEndpoint?: string;
  /** An exporter of the caller's, spans handed to it one by one (tests: the SDK's InMemorySpanExporter). */
  exporter?: SpanExporter;
}

export interface Tracing {
  stop(): Promise<void>;
}

/** What the process's one provider hands each ended span to: the processors of every running `startTracing`. */
const processors = new Set<SpanProcessor>();
const fanOut: SpanProcessor = {
  onStart: (span, parent) => processors.forEach((processor) => processor.onStart(span, parent)),
  onEnd: (span) => processors.forEach((processor) => processor.onEnd(span)),
  forceFlush: async () => {
    await Promise.all([...processors].map((processor) => processor.forceFlush()));
  },
  shutdown: async () => {},
};
let registered = false;

/**
 * Spans are recorded (as the SDK's default sampler decides) only while some start exports them. Without an exporter
 * a recorded span is memory for nothing, held as long as its context is, by a stream for as long as it is open; the
 * context still propagates, in spans that record nothing (their traceparent then says "not sampled").
 */
const parentBased = new ParentBasedSampler({ root: new AlwaysOnSampler() });
const recordWhileExported: Sampler = {
  shouldSample: (...args) =>
    processors.size > 0 ? parentBased.shouldSample(...args) : { decision: SamplingDecision.NOT_RECORD },
  toString: () => `${parentBased.toString()} while exporting, else none`,
};

/**
 * Registers the process's tracer provider, context manager and W3C propagator on first use (they stay for the
 * process's life, like the metrics registry), and adds this caller's exporters until it stops. Several gateways in
 * one process (tests) each add and remove their own.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  if (!registered) {
    useOneAsyncContext();
    new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'logos-a2a' }),
      sampler: recordWhileExported,
      spanProcessors: [fanOut],
    }).register({ contextManager: null });
    registered = true;
  }
  const own: SpanProcessor[] = [];
  if (settings.exporter) own.push(new SimpleSpanProcessor(settings.exporter));
  if (settings.otlpEndpoint) {
    // Some 150 modules, loaded only when spans are exported: most starts have no endpoint.
    const { OTLPTraceExporter } = await import('./otlp-exporter.ts');
    own.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.otlpEndpoint })));
  }
  for (const processor of own) processors.add(processor);
  return {
    stop: async () => {
      for (const processor of own) processors.delete(processor);
      await Promise.all(own.map((processor) => processor.shutdown()));
    },
  };
}

/**
 * A span, child of `parent`. While nothing is exported the SDK's sampler would decline it anyway (see
 * `recordWhileExported`), and the SDK would then wrap a span context of the parent's trace (or a new one), a new span
 * id and "not sampled" in a span that records nothing: that span is made here at once, without the SDK's per-span
 * work (attribute copies, the sampler's arguments, its own metrics), since every request starts several.
 */
function startSpan(name: string, options: SpanOptions, parent: Context): Span {
  if (recording()) return tracer.startSpan(name, options, parent);
  const parentSpan = trace.getSpanContext(parent);
  const continues =
    parentSpan !== undefined && (parentSpan instanceof OwnSpanContext || trace.isSpanContextValid(parentSpan));
  return trace.wrapSpanContext(
    new OwnSpanContext(continues ? parentSpan.traceId : randomId(16), randomId(8), continues ? parentSpan : undefined),
  );
}

/**
 * The span context of a span made by startSpan: valid by construction, so a child's startSpan need not check its
 * ids again (two hex scans each, for each of the several spans a request starts).
 */
class OwnSpanContext implements SpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags = TraceFlags.NONE;
  readonly traceState?: TraceState;

  constructor(traceId: string, spanId: string, parent: SpanContext | undefined) {
    this.traceId = traceId;
    this.spanId = spanId;
    if (parent?.traceState) this.traceState = parent.traceState;
  }
}

/** Whether spans go through the SDK: before `startTracing` (the API's no-op tracer), or while some start exports. */
function recording(): boolean {
  return !registered || processors.size > 0;
}

/** Filled anew for each id, which leaves as a string: the bytes come from the shared pool (random-pool.ts). */
const idScratch = { 8: Buffer.alloc(8), 16: Buffer.alloc(16) };

/** A W3C id of `bytes` random bytes in lowercase hex; never all zeros, which would be invalid. */
function randomId(bytes: 8 | 16): string {
  const id = idScratch[bytes];
  fillRandom(id);
  if (id.every((byte) => byte === 0)) id[bytes - 1] = 1;
  return id.toString('hex');
}

/**
 * Runs `fn` in a new span, child of `parent` (default: the active context), and ends it when `fn` settles; a throw
 * marks the span as an error and is rethrown.
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
  );
  // A span of startSpan's own records nothing: ending it, its status and exceptions are no-ops, so `fn`'s promise is
  // the answer as it is (every request runs several of these; an async frame each is measurable).
  if (!recording()) {
    try {
      return context.with(trace.setSpan(parent, span), fn, undefined, span);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Records a step that hands work over a hop (the bridge creating a task for an agent) as a span, child of the
 * active one, and answers its `traceparent` for the message that crosses: what happens on the other side, and the
 * replies, continue from it.
 */
export function handOver(name: string, attributes: Attributes): string | undefined {
  const active = context.active();
  const span = startSpan(name, { kind: SpanKind.INTERNAL, attributes }, active);
  // startSpan's own span is valid and ends as a no-op: its traceparent is written here as the W3C propagator writes
  // it, without a context around it and the propagators' round (a tracestate, if any, does not go in `traceparent`).
  if (!recording()) {
    const { traceId, spanId, traceFlags } = span.spanContext();
    return `00-${traceId}-${spanId}-0${traceFlags.toString(16)}`;
  }
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(active, span), carrier);
  span.end();
  return carrier.traceparent;
}

/** The context a `traceparent` (and `tracestate`) continues; the active one when there is none. */
export function contextFrom(carrier: { traceparent?: string | undefined; tracestate?: string | undefined }): Context {
  // Without a traceparent the propagators (W3C trace context, baggage) find nothing to take: every request from a
  // client that sends none came here.
  if (!carrier.traceparent) return context.active();
  const headers: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
  return propagation.extract(context.active(), headers);
}

/**
 * Runs `fn` in the trace a `traceparent` continues, whatever span is active (a timer's callback, say); the rest of
 * the active context (its log context) stays.
 */
export function inTraceOf<T>(
  carrier: { traceparent?: string | undefined; tracestate?: string | undefined },
  fn: () => T,
): T {
  return context.with(
    context.with(trace.deleteSpan(context.active()), () => contextFrom(carrier)),
    fn,
  );
}
