/** Which Durable Object the front Worker sends a request to (src/worker/task-routing.ts). */
import { describe, expect, it } from 'vitest';
import { routeRequest, TASK_ID_HEADER } from '../../src/worker/task-routing.ts';

const BASE = 'https://gateway.example';
const MAX = 1024;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`${BASE}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const call = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

async function targetOf(request: Request) {
  const target = await routeRequest(request, MAX);
  return target.kind === 'task'
    ? { kind: target.kind, taskId: target.taskId, header: target.request.headers.get(TASK_ID_HEADER) }
    : { kind: target.kind };
}

describe('routeRequest', () => {
  it.each(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream'])(
    'JSON-RPC %s: to the task its message names, else to a fresh one',
    async (method) => {
      const existing = await targetOf(post('/agents/echo', call(method, { message: { taskId: 't-1' } })));
      expect(existing).toEqual({ kind: 'task', taskId: 't-1', header: 't-1' });
      const fresh = await targetOf(post('/', call(method, { message: { parts: [] } })));
      expect(fresh.kind).toBe('task');
      expect(fresh).toMatchObject({ header: (fresh as { taskId: string }).taskId });
      const another = await targetOf(post('/', call(method, { message: { parts: [] } })));
      expect((another as { taskId: string }).taskId).not.toBe((fresh as { taskId: string }).taskId);
    },
  );

  it.each(['CancelTask', 'SubscribeToTask', 'tasks/cancel', 'tasks/resubscribe'])(
    'JSON-RPC %s: to the task it names',
    async (method) => {
      expect(await targetOf(post('/agents/echo/', call(method, { id: 't-2' })))).toEqual({
        kind: 'task',
        taskId: 't-2',
        header: 't-2',
      });
    },
  );

  it('reads, lists and everything it cannot read are for the front', async () => {
    expect(await targetOf(post('/', call('GetTask', { id: 't-3' })))).toEqual({ kind: 'front' });
    expect(await targetOf(post('/', call('ListTasks', {})))).toEqual({ kind: 'front' });
    expect(await targetOf(post('/', call('CancelTask', {})))).toEqual({ kind: 'front' });
    expect(await targetOf(post('/', '{"jsonrpc": "2.0", '))).toEqual({ kind: 'front' });
    expect(await targetOf(post('/', call('SendMessage', {}), { 'Content-Length': String(MAX + 1) }))).toEqual({
      kind: 'front',
    });
    expect(await targetOf(new Request(`${BASE}/agents/echo/.well-known/agent-card.json`))).toEqual({ kind: 'front' });
    expect(await targetOf(new Request(`${BASE}/agents/echo/tasks/t-4`))).toEqual({ kind: 'front' });
  });

  it('HTTP+JSON v1.0 and v0.3: by the path, or the message', async () => {
    expect(await targetOf(post('/agents/echo/tasks/t-5:cancel', {}))).toEqual({
      kind: 'task',
      taskId: 't-5',
      header: 't-5',
    });
    expect(await targetOf(new Request(`${BASE}/v1/tasks/t-6:subscribe`))).toEqual({
      kind: 'task',
      taskId: 't-6',
      header: 't-6',
    });
    expect(await targetOf(post('/agents/echo/message:send', { message: { taskId: 't-7' } }))).toEqual({
      kind: 'task',
      taskId: 't-7',
      header: 't-7',
    });
    expect((await targetOf(post('/v1/message:stream', { message: {} }))).kind).toBe('task');
  });

  it("an operator's decision on a held payment: to the task's object; the list of approvals: to the front", async () => {
    for (const verdict of ['approve', 'reject']) {
      expect(await targetOf(post(`/admin/approvals/t%2F9/${verdict}`, ''))).toEqual({
        kind: 'task',
        taskId: 't/9',
        header: 't/9',
      });
    }
    expect(await targetOf(new Request(`${BASE}/admin/approvals?status=pending`))).toEqual({ kind: 'front' });
    expect(await targetOf(new Request(`${BASE}/admin/approvals/t-9/approve`))).toEqual({ kind: 'front' });
    expect(await targetOf(post('/admin/approvals/%E0%A4%A/approve', ''))).toEqual({ kind: 'front' });
  });

  it('drops a task id header a client sent', async () => {
    expect(await targetOf(post('/', call('GetTask', { id: 'x' }), { [TASK_ID_HEADER]: 'forged' }))).toEqual({
      kind: 'front',
    });
    const target = await routeRequest(post('/', call('GetTask', { id: 'x' }), { [TASK_ID_HEADER]: 'forged' }), MAX);
    expect(target.request.headers.get(TASK_ID_HEADER)).toBeNull();
    const sent = await routeRequest(post('/', call('CancelTask', { id: 'real' }), { [TASK_ID_HEADER]: 'forged' }), MAX);
    expect(sent.request.headers.get(TASK_ID_HEADER)).toBe('real');
  });

  it('forwards the body it read', async () => {
    const body = call('SendMessage', { message: { taskId: 't-8', parts: [{ text: 'kept' }] } });
    const target = await routeRequest(post('/', body), MAX);
    expect(await target.request.json()).toEqual(body);
  });
});
