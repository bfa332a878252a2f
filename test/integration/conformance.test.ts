/**
 * The TCK scenarios (a2a-tck, keyed by messageId prefix), through the official client and the whole path:
 * HTTP → bridge → binding envelopes → the conformance agent → back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskRequest, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { clientFor, collect, startTestBed, textMessage, type Binding, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed.close());

const base = () => `${bed.gateway.url}/agents/conformance`;
const textParts = (message: Message | undefined) =>
  (message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const stateOf = (event: StreamResponse | undefined) =>
  event?.payload?.$case === 'statusUpdate' ? event.payload.value.status?.state : event?.payload?.$case === 'task' ? event.payload.value.status?.state : undefined;

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('TCK scenarios over %s', (binding) => {
  it('tck-complete-task: completed with "Hello from TCK"', async () => {
    const client = await clientFor(base(), binding);
    const task = (await client.sendMessage(textMessage('hi', { messageId: 'tck-complete-task-1' }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textParts(task.status?.message)).toBe('Hello from TCK');
  });

  it('tck-message-response: a Message, not a task', async () => {
    const client = await clientFor(base(), binding);
    const result = await client.sendMessage(textMessage('hi', { messageId: 'tck-message-response-1' }));
    expect('messageId' in result).toBe(true);
    expect(textParts(result as Message)).toBe('Hello from TCK');
    const streamed = await collect(client.sendMessageStream(textMessage('hi', { messageId: 'tck-message-response-2' })));
    expect(streamed).toHaveLength(1);
    expect(streamed[0]?.payload?.$case).toBe('message');
  });

  it('tck-reject-task: rejected', async () => {
    const client = await clientFor(base(), binding);
    const task = (await client.sendMessage(textMessage('hi', { messageId: 'tck-reject-task-1' }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it('tck-input-required: waits for input, takes the follow-up on the same task, completes', async () => {
    const client = await clientFor(base(), binding);
    const task = (await client.sendMessage(textMessage('hi', { messageId: 'tck-input-required-1' }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage(textMessage('more input', { taskId: task.id, contextId: task.contextId }))) as Task;
    expect(done.id).toBe(task.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textParts(done.status?.message)).toBe('Received: more input');
    // Once terminal, the task takes no more messages (-32004).
    await expect(client.sendMessage(textMessage('again', { taskId: task.id }))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });

  it('tck-input-required over a stream: closes at input-required; the follow-up stream runs to completion', async () => {
    const client = await clientFor(base(), binding);
    const first = await collect(client.sendMessageStream(textMessage('hi', { messageId: 'tck-input-required-2' })));
    expect(stateOf(first.at(-1))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const task = first[0]!.payload!.value as Task;
    const second = await collect(client.sendMessageStream(textMessage('go on', { taskId: task.id })));
    expect(second[0]?.payload?.$case).toBe('task');
    expect(stateOf(second.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it.each([
    ['tck-artifact-text', 'text'],
    ['tck-artifact-file-url', 'url'],
    ['tck-artifact-file', 'raw'],
    ['tck-artifact-data', 'data'],
  ])('%s: one %s artifact, then completed', async (prefix, kind) => {
    const client = await clientFor(base(), binding);
    const task = (await client.sendMessage(textMessage('hi', { messageId: `${prefix}-1` }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.parts[0]!.content?.$case).toBe(kind);
  });

  it.each(['tck-stream-001', 'tck-stream-002', 'tck-stream-003', 'tck-stream-ordering-001', 'tck-stream-artifact-text', 'tck-stream-artifact-file'])(
    '%s: task, working, artifact, completed, in order',
    async (prefix) => {
      const client = await clientFor(base(), binding);
      const events = await collect(client.sendMessageStream(textMessage('hi', { messageId: `${prefix}-1` })));
      expect(events[0]?.payload?.$case).toBe('task');
      const kinds = events.map((e) => e.payload?.$case);
      expect(kinds).toContain('artifactUpdate');
      expect(kinds.lastIndexOf('artifactUpdate')).toBeLessThan(kinds.length - 1);
      expect(stateOf(events.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
    },
  );

  it('tck-stream-artifact-chunked: three chunks appended into one artifact', async () => {
    const client = await clientFor(base(), binding);
    const events = await collect(client.sendMessageStream(textMessage('hi', { messageId: 'tck-stream-artifact-chunked-1' })));
    const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([[false, false], [true, false], [true, true]]);
    const task = events[0]!.payload!.value as Task;
    const final = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    const parts = final.artifacts.find((a) => a.artifactId === 'chunked-artifact')!.parts;
    expect(parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')).toBe('Hello from TCK');
  });

  it('test-resubscribe-message-id: a second subscriber joins mid-task and sees it complete', async () => {
    const client = await clientFor(base(), binding);
    const task = (await client.sendMessage(textMessage('hi', { messageId: 'test-resubscribe-message-id', configuration: { returnImmediately: true } }))) as Task;
    const events = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(stateOf(events.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(collect(client.resubscribeTask({ tenant: '', id: task.id }))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });
});
