/**
 * A v0.3 client (@a2a-js/sdk 0.3.14) starts from the plain card URL, as deployed v0.3 clients do (no version named:
 * the union card), and reaches the same agents with the v0.3 JSON-RPC methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from 'a2a-sdk-v03/client';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed.close());

const message = (text: string, messageId: string, taskId?: string) => ({
  message: {
    kind: 'message' as const,
    messageId,
    role: 'user' as const,
    parts: [{ kind: 'text' as const, text }],
    ...(taskId ? { taskId } : {}),
  },
});

async function legacyClient(agentPath = '') {
  return new ClientFactory().createFromUrl(`${bed.gateway.url}${agentPath}`);
}

describe('v0.3 client', () => {
  it('message/send completes with the echoed text', async () => {
    const client = await legacyClient();
    const result = await client.sendMessage(message('old but gold', 'v03-1'));
    expect(result.kind).toBe('task');
    if (result.kind !== 'task') return;
    expect(result.status.state).toBe('completed');
    expect(result.artifacts?.[0]?.parts[0]).toMatchObject({ kind: 'text', text: 'old but gold' });
  });

  it('message/stream: task, working, artifact, completed with final:true', async () => {
    const client = await legacyClient('/agents/conformance/');
    const events = [];
    for await (const event of client.sendMessageStream(message('hi', 'tck-stream-001-v03'))) events.push(event);
    expect(events[0]?.kind).toBe('task');
    const last = events.at(-1);
    expect(last?.kind).toBe('status-update');
    expect(last?.kind === 'status-update' && last.status.state).toBe('completed');
    expect(last?.kind === 'status-update' && last.final).toBe(true);
    expect(events.some((e) => e.kind === 'artifact-update')).toBe(true);
  });

  it('tasks/get, tasks/cancel errors and input-required follow-ups work in v0.3 shapes', async () => {
    const client = await legacyClient('/agents/conformance/');
    const task = await client.sendMessage(message('hi', 'tck-input-required-v03'));
    expect(task.kind === 'task' && task.status.state).toBe('input-required');
    if (task.kind !== 'task') return;
    const done = await client.sendMessage(message('here you go', 'v03-follow-up', task.id));
    expect(done.kind === 'task' && done.status.state).toBe('completed');
    const fetched = await client.getTask({ id: task.id });
    expect(fetched.status.state).toBe('completed');
    await expect(client.getTask({ id: 'missing' })).rejects.toThrow(/not found/i);
    await expect(client.cancelTask({ id: task.id })).rejects.toThrow(/cannot be cancel/i);
  });

  it('a stream refused before it starts: the HTTP status of its error, which the client reads (before: 200 JSON)', async () => {
    const client = await legacyClient();
    // Before, a 200 that was not an event stream: the client reported a content type, not the error.
    const unknown = (async () => {
      for await (const event of client.resubscribeTask({ id: 'missing' })) void event;
    })();
    await expect(unknown).rejects.toThrow(/404.*Task missing was not found.*-32001/);
    const raw = await rpc(bed.gateway.url, 'tasks/resubscribe', { id: 'missing' }, {});
    expect(raw.status).toBe(404);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(raw.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Task missing was not found.' },
    });

    const done = await client.sendMessage(message('done', 'v03-refused-stream'));
    if (done.kind !== 'task') throw new Error('expected a task');
    const followUp = (async () => {
      for await (const event of client.sendMessageStream(message('more', 'v03-refused-stream-2', done.id))) void event;
    })();
    await expect(followUp).rejects.toThrow(/400.*already completed.*-32004/);
  });

  it('the defaults the v0.3 suite expects otherwise: a send waits, and a completed task takes no follow-up', async () => {
    // A2A v0.3 gives `blocking` no default; both official v0.3 SDKs (JS DefaultRequestHandler, Python
    // on_message_send) wait unless it is false, as v1.0 does without returnImmediately. The suite's cancel and
    // follow-up checks send no configuration and expect a task still running (README, "Running the A2A TCK").
    const client = await legacyClient('/agents/conformance/');
    const sent = await client.sendMessage(message('Task for cancel test', 'cancel-test-v03'));
    expect(sent.kind === 'task' && sent.status.state).toBe('completed');
    if (sent.kind !== 'task') return;
    await expect(client.cancelTask({ id: sent.id })).rejects.toThrow(/cannot be cancel/i);
    // "Sending a message to such a task will result in an error" (A2A v0.3 §7.1).
    const followUp = await rpc(
      `${bed.gateway.url}/agents/conformance`,
      'message/send',
      message('Follow-up message for the existing task', 'continuation-v03', sent.id),
      {},
    );
    expect(followUp.body.error?.code).toBe(-32004);
  });
});
