/**
 * Graceful shutdown: readiness goes off and new calls get 503, a blocking call in flight returns its task as it
 * stands (the client learns the task id), an open stream ends with the task's current status, and the tasks live on
 * for the next start.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
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

describe('keep-alive connections at shutdown', () => {
  /** A request over `agent`; resolves with the answer, rejects with the socket's error (ECONNRESET and the like). */
  const send = (agent: Agent, method: string, path: string, body?: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const url = new URL(path, bed.gateway.url);
      const request = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method,
          headers: body ? { 'Content-Type': 'application/json', 'A2A-Version': '1.0' } : {},
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  it('a request on a connection opened before the shutdown gets 503, Retry-After and Connection: close, not a reset', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      // Four idle keep-alive connections, as a client's pool holds them.
      const opened = await Promise.all(Array.from({ length: 4 }, () => send(agent, 'GET', '/health')));
      expect(opened.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(4);

      const stopping = bed.stopGateway();
      const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'missing' } });
      const during = await Promise.all(Array.from({ length: 4 }, () => send(agent, 'POST', '/', call)));
      for (const answer of during) {
        expect(answer.status).toBe(503);
        expect(answer.headers['retry-after']).toBe('5');
        expect(answer.headers.connection).toBe('close');
        expect(JSON.parse(answer.body).error.status).toBe('UNAVAILABLE');
      }
      await stopping;
    } finally {
      agent.destroy();
      await bed.restartGateway();
    }
  });
});
