/**
 * OpenTelemetry traces: HTTP request → bridge → Logos send → the agent's replies. The W3C trace context crosses the
 * Logos hop in the envelope's `traceparent` field (docs/binding.md, "Trace context"), so an agent can continue the
 * trace. Spans are exported over OTLP/HTTP only when an endpoint is configured; without one the context still
 * propagates (a client's `traceparent` reaches the agent) and nothing is recorded.
 */
import { fillRandom } from '../random-pool.ts';
import { activeContext, runInContext, useOneAsyncContext } from './async-context.ts';
import {
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
 * Whether the registered propagator is the SDK's default (W3C trace context, then W3C baggage), which contextFrom
 * then stands in for on a plain traceparent; registered first, another one would have been kept.
 */
let w3cPropagation = false;

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
    w3cPropagation = propagation.fields().join() === 'traceparent,tracestate,baggage';
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
  return recording() ? tracer.startSpan(name, options, parent) : unrecordedSpan(parent);
}

/** startSpan's own span, which needs no name or options: it records nothing. */
function unrecordedSpan(parent: Context): Span {
  const parentSpan = trace.getSpanContext(parent);
  const continues =
    parentSpan !== undefined && (parentSpan instanceof CheckedSpanContext || trace.isSpanContextValid(parentSpan));
  return trace.wrapSpanContext(
    new OwnSpanContext(continues ? parentSpan.traceId : randomId(16), randomId(8), continues ? parentSpan : undefined),
  );
}

/**
 * A span context whose ids are valid by construction, so a child's startSpan need not check them again (two hex scans
 * each, for each of the several spans a request starts).
 */
abstract class CheckedSpanContext implements SpanContext {
  readonly traceId: string;
  readonly spanId: string;
  abstract readonly traceFlags: number;

  constructor(traceId: string, spanId: string) {
    this.traceId = traceId;
    this.spanId = spanId;
  }
}

/** The span context of a span made by startSpan. */
class OwnSpanContext extends CheckedSpanContext {
  readonly traceFlags = TraceFlags.NONE;
  readonly traceState?: TraceState;

  constructor(traceId: string, spanId: string, parent: SpanContext | undefined) {
    super(traceId, spanId);
    if (parent?.traceState) this.traceState = parent.traceState;
  }
}

/** A plain traceparent's span context, as the W3C propagator takes it (contextFrom). */
class RemoteSpanContext extends CheckedSpanContext {
  readonly traceFlags: number;
  readonly isRemote = true;

  constructor(traceId: string, spanId: string, traceFlags: number) {
    super(traceId, spanId);
    this.traceFlags = traceFlags;
  }
}

/** Whether spans go through the SDK: before `startTracing` (the API's no-op tracer), or while some start exports. */
function recording(): boolean {
  return !registered || processors.size > 0;
}

/**
 * Random hex for ids, written a block at a time from the shared pool (random-pool.ts) and cut into ids: one hex
 * conversion per some ten requests instead of one per id (a request starts several spans). An id is a slice of its
 * block and keeps it (1 KiB) alive while it lives. Every character is handed out once.
 */
const HEX_BLOCK_BYTES = 512;
const hexScratch = Buffer.alloc(HEX_BLOCK_BYTES);
let hexBlock = '';
let hexUsed = 0;

/** A W3C id of `bytes` random bytes in lowercase hex; never all zeros, which would be invalid. */
function randomId(bytes: 8 | 16): string {
  const chars = bytes * 2;
  if (hexUsed + chars > hexBlock.length) {
    fillRandom(hexScratch);
    hexBlock = hexScratch.toString('hex');
    hexUsed = 0;
  }
  const id = hexBlock.slice(hexUsed, (hexUsed += chars));
  return id === ZEROS[bytes] ? `${id.slice(0, -1)}1` : id;
}

const ZEROS = { 8: '0'.repeat(16), 16: '0'.repeat(32) };

/**
 * Runs `fn` in a new span, child of `parent` (default: the active context), and ends it when `fn` settles; a throw
 * marks the span as an error and is rethrown.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  // A span of startSpan's own records nothing: ending it, its status and exceptions are no-ops, so `fn`'s promise is
  // the answer as it is. Not an async function: every request runs several of these, and an async frame returning
  // a promise costs a promise of its own and another to adopt `fn`'s.
  if (!recording()) {
    try {
      const parent = options.parent ?? activeContext();
      const span = unrecordedSpan(parent);
      return runInContext(trace.setSpan(parent, span), fn, span);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  return inRecordedSpan(name, options, fn);
}

async function inRecordedSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? activeContext();
  const span = startSpan(name, spanOptions(options), parent);
  try {
    return await runInContext(trace.setSpan(parent, span), fn, span);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

function spanOptions(options: { kind?: SpanKind; attributes?: Attributes }): SpanOptions {
  return {
    kind: options.kind ?? SpanKind.INTERNAL,
    ...(options.attributes ? { attributes: options.attributes } : {}),
  };
}

/**
 * Records a step that hands work over a hop (the bridge creating a task for an agent) as a span, child of the
 * active one, and answers its `traceparent` for the message that crosses: what happens on the other side, and the
 * replies, continue from it.
 */
export function handOver(name: string, attributes: Attributes): string | undefined {
  const active = activeContext();
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

/**
 * The context a `traceparent` (and `tracestate`) continues, made from `base` (default: the active context); `base`
 * itself when there is none.
 */
export function contextFrom(
  carrier: { traceparent?: string | undefined; tracestate?: string | undefined },
  base: Context = activeContext(),
): Context {
  // Without a traceparent the propagators (W3C trace context, baggage) find nothing to take: every request from a
  // client that sends none came here.
  if (!carrier.traceparent) return base;
  // A canonical traceparent alone, the kind handOver writes and the bridge reads back twice a task: the default
  // propagators would take exactly its span context, as remote, and find no baggage; read here without their round.
  if (w3cPropagation && !carrier.tracestate && isPlainTraceparent(carrier.traceparent)) {
    const traceparent = carrier.traceparent;
    return trace.setSpanContext(
      base,
      new RemoteSpanContext(traceparent.slice(3, 35), traceparent.slice(36, 52), parseInt(traceparent.slice(53), 16)),
    );
  }
  const headers: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
  return propagation.extract(base, headers);
}

/** Version 00 with valid ids (not all zeros) and nothing after the flags: what the W3C propagator takes as it is. */
const PLAIN_TRACEPARENT = /^00-(?!0{32})[\da-f]{32}-(?!0{16})[\da-f]{16}-[\da-f]{2}$/;

function isPlainTraceparent(traceparent: string): boolean {
  return traceparent.length === 55 && PLAIN_TRACEPARENT.test(traceparent);
}

/**
 * Runs `fn` in the trace a `traceparent` continues, whatever span is active (a timer's callback, say); the rest of
 * the active context (its log context) stays.
 */
export function inTraceOf<T>(
  carrier: { traceparent?: string | undefined; tracestate?: string | undefined },
  fn: () => T,
): T {
  return runInContext(contextFrom(carrier, trace.deleteSpan(activeContext())), fn);
}
