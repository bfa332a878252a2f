/**
 * The wire bindings behind one interface: what each does with the engine's canonical envelopes, and that the
 * dialect an agent's card names picks the right one. Byte for byte: the engine's wire output goes through here.
 */
import { describe, expect, it } from 'vitest';
import { WIRE_BINDINGS, WireBindings, wireBindingOf } from '../../src/logos/bindings/binding-of.ts';
import { logosAgentBinding } from '../../src/logos/bindings/logos-agent/binding.ts';
import { inboxTopic, updatesTopic } from '../../src/logos/bindings/logos-agent/wire.ts';
import { lp0008Binding } from '../../src/logos/bindings/lp-0008/binding.ts';
import { peerContext } from '../../src/logos/bindings/peer-context.ts';
import { taskTopic } from '../../src/logos/bindings/lp-0008/wire.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { ourBinding } from '../../src/logos/bindings/ours.ts';
import { seedBinding } from '../../src/logos/bindings/seed.ts';
import { BINDING_VERSION, encodeEnvelope, taskStatusTopic, type TaskRequest } from '../../src/logos/envelope.ts';
import { newStatusKey, statusKeyBytes } from '../../src/logos/status-key.ts';

const MAX = 1024 * 1024;
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const text = (payload: Uint8Array | undefined) => new TextDecoder().decode(payload);

const request: TaskRequest = {
  v: BINDING_VERSION,
  type: 'task_request',
  id: 'm1',
  task_id: 'task-1',
  from: 'waku:gw',
  to: 'waku:agent',
  status_key: newStatusKey(),
  context_id: 'ctx',
  skill: 'echo',
  params: { text: 'hi' },
  lez_price: '5',
  message: { role: 'ROLE_USER', messageId: 'u1', parts: [{ text: 'hi' }] },
} as TaskRequest;

describe('choosing a wire binding', () => {
  it('by the dialect an agent’s card names; every binding is listed once', () => {
    expect(wireBindingOf('binding')).toBe(ourBinding);
    expect(wireBindingOf('seed')).toBe(seedBinding);
    expect(WIRE_BINDINGS).toEqual([ourBinding, seedBinding]);
    for (const binding of WIRE_BINDINGS) expect(wireBindingOf(binding.dialect as 'binding' | 'seed')).toBe(binding);
  });
});

describe('our binding', () => {
  it('reads a task’s replies on its status topic, under its status key', () => {
    const { topic, options } = ourBinding.statusTopic(request);
    expect(topic).toBe(taskStatusTopic('task-1'));
    expect(options.key).toEqual(statusKeyBytes(request.status_key));
  });

  it('sends the canonical bytes as they are, and repeats requests (the agent replays)', () => {
    const payload = encodeEnvelope(request);
    expect(ourBinding.outgoing(payload, request)).toBe(payload);
    expect(ourBinding.replaysRepeatedRequest).toBe(true);
    expect(ourBinding.inputRefusal).toBeUndefined();
    expect(ourBinding.directReplyTaskId).toBeUndefined();
  });

  it('keeps the agent’s own numbering, and refuses what is not an envelope of ours', () => {
    const reply = { v: 1, id: 'r', type: 'task_status', task_id: 'task-1', seq: 7, state: 'working' };
    const decoded = ourBinding.decodeReply(bytes(reply), MAX, 1, request);
    expect(decoded).toMatchObject({ ok: true, envelope: { seq: 7, state: 'working' } });
    expect(
      ourBinding.decodeReply(bytes({ type: 'task_status', task_id: 'task-1', state: 'working' }), MAX, 1, request).ok,
    ).toBe(false);
    expect(ourBinding.decodeReply(bytes(reply), 10, 1, request)).toMatchObject({ ok: false, reason: 'too-large' });
    if (decoded.ok) expect(ourBinding.acceptsUnauthenticated(decoded.envelope)).toBe(true);
  });
});

