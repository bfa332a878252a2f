/**
 * A v0.3 client (@a2a-js/sdk 0.3.14) starts from the plain card URL, as deployed v0.3 clients do (no version named:
 * the union card), and reaches the same agents with the v0.3 JSON-RPC methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from 'a2a-sdk-v03/client';
import { startTestBed, type TestBed } from '../support/gateway.ts';

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
});
