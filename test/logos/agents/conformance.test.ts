/**
 * The TCK scenarios (a2a-tck, keyed by messageId prefix), through the official client and the whole path:
 * HTTP → bridge → binding envelopes → the conformance agent → back. Every value the TCK checks is asserted exactly,
 * over both bindings, and once more on the wire as plain JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GetTaskRequest,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  clientFor,
  collect,
  eventually,
  rpc,
  startTestBed,
  textMessage,
  type Binding,
  type TestBed,
} from '../../support/gateway.ts';
import { ClientFactory as LegacyClientFactory } from 'a2a-sdk-v03/client';
import {
  conformanceAgent,
  DEFAULT_RESUBSCRIBE_DELAY_MS,
  DEFAULT_V03_LIFECYCLE,
  TCK_REQUIRED_EXTENSION,
} from '../../../src/logos/agents/conformance.ts';

const RESUBSCRIBE_DELAY_MS = 400; // what startTestBed gives the conformance agent

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed.close());

const base = () => `${bed.gateway.url}/agents/conformance`;
let counter = 0;
/** A messageId with the scenario's prefix and a unique suffix, as the TCK sends them. */
const idFor = (prefix: string) => `${prefix}-${++counter}-${Date.now()}`;

/** A part as plain values, for exact comparison. */
function partOf(part: Part): Record<string, unknown> {
  const content = part.content;
  const value = content?.$case === 'raw' ? Buffer.from(content.value).toString('utf8') : content?.value;
  return {
    [content?.$case ?? 'none']: value,
    ...(part.filename ? { filename: part.filename } : {}),
    ...(part.mediaType ? { mediaType: part.mediaType } : {}),
  };
}
const partsOf = (message: Message | Artifact | undefined) => (message?.parts ?? []).map(partOf);

/** A stream event, reduced to what the TCK looks at. */
function eventOf(event: StreamResponse): unknown {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return { task: payload.value.status?.state };
    case 'statusUpdate':
      return { status: payload.value.status?.state };
    case 'artifactUpdate':
      return {
        artifact: partsOf(payload.value.artifact),
        append: payload.value.append,
        lastChunk: payload.value.lastChunk,
      };
    case 'message':
      return { message: partsOf(payload.value) };
    default:
      return payload;
  }
}