describe('the seed dialect', () => {
  it('reads replies in the clear on the seed’s topic', () => {
    expect(seedBinding.statusTopic(request)).toEqual({ topic: '/agent-task/1/task-1/json', options: {} });
  });

  it('rewrites a cancel in the seed’s fields, byte for byte', () => {
    const cancel = encodeEnvelope({ v: 1, id: 'c1', type: 'cancel', task_id: 'task-1' } as never);
    expect(text(seedBinding.outgoing(cancel, request))).toBe(
      '{"type":"cancel","task_id":"task-1","skill":"echo","params":{},"lez_price":"5"}',
    );
  });

  it('numbers replies as they arrive, and finds the task of a 1:1 reply', () => {
    const reply = bytes({ type: 'task_result', task_id: 'task-1', state: 'completed', result: 'ok' });
    expect(seedBinding.decodeReply(reply, MAX, 4, request)).toMatchObject({
      ok: true,
      envelope: { seq: 4, type: 'task_result', state: 'completed', result: 'ok' },
    });
    expect(seedBinding.directReplyTaskId?.(reply, MAX)).toBe('task-1');
    expect(seedBinding.directReplyTaskId?.(bytes({ type: 'task_result' }), MAX)).toBeUndefined();
  });

  it('lets only a status through unauthenticated: its open topic names no publisher', () => {
    const status = seedBinding.decodeReply(
      bytes({ type: 'task_status', task_id: 't', state: 'working' }),
      MAX,
      1,
      request,
    );
    const result = seedBinding.decodeReply(
      bytes({ type: 'task_result', task_id: 't', state: 'completed' }),
      MAX,
      1,
      request,
    );
    const cancelled = seedBinding.decodeReply(bytes({ type: 'cancelled', task_id: 't' }), MAX, 1, request);
    if (!status.ok || !result.ok || !cancelled.ok) throw new Error('seed replies did not decode');
    expect(seedBinding.acceptsUnauthenticated(status.envelope)).toBe(true);
    expect(seedBinding.acceptsUnauthenticated(result.envelope)).toBe(false);
    expect(seedBinding.acceptsUnauthenticated(cancelled.envelope)).toBe(false);
  });

  it('is never sent a request twice, and takes no input, saying why', () => {
    expect(seedBinding.replaysRepeatedRequest).toBe(false);
    expect(seedBinding.inputRefusal).toMatch(/takes no input/);
  });
});

describe('the logos-agent binding', () => {
  const account = '7Yh4Hc3zUy1gkKq4Bn2ZJwQ5eB2sVQ7rLqZkZ6cHbS1P';
  const node = new MemoryNetwork().node('gateway');
  const binding = logosAgentBinding(node);
  const toAgent = { ...request, to: inboxTopic(account) } as TaskRequest;

  it('is chosen per network, one object per network, on that network’s node', () => {
    const bindings = new WireBindings((name) => (name === 'logos-agent' ? node : undefined), peerContext(undefined));
    const chosen = bindings.of('logos-agent', 'logos-agent');
    expect(chosen.dialect).toBe('logos-agent');
    expect(chosen.peer?.node).toBe(node);
    expect(chosen.peer?.requestTopic(toAgent)).toBe(inboxTopic(account));
    expect(bindings.of('logos-agent', 'logos-agent')).toBe(chosen);
    expect(bindings.of('seed', undefined)).toBe(seedBinding);
    expect(() => bindings.of('logos-agent', 'elsewhere')).toThrow(/no logos-agent agent/);
  });

  it('reads replies in the clear on the agent’s updates topic', () => {
    expect(binding.statusTopic(toAgent)).toEqual({ topic: updatesTopic(account), options: {} });
  });

  it('writes a request and a cancel in the binding’s words, byte for byte, and nothing for a question', () => {
    expect(text(binding.outgoing(encodeEnvelope(toAgent), toAgent))).toBe(
      '{"kind":"task_request","taskId":"task-1","skill":"echo","params":{"text":"hi"}}',
    );
    const common = {
      v: BINDING_VERSION,
      task_id: 'task-1',
      from: 'waku:gw',
      to: toAgent.to,
      status_key: toAgent.status_key,
    };
    const cancel = encodeEnvelope({ ...common, id: 'c1', type: 'cancel' } as never);
    expect(text(binding.outgoing(cancel, toAgent))).toBe('{"kind":"task_cancel","taskId":"task-1"}');
    const get = encodeEnvelope({ ...common, id: 'g1', type: 'task_get', after_seq: 0 } as never);
    expect(binding.outgoing(get, toAgent)).toBeUndefined();
  });

  it('numbers updates as they arrive, and maps a failure’s output to its error', () => {
    const update = (state: string, result: unknown = null) =>
      bytes({ kind: 'task_update', taskId: 'task-1', state, result });
    expect(binding.decodeReply(update('working'), MAX, 3, toAgent)).toMatchObject({
      ok: true,
      envelope: { seq: 3, task_id: 'task-1', type: 'task_status', state: 'working' },
    });
    expect(binding.decodeReply(update('failed', { error: 'no' }), MAX, 4, toAgent)).toMatchObject({
      ok: true,
      envelope: { seq: 4, type: 'task_result', state: 'failed', error: { code: 'agent_error', message: 'no' } },
    });
    expect(binding.decodeReply(bytes({ kind: 'other' }), MAX, 1, toAgent)).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
    expect(binding.decodeReply(update('working'), 10, 1, toAgent)).toMatchObject({ ok: false, reason: 'too-large' });
  });

  it('is never sent a request twice, and takes no input', () => {
    expect(binding.replaysRepeatedRequest).toBe(false);
    expect(binding.inputRefusal).toMatch(/take no input/);
  });
});

