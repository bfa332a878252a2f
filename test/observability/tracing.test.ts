/**
 * One trace from the caller's HTTP request through the bridge and the Logos send to the agent's replies, continuing
 * the caller's `traceparent`, with the bridge's context in the task_request envelope for the agent to continue.
 */
import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFrom, startTracing, type Tracing } from '../../src/observability/tracing.ts';
import { eventually, inProcess, rpc, startTestBed, type TestBed } from '../support/gateway.ts';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('traces', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let bed: TestBed;

  beforeAll(async () => {
    tracing = await startTracing({ exporter });
    bed = await startTestBed();
  });
  afterAll(async () => {
    await bed.close();
    await tracing.stop();
  });

  it('HTTP → bridge → Logos send → replies → HTTP, in the caller’s trace, the context in the envelope', async () => {
    exporter.reset();
    const envelopes: { type: string; traceparent?: string }[] = [];
    // Another listener at the agent's address: the network hands it what the gateway sends the agent.
    const stopListening = inProcess(bed.network).listen('direct', 'agent:echo', (payload) =>
      envelopes.push(JSON.parse(new TextDecoder().decode(payload)) as { type: string; traceparent?: string }),
    );
    const response = await fetch(`${bed.gateway.url}/agents/echo`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'trace-1', role: 'ROLE_USER', parts: [{ text: 'trace me' }] } },
      }),
    });
    const { result } = (await response.json()) as { result: { task: { id: string } } };
    const taskId = result.task.id;

    const spans = await eventually(() => {
      const all = exporter.getFinishedSpans();
      return all.some((span) => span.name === 'POST /agents/{agentId}') ? all : undefined;
    });
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [http] = named('POST /agents/{agentId}');
    const [bridge] = named('bridge task_request');
    const sends = named('logos send');
    const receives = named('logos receive');
    expect(http && bridge).toBeTruthy();
    expect(sends.length).toBeGreaterThanOrEqual(1);
    expect(receives.length).toBeGreaterThanOrEqual(1);

    for (const span of [http!, bridge!, ...sends, ...receives]) expect(span.spanContext().traceId).toBe(CALLER_TRACE);
    expect(http!.kind).toBe(SpanKind.SERVER);
    expect(http!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(http!.attributes['http.response.status_code']).toBe(200);
    expect(bridge!.parentSpanContext?.spanId).toBe(http!.spanContext().spanId);
    expect(bridge!.attributes['a2a.task.id']).toBe(taskId);
    for (const span of [...sends, ...receives])
      expect(span.parentSpanContext?.spanId).toBe(bridge!.spanContext().spanId);
    expect(sends[0]!.kind).toBe(SpanKind.PRODUCER);
    expect(receives[0]!.kind).toBe(SpanKind.CONSUMER);
    // The blocking call answers after the agent's replies were heard: each began before the HTTP span ended (a
    // receive span may itself end a moment after the answer it released has gone out).
    const nanos = ([seconds, nanoseconds]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds);
    for (const span of receives) expect(nanos(span.startTime)).toBeLessThanOrEqual(nanos(http!.endTime));

    // What crossed the Logos hop: the bridge span's context, for the agent to continue.
    stopListening();
    const request = envelopes.find((envelope) => envelope.type === 'task_request');
    expect(request?.traceparent).toBe(`00-${CALLER_TRACE}-${bridge!.spanContext().spanId}-01`);
  });
});

describe('trace context while no span is exported', () => {
  let bed: TestBed;

  beforeAll(async () => {
    bed = await startTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  /** The traceparent of the task_request the gateway sends the echo agent for one SendMessage. */
  async function sentTraceparent(headers: Record<string, string>, messageId: string): Promise<string | undefined> {
    const envelopes: { type: string; traceparent?: string }[] = [];
    const stopListening = inProcess(bed.network).listen('direct', 'agent:echo', (payload) =>
      envelopes.push(JSON.parse(new TextDecoder().decode(payload)) as { type: string; traceparent?: string }),
    );
    try {
      const { status } = await rpc(
        `${bed.gateway.url}/agents/echo`,
        'SendMessage',
        { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'trace me' }] } },
        { 'A2A-Version': '1.0', ...headers },
      );
      expect(status).toBe(200);
      return envelopes.find((envelope) => envelope.type === 'task_request')?.traceparent;
    } finally {
      stopListening();
    }
  }

  it('continues the caller’s trace with a span id of its own, marked as not sampled', async () => {
    const sent = await sentTraceparent({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }, 'untraced-1');
    const [version, traceId, spanId, flags] = sent?.split('-') ?? [];
    expect([version, traceId, flags]).toEqual(['00', CALLER_TRACE, '00']);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(spanId).not.toBe(CALLER_SPAN);
    expect(spanId).not.toBe('0000000000000000');
  });

  it('starts a trace of its own for a caller without one, a new one per request', async () => {
    const first = await sentTraceparent({}, 'untraced-2');
    const second = await sentTraceparent({}, 'untraced-3');
    for (const sent of [first, second]) expect(sent).toMatch(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-00$/);
    expect(first!.split('-')[1]).not.toBe(second!.split('-')[1]);
  });
});

describe('reading a traceparent', () => {
  let tracing: Tracing;

  beforeAll(async () => {
    tracing = await startTracing({});
  });
  afterAll(async () => {
    await tracing.stop();
  });

  it('takes what the registered propagators take, plain traceparents read without them included', () => {
    const carriers = [
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'vendor=value' },
      { traceparent: ` 00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      { traceparent: `01-${CALLER_TRACE}-${CALLER_SPAN}-01-more` },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01-more` },
      { traceparent: `ff-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      { traceparent: `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01` },
      { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` },
      { traceparent: `00-${CALLER_TRACE}-${'0'.repeat(16)}-01` },
      { traceparent: 'not a traceparent' },
      {},
    ];
    for (const carrier of carriers) {
      const headers = Object.fromEntries(Object.entries(carrier));
      const expected = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers));
      const got = trace.getSpanContext(contextFrom(carrier, ROOT_CONTEXT));
      expect({ ...got, traceState: got?.traceState?.serialize() }).toEqual({
        ...expected,
        traceState: expected?.traceState?.serialize(),
      });
    }
  });
});