const { TASK_STATE_SUBMITTED: SUBMITTED, TASK_STATE_WORKING: WORKING, TASK_STATE_COMPLETED: COMPLETED } = TaskState;

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('TCK scenarios over %s', (binding) => {
  const send = async (prefix: string, extra: Parameters<typeof textMessage>[1] = {}) =>
    (await clientFor(base(), binding)).sendMessage(textMessage('hi', { messageId: idFor(prefix), ...extra }));
  const stream = async (prefix: string) =>
    (
      await collect(
        (await clientFor(base(), binding)).sendMessageStream(textMessage('hi', { messageId: idFor(prefix) })),
      )
    ).map(eventOf);

  it('tck-complete-task: COMPLETED, status message one text part "Hello from TCK"', async () => {
    const task = (await send('tck-complete-task')) as Task;
    expect(task.status?.state).toBe(COMPLETED);
    expect(partsOf(task.status?.message)).toEqual([{ text: 'Hello from TCK' }]);
  });

  it('tck-artifact-text: one artifact, one text part "Generated text content", COMPLETED', async () => {
    const task = (await send('tck-artifact-text')) as Task;
    expect(task.status?.state).toBe(COMPLETED);
    expect(task.artifacts.map(partsOf)).toEqual([[{ text: 'Generated text content' }]]);
  });

  it('tck-artifact-file: one artifact, one file part with inline bytes, output.txt, text/plain, COMPLETED', async () => {
    const task = (await send('tck-artifact-file')) as Task;
    expect(task.status?.state).toBe(COMPLETED);
    expect(task.artifacts.map(partsOf)).toEqual([[{ raw: 'tck', filename: 'output.txt', mediaType: 'text/plain' }]]);
  });

  it('tck-artifact-file-url: one artifact, one file part by URL, output.txt, text/plain, COMPLETED', async () => {
    const task = (await send('tck-artifact-file-url')) as Task;
    expect(task.status?.state).toBe(COMPLETED);
    expect(task.artifacts.map(partsOf)).toEqual([
      [{ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }],
    ]);
  });

  it('tck-artifact-data: one artifact, one data part {"key": "value", "count": 42}, COMPLETED', async () => {
    const task = (await send('tck-artifact-data')) as Task;
    expect(task.status?.state).toBe(COMPLETED);
    expect(task.artifacts.map(partsOf)).toEqual([[{ data: { key: 'value', count: 42 } }]]);
  });

  it('tck-message-response: a Message with one text part "Direct message response", no task', async () => {
    const result = await send('tck-message-response');
    expect('messageId' in result).toBe(true);
    expect(partsOf(result as Message)).toEqual([{ text: 'Direct message response' }]);
    // Streamed, the same answer arrives (as the Message, or as the final status of the stream).
    const events = await collect(
      (await clientFor(base(), binding)).sendMessageStream(
        textMessage('hi', { messageId: idFor('tck-message-response') }),
      ),
    );
    const last = events.at(-1)?.payload;
    const answer =
      last?.$case === 'message' ? last.value : last?.$case === 'statusUpdate' ? last.value.status?.message : undefined;
    expect(partsOf(answer)).toEqual([{ text: 'Direct message response' }]);
  });

  it('tck-input-required: INPUT_REQUIRED; a tck-complete-task follow-up on the same task completes it', async () => {
    const task = (await send('tck-input-required')) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await send('tck-complete-task', { taskId: task.id, contextId: task.contextId })) as Task;
    expect(done.id).toBe(task.id);
    expect(done.status?.state).toBe(COMPLETED);
    expect(partsOf(done.status?.message)).toEqual([{ text: 'Hello from TCK' }]);
    // Once terminal, the task takes no more messages (-32004).
    await expect(send('tck-complete-task', { taskId: task.id })).rejects.toMatchObject({
      name: 'UnsupportedOperationError',
    });
  });

  it('tck-input-required: a follow-up without a scenario prefix completes with what it said', async () => {
    const task = (await send('tck-input-required')) as Task;
    const client = await clientFor(base(), binding);
    const done = (await client.sendMessage(textMessage('more input', { taskId: task.id }))) as Task;
    expect(done.status?.state).toBe(COMPLETED);
    expect(partsOf(done.status?.message)).toEqual([{ text: 'Received: more input' }]);
  });

  it('tck-input-required over a stream: closes at INPUT_REQUIRED; the follow-up stream runs to COMPLETED', async () => {
    const client = await clientFor(base(), binding);
    const first = await collect(
      client.sendMessageStream(textMessage('hi', { messageId: idFor('tck-input-required') })),
    );
    expect(eventOf(first.at(-1)!)).toEqual({ status: TaskState.TASK_STATE_INPUT_REQUIRED });
    const task = first[0]!.payload!.value as Task;
    const second = await collect(
      client.sendMessageStream(textMessage('go on', { taskId: task.id, messageId: idFor('tck-complete-task') })),
    );
    expect(second[0]?.payload?.$case).toBe('task');
    expect(eventOf(second.at(-1)!)).toEqual({ status: COMPLETED });
  });

  it('tck-auth-required: AUTH_REQUIRED, and stays so; an answer on the task completes it', async () => {
    const task = (await send('tck-auth-required')) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const client = await clientFor(base(), binding);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(later.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const done = (await client.sendMessage(textMessage('token', { taskId: task.id }))) as Task;
    expect(done.status?.state).toBe(COMPLETED);
    expect(partsOf(done.status?.message)).toEqual([{ text: 'Authenticated: token' }]);
  });

  it('tck-delayed-complete: a blocking send waits for COMPLETED, a returnImmediately send does not', async () => {
    const blocking = (await send('tck-delayed-complete')) as Task;
    expect(blocking.status?.state).toBe(COMPLETED);
    const client = await clientFor(base(), binding);
    const early = (await client.sendMessage(
      textMessage('hi', { messageId: idFor('tck-delayed-complete'), configuration: { returnImmediately: true } }),
    )) as Task;
    expect([SUBMITTED, WORKING]).toContain(early.status?.state);
    const done = await eventually(async () => {
      const task = await client.getTask(GetTaskRequest.fromJSON({ id: early.id }));
      return task.status?.state === COMPLETED ? task : undefined;
    });
    expect(partsOf(done.status?.message)).toEqual([{ text: 'Hello from TCK' }]);
  });

  it('tck-reject-task: REJECTED, status message text "rejected"', async () => {
    const task = (await send('tck-reject-task')) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(partsOf(task.status?.message)).toEqual([{ text: 'rejected' }]);
  });

  it.each([
    ['tck-stream-001', 'Stream hello from TCK'],
    ['tck-stream-003', 'Stream task lifecycle'],
    ['tck-stream-ordering-001', 'Ordered output'],
    ['tck-stream-artifact-text', 'Streamed text content'],
  ])('%s: task, WORKING, artifact text "%s", COMPLETED, in that order', async (prefix, text) => {
    expect(await stream(prefix)).toEqual([
      { task: SUBMITTED },
      { status: WORKING },
      { artifact: [{ text }], append: false, lastChunk: false },
      { status: COMPLETED },
    ]);
  });

  it('tck-stream-002: task, then COMPLETED only', async () => {
    expect(await stream('tck-stream-002')).toEqual([{ task: SUBMITTED }, { status: COMPLETED }]);
  });

  it('tck-stream-artifact-file: task, WORKING, a file part output.txt text/plain, COMPLETED', async () => {
    expect(await stream('tck-stream-artifact-file')).toEqual([
      { task: SUBMITTED },
      { status: WORKING },
      { artifact: [{ raw: 'tck', filename: 'output.txt', mediaType: 'text/plain' }], append: false, lastChunk: false },
      { status: COMPLETED },
    ]);
  });

  it('tck-stream-artifact-chunked: "chunk-1 " (not last), then "chunk-2" appended as the last chunk, COMPLETED', async () => {
    const client = await clientFor(base(), binding);
    const events = await collect(
      client.sendMessageStream(textMessage('hi', { messageId: idFor('tck-stream-artifact-chunked') })),
    );
    expect(events.map(eventOf)).toEqual([
      { task: SUBMITTED },
      { status: WORKING },
      { artifact: [{ text: 'chunk-1 ' }], append: false, lastChunk: false },
      { artifact: [{ text: 'chunk-2' }], append: true, lastChunk: true },
      { status: COMPLETED },
    ]);
    const chunks = events.flatMap((e) =>
      e.payload?.$case === 'artifactUpdate' ? [e.payload.value.artifact?.artifactId] : [],
    );
    expect(new Set(chunks).size).toBe(1);
    const task = events[0]!.payload!.value as Task;
    const final = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(final.artifacts.map(partsOf)).toEqual([[{ text: 'chunk-1 ' }, { text: 'chunk-2' }]]);
  });

  it('test-resubscribe-message-id: WORKING for the configured delay, then COMPLETED; a subscriber sees it through', async () => {
    const client = await clientFor(base(), binding);
    const started = Date.now();
    const task = (await client.sendMessage(
      textMessage('hi', { messageId: 'test-resubscribe-message-id', configuration: { returnImmediately: true } }),
    )) as Task;
    const events = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(eventOf(events.at(-1)!)).toEqual({ status: COMPLETED });
    expect(Date.now() - started).toBeGreaterThanOrEqual(RESUBSCRIBE_DELAY_MS);
    const final = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(final.history.length).toBeGreaterThan(0);
    await expect(collect(client.resubscribeTask({ tenant: '', id: task.id }))).rejects.toMatchObject({
      name: 'UnsupportedOperationError',
    });
  });
});

