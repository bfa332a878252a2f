/**
 * Graceful shutdown: readiness goes off and new calls get 503, a blocking call in flight returns its task as it
 * stands (the client learns the task id), an open stream ends with the task's current status, and the tasks live on
 * for the next start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestBed, type TestBed } from '../support/gateway.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';
import { openSse } from '../support/sse.ts';

let bed: TestBed;
let gated: GatedAgent;
beforeAll(async () => {
  bed = await startTestBed({
    agents: (network) => {
      gated = gatedAgent(network);
      return [gated.agent];
    },
  });
});
afterAll(() => bed.close());

const rpc = (method: string, params: unknown, id = 1) =>
  fetch(`${bed.gateway.url}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
const message = (messageId: string) => ({ message: { messageId, role: 'ROLE_USER', parts: [{ text: 'wait' }] } });

describe('graceful shutdown', () => {
  it('answers the call in flight with its task, ends the stream with the current status, and refuses new calls', async () => {
    const blocking = rpc('SendMessage', message('shutdown-blocking'));
    const stream = await openSse(`${bed.gateway.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendStreamingMessage',
        params: message('shutdown-stream'),
      }),
    });
    expect(stream.response.headers.get('content-type')).toMatch(/text\/event-stream/);
    await eventually(() => gated.waiting === 2 || undefined);

    const stopping = bed.stopGateway();
    const refused = await bed.gateway.app.request('/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await bed.gateway.app.request('/readyz')).status).toBe(503);
    expect((await bed.gateway.app.request('/livez')).status).toBe(200);
    expect((await (await bed.gateway.app.request('/health')).json()).status).toBe('draining');

    const answer = await (await blocking).json();
    expect(answer.result.task.id).toMatch(/[0-9a-f-]{36}/);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(answer.result.task.status.state);

    const received = ((await stream.rest()) as { result: any }[]).map((event) => event.result);
    expect(received[0].task.id).toBeDefined();
    const last = received.at(-1);
    expect(last.statusUpdate.taskId).toBe(received[0].task.id);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(last.statusUpdate.status.state);
    await stopping;

    // Both tasks survive for the next start.
    const restarted = await bed.restartGateway();
    const again = await fetch(`${restarted.url}/tasks/${answer.result.task.id}`);
    expect(again.status).toBe(200);
    gated.open();
  });
});