describe('the lp-0008 binding', () => {
  const account = 'Bx7YpQ3zUy1gkKq4Bn2ZJwQ5eB2sVQ7rLqZkZ6cHbS1P';
  const node = new MemoryNetwork().node('gateway');
  const binding = lp0008Binding(node);
  const toAgent = { ...request, to: account } as TaskRequest;
  const common = {
    v: BINDING_VERSION,
    task_id: 'task-1',
    from: 'waku:gw',
    to: account,
    status_key: toAgent.status_key,
  };
  const json = (payload: Uint8Array | undefined) => JSON.parse(text(payload)) as Record<string, unknown>;

  it('sends and reads everything of a task on the task’s topic', () => {
    expect(binding.peer?.requestTopic(toAgent)).toBe(taskTopic(account, 'task-1'));
    expect(binding.statusTopic(toAgent)).toEqual({ topic: taskTopic(account, 'task-1'), options: {} });
  });

  it('writes a request, a continuation and a cancel as A2A v0.3 JSON-RPC, and nothing for a question', () => {
    expect(json(binding.outgoing(encodeEnvelope(toAgent), toAgent))).toMatchObject({
      method: 'message/send',
      params: {
        message: {
          taskId: 'task-1',
          contextId: 'ctx',
          parts: [{ kind: 'data', data: { skill: 'echo', params: { text: 'hi' } } }],
        },
      },
    });
    const input = encodeEnvelope({ ...common, id: 'i1', type: 'task_input', params: { text: 'Ada', n: 1 } } as never);
    expect(json(binding.outgoing(input, toAgent))).toMatchObject({
      method: 'message/send',
      params: { message: { taskId: 'task-1', parts: [{ kind: 'data', data: { message: 'Ada', params: { n: 1 } } }] } },
    });
    const cancel = encodeEnvelope({ ...common, id: 'c1', type: 'cancel' } as never);
    expect(json(binding.outgoing(cancel, toAgent))).toMatchObject({ method: 'tasks/cancel', params: { id: 'task-1' } });
    const get = encodeEnvelope({ ...common, id: 'g1', type: 'task_get', after_seq: 0 } as never);
    expect(binding.outgoing(get, toAgent)).toBeUndefined();
    expect(binding.inputRefusal).toBeUndefined();
  });

  it('takes only the agent’s updates of the task, numbered as they arrive', () => {
    const update = (from: string, contextId = 'ctx') =>
      bytes({
        kind: 'status-update',
        taskId: 'task-1',
        contextId,
        status: { state: 'working' },
        metadata: { 'x-logos': { from } },
      });
    expect(binding.decodeReply(update(account), MAX, 2, toAgent)).toMatchObject({
      ok: true,
      envelope: { seq: 2, task_id: 'task-1', type: 'task_status', state: 'working' },
    });
    expect(binding.decodeReply(update('someone-else'), MAX, 2, toAgent).ok).toBe(false);
    expect(binding.decodeReply(update(account, 'other'), MAX, 2, toAgent).ok).toBe(false);
    // Its own request, heard back on the topic.
    expect(binding.decodeReply(binding.outgoing(encodeEnvelope(toAgent), toAgent)!, MAX, 2, toAgent).ok).toBe(false);
  });
});