it('test-resubscribe-message-id works twice the TCK streaming timeout (2 s) by default', () => {
  expect(DEFAULT_RESUBSCRIBE_DELAY_MS).toBeGreaterThanOrEqual(4_000);
});

describe('v0.3 callers: the 0.3.x suite’s reference agent, through the official v0.3 client', () => {
  // The 0.3.x suite's own messageIds: no scenario prefix.
  const legacyMessage = (messageId: string, taskId?: string) => ({
    message: {
      kind: 'message' as const,
      messageId,
      role: 'user' as const,
      parts: [{ kind: 'text' as const, text: 'Hello from the v0.3 suite' }],
      ...(taskId ? { taskId } : {}),
    },
  });
  const legacyClient = () => new LegacyClientFactory().createFromUrl(`${base()}/`);

  it('a task goes submitted → working → the answer as an artifact → completed', async () => {
    const client = await legacyClient();
    const events = [];
    for await (const event of client.sendMessageStream(legacyMessage(`test-state-message-id-${++counter}`))) {
      events.push(event);
    }
    const seen = events.map((event) =>
      event.kind === 'task'
        ? { task: event.status.state }
        : event.kind === 'status-update'
          ? { status: event.status.state, final: event.final }
          : event.kind === 'artifact-update'
            ? { artifact: event.artifact.parts }
            : { other: event.kind },
    );
    expect(seen).toEqual([
      { task: 'submitted' },
      { status: 'working', final: false },
      { artifact: [{ kind: 'text', text: 'Hello from the v0.3 suite' }] },
      { status: 'completed', final: true },
    ]);
  });

  it('a non-blocking send finds the task running, so the suite’s cancel succeeds (before: -32002)', async () => {
    const client = await legacyClient();
    const sent = await client.sendMessage({
      ...legacyMessage(`cancel-test-${++counter}`),
      configuration: { blocking: false },
    });
    expect(sent.kind).toBe('task');
    if (sent.kind !== 'task') return;
    expect(['submitted', 'working']).toContain(sent.status.state);
    const canceled = await client.cancelTask({ id: sent.id });
    expect(canceled.status.state).toBe('canceled');
  });

  it('test-resubscribe-message-id keeps working while a resubscriber follows it to completed', async () => {
    const client = await legacyClient();
    const stream = client.sendMessageStream(legacyMessage(`test-resubscribe-message-id-${++counter}`));
    const first = (await stream.next()).value;
    expect(first?.kind).toBe('task');
    if (first?.kind !== 'task') return;
    const states = [];
    for await (const event of client.resubscribeTask({ id: first.id })) {
      if (event.kind === 'status-update') states.push(event.status.state);
    }
    expect(states.at(-1)).toBe('completed');
    await stream.return(undefined);
  });

  it('v1.0 callers are not slowed: a message naming no scenario is echoed at once', async () => {
    const task = (await (await clientFor(base())).sendMessage(textMessage('echo me'))) as Task;
    expect(task.status?.state).toBe(COMPLETED);
    expect(task.artifacts.map(partsOf)).toEqual([[{ text: 'echo me' }]]);
    // The gateway marks v0.3 callers only: a v1.0 caller's message reaches the agent as sent.
    expect(task.history[0]?.metadata).toBeUndefined();
  });

  it('the default timing is the reference agent’s: 0.5 s submitted, 0.5 s working, 0.2 s to the answer', () => {
    expect(DEFAULT_V03_LIFECYCLE).toEqual({ submittedMs: 500, workingMs: 500, answerMs: 200 });
  });
});

describe('TCK values on the wire (plain JSON)', () => {
  const expectedArtifactParts: [string, unknown][] = [
    ['tck-artifact-text', [{ text: 'Generated text content' }]],
    [
      'tck-artifact-file',
      [{ raw: Buffer.from('tck').toString('base64'), filename: 'output.txt', mediaType: 'text/plain' }],
    ],
    [
      'tck-artifact-file-url',
      [{ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }],
    ],
    ['tck-artifact-data', [{ data: { key: 'value', count: 42 } }]],
  ];

  it.each(expectedArtifactParts)('%s over JSON-RPC', async (prefix, parts) => {
    const { body } = await rpc(base(), 'SendMessage', {
      message: { messageId: idFor(prefix), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts.map((a: { parts: unknown }) => a.parts)).toEqual([parts]);
  });

  it.each(expectedArtifactParts)('%s over HTTP+JSON', async (prefix, parts) => {
    const response = await fetch(`${base()}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: idFor(prefix), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });
    const body = await response.json();
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts.map((a: { parts: unknown }) => a.parts)).toEqual([parts]);
  });

  it('the status texts: complete, reject, and the direct message', async () => {
    const complete = await rpc(base(), 'SendMessage', {
      message: { messageId: idFor('tck-complete-task'), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    expect(complete.body.result.task.status.message.parts).toEqual([{ text: 'Hello from TCK' }]);
    const rejected = await rpc(base(), 'SendMessage', {
      message: { messageId: idFor('tck-reject-task'), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    expect(rejected.body.result.task.status.state).toBe('TASK_STATE_REJECTED');
    expect(rejected.body.result.task.status.message.parts).toEqual([{ text: 'rejected' }]);
    const direct = await rpc(base(), 'SendMessage', {
      message: { messageId: idFor('tck-message-response'), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    expect(direct.body.result.task).toBeUndefined();
    expect(direct.body.result.message.parts).toEqual([{ text: 'Direct message response' }]);
  });
});

describe('the TCK’s required extension, where configured', () => {
  let extBed: TestBed;
  beforeAll(
    async () =>
      (extBed = await startTestBed({
        agents: (network) => [
          conformanceAgent(network.node('agent:conformance-ext'), { id: 'conformance-ext', requireTckExtension: true }),
        ],
      })),
  );
  afterAll(() => extBed.close());
  const url = () => `${extBed.gateway.url}/agents/conformance-ext`;
  const sendBody = (binding: 'jsonrpc' | 'rest') => {
    const message = { messageId: idFor('tck-complete-task'), role: 'ROLE_USER', parts: [{ text: 'extension test' }] };
    return JSON.stringify(
      binding === 'jsonrpc' ? { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } } : { message },
    );
  };
  const post = (binding: 'jsonrpc' | 'rest', headers: Record<string, string> = {}) =>
    fetch(binding === 'jsonrpc' ? url() : `${url()}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
      body: sendBody(binding),
    });

  it('the card declares it required', async () => {
    const card = await (await fetch(`${url()}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.extensions).toContainEqual(
      expect.objectContaining({ uri: TCK_REQUIRED_EXTENSION, required: true }),
    );
  });

  it('a call without it is refused: -32008 on JSON-RPC, 400 on HTTP+JSON', async () => {
    expect((await (await post('jsonrpc')).json()).error.code).toBe(-32008);
    const rest = await post('rest');
    expect(rest.status).toBe(400);
    expect((await rest.json()).error.details[0].reason).toBe('EXTENSION_SUPPORT_REQUIRED');
  });

  it('a call that activates it completes, and the answer says it was activated', async () => {
    for (const binding of ['jsonrpc', 'rest'] as const) {
      const response = await post(binding, { 'A2A-Extensions': TCK_REQUIRED_EXTENSION });
      const body = await response.json();
      const task = binding === 'jsonrpc' ? body.result.task : body.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect([binding, response.headers.get('A2A-Extensions')]).toEqual([binding, TCK_REQUIRED_EXTENSION]);
    }
  });
});
